package check

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// seg is one step of the path to a value: a property name, the span
// start, end and own, or an array index, start. It holds no pointer, so
// the path costs the garbage collector nothing: no write barriers as it
// grows, nothing to clear after a pass.
type seg struct {
	start, end int
	own, isKey bool
}

func keySeg(at span) seg { return seg{start: at.start, end: at.end, own: at.own, isKey: true} }

func (s seg) name() span { return span{start: s.start, end: s.end, own: s.own} }

// A span is a property name: bytes [start, end) of the arguments, or of
// the pass's own names (st.names) when own, for names with escapes and
// names the pass writes itself.
type span struct {
	start, end int
	own        bool
}

// bytesOf returns the name at s; it must not outlive the pass.
func (st *state) bytesOf(s span) []byte {
	if s.own {
		return st.names[s.start:s.end]
	}
	return st.data[s.start:s.end]
}

// state is one pass over the arguments. It is pooled: the valid path
// allocates nothing for schemas without composite keywords.
type state struct {
	data       []byte
	pos        int
	path       []seg
	violations []Violation
	keys       []span // names of the open objects, for duplicates
	names      []byte // the names spans own
	durations  bool
	escaped    bool // the last string value1 read had escapes
	// arena holds the bytes of the strings a plan decodes, one allocation
	// for all of them (see newString).
	arena []byte
}

var statePool = sync.Pool{New: func() any {
	return &state{path: make([]seg, 0, 16), keys: make([]span, 0, 32)}
}}

func getState(data []byte) *state {
	st := statePool.Get().(*state)
	st.begin(data)
	return st
}

func putState(st *state) {
	st.end()
	statePool.Put(st)
}

// begin readies st for a pass over data.
func (st *state) begin(data []byte) {
	st.data, st.pos = data, 0
	st.path, st.violations, st.keys, st.names = st.path[:0], st.violations[:0], st.keys[:0], st.names[:0]
}

// end drops st's references into the arguments, so that whoever keeps st
// does not keep them, and names the size of huge arguments.
func (st *state) end() {
	st.data, st.durations, st.arena = nil, false, nil
	if cap(st.names) > 64<<10 {
		st.names = nil
	}
}

// unescapeString is newString for the inside of a string with escapes.
func (st *state) unescapeString(s []byte) string {
	if cap(st.arena)-len(st.arena) < len(s) {
		st.arena = make([]byte, 0, len(s)+min(len(st.data)-st.pos, arenaChunk))
	}
	i := len(st.arena)
	st.arena = appendUnescaped(st.arena, s)
	if len(st.arena) == i {
		return ""
	}
	// Rule: unsafe.String over bytes never written again (the arena only grows).
	return unsafe.String(&st.arena[i], len(st.arena)-i)
}

// push appends s to the path.
func (st *state) push(s seg) {
	st.path = append(st.path, s)
}

// arenaChunk bounds the bytes an arena reserves beyond the string it is
// made for: a string the tool keeps keeps its arena alive, so an arena is
// never much larger than the arguments it holds strings of.
const arenaChunk = 4 << 10

// newString returns s as a string. Strings of more than one byte are
// copied into st.arena, which holds every string of the pass in as few
// allocations as possible: the arena is only ever appended to, so the
// bytes under a string handed out never change, and a string kept by the
// tool keeps its chunk alive like any other allocation.
func (st *state) newString(s []byte) string {
	if len(s) <= 1 {
		return string(s) // no allocation
	}
	if cap(st.arena)-len(st.arena) < len(s) {
		// Strings ahead are at most as long as the rest of the text.
		st.arena = make([]byte, 0, len(s)+min(len(st.data)-st.pos, arenaChunk))
	}
	i := len(st.arena)
	st.arena = append(st.arena, s...)
	// Rule: unsafe.String over bytes never written again (the arena only grows).
	return unsafe.String(&st.arena[i], len(s))
}

// errSyntax reports malformed JSON; it carries the message for the model.
type errSyntax struct{ msg string }

func (e *errSyntax) Error() string { return e.msg }

func (st *state) finish(err error) []Violation {
	if err == nil {
		st.ws()
		if st.pos < len(st.data) {
			err = st.syntax("data after the top-level value")
		}
	}
	if err != nil {
		return []Violation{{Path: st.pathString(), Rule: "syntax", Message: err.Error()}}
	}
	if len(st.violations) == 0 {
		return nil
	}
	return slices.Clone(st.violations)
}

func (st *state) syntax(format string, args ...any) error {
	return &errSyntax{"arguments are not valid JSON: " + fmt.Sprintf(format, args...)}
}

func (st *state) pathString() string {
	var b strings.Builder
	for _, s := range st.path {
		if !s.isKey {
			fmt.Fprintf(&b, "[%d]", s.start)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(st.bytesOf(s.name()))
	}
	return b.String()
}

func (st *state) fail(rule, msg string) {
	if len(st.violations) < maxViolations {
		st.violations = append(st.violations, Violation{Path: st.pathString(), Rule: rule, Message: msg})
	}
}

func (st *state) failf(rule, format string, args ...any) {
	if len(st.violations) < maxViolations {
		st.fail(rule, fmt.Sprintf(format, args...))
	}
}

func (st *state) add(v Violation) {
	if len(st.violations) < maxViolations {
		st.violations = append(st.violations, v)
	}
}

func (st *state) addAll(vs []Violation) {
	for _, v := range vs {
		st.add(v)
	}
}
