package check

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Normalize maps empty, blank and null arguments to {}: models send them
// for tools without parameters.
func Normalize(args []byte) []byte {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return []byte("{}")
	}
	return args
}

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
	return unsafe.String(&st.arena[i], len(s))
}

// errSyntax reports malformed JSON; it carries the message for the model.
type errSyntax struct{ msg string }

func (e *errSyntax) Error() string { return e.msg }

// Validate checks args against the schema and returns the violations,
// nil when there are none, at most 10. Malformed JSON is one violation
// with Rule "syntax". Apply Normalize first where empty arguments mean {}.
func (s *Schema) Validate(args []byte) []Violation {
	st := getState(args)
	defer putState(st)
	err := st.value(s.root, 0)
	return st.finish(err)
}

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

func (st *state) ws() {
	for st.pos < len(st.data) {
		c := st.data[st.pos]
		if c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' { // most often the first test
			return
		}
		st.pos++
	}
}

// value checks the next JSON value against n (nil: anything). It returns
// an error only for malformed JSON; violations are recorded.
func (st *state) value(n *node, depth int) error {
	if depth > MaxDepth {
		return st.syntax("nesting deeper than %d levels", MaxDepth)
	}
	n = resolve(n)
	st.ws()
	if st.pos >= len(st.data) {
		return st.syntax("unexpected end of input")
	}
	if n == nil {
		return st.value1(nil, depth)
	}
	if n.never {
		st.fail("not", "no value is allowed here")
		return st.value1(nil, depth)
	}
	if !n.composite {
		return st.value1(n, depth)
	}
	start := st.pos
	if err := st.value1(n, depth); err != nil {
		return err
	}
	st.composite(n, st.data[start:st.pos], depth)
	return nil
}

// value1 checks the keywords of n that read the value in the pass.
func (st *state) value1(n *node, depth int) error {
	start := st.pos
	switch c := st.data[st.pos]; {
	case c == '{', c == '[':
		tn, bit := n, tObject
		if c == '[' {
			bit = tArray
		}
		if n != nil && !st.typeOK(n, bit, c) {
			tn = nil
		}
		var err error
		if c == '{' {
			err = st.object(tn, depth)
		} else {
			err = st.array(tn, depth)
		}
		if err != nil {
			return err
		}
		if tn != nil && tn.enum != nil {
			st.checkEnum(tn, c, "", decimal{}, st.data[start:st.pos])
		}
	case c == '"':
		escaped, err := st.str()
		if err != nil {
			return err
		}
		st.escaped = escaped
		if n == nil || !st.typeOK(n, tString, c) {
			return nil
		}
		if n.enum == nil && n.pattern == nil && n.minLen < 0 && n.maxLen < 0 && n.format == fmtNone {
			return nil
		}
		st.checkString(n, st.strValue(start, escaped))
	case c == '-' || '0' <= c && c <= '9':
		if err := st.number(); err != nil {
			return err
		}
		if n == nil {
			return nil
		}
		if d, ok := st.numberType(n, st.data[start:st.pos]); ok {
			st.checkNumber(n, d)
		}
	case c == 't' || c == 'f' || c == 'n':
		word := "null"
		bit := tNull
		switch c {
		case 't':
			word, bit = "true", tBoolean
		case 'f':
			word, bit = "false", tBoolean
		}
		if !bytes.HasPrefix(st.data[st.pos:], []byte(word)) {
			return st.syntax("invalid literal at byte %d", st.pos)
		}
		st.pos += len(word)
		if n != nil && st.typeOK(n, bit, c) && n.enum != nil {
			st.checkEnum(n, c, "", decimal{}, nil)
		}
	default:
		return st.syntax("invalid character %q at byte %d", c, st.pos)
	}
	return nil
}

// strValue returns the string read from start. Without escapes it shares
// the arguments' memory: it must not outlive the pass.
func (st *state) strValue(start int, escaped bool) string {
	raw := st.data[start+1 : st.pos-1]
	if escaped {
		return unescape(raw)
	}
	if len(raw) == 0 {
		return ""
	}
	return unsafe.String(&raw[0], len(raw))
}

// str consumes a string and reports whether it had escapes. Invalid
// UTF-8 and unpaired surrogate escapes are refused, as the tool's own
// decoder refuses them.
func (st *state) str() (escaped bool, err error) {
	d := st.data
	i := st.pos + 1 // after the opening quote
	start, ascii := i, true
	for {
		for i < len(d) && !strSpecial[d[i]] {
			i++
		}
		if i >= len(d) {
			st.pos = i
			return false, st.syntax("unexpected end of input")
		}
		switch c := d[i]; {
		case c == '"':
			st.pos = i
			if !ascii && !utf8.Valid(d[start:i]) {
				return false, st.syntax("invalid UTF-8 in string")
			}
			st.pos++
			return escaped, nil
		case c >= 0x80:
			ascii = false
			i++
		case c == '\\':
			escaped = true
			st.pos = i
			if i+1 >= len(d) {
				return false, st.syntax("unexpected end of input")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(d, i+2)
				if !ok {
					return false, st.syntax("invalid escape at byte %d", i)
				}
				at := i
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if r < 0xdc00 && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok = hex4(d, i+2)
					}
					if !ok || utf16.DecodeRune(r, r2) == utf8.RuneError {
						return false, st.syntax("unpaired surrogate escape at byte %d", at)
					}
					i += 6
				}
			default:
				return false, st.syntax("invalid escape at byte %d", i)
			}
		default: // a control character
			st.pos = i
			return false, st.syntax("control character in string at byte %d", i)
		}
	}
}

// strSpecial marks the bytes that end the fast scan of a string: the
// closing quote, an escape, control characters, and non-ASCII bytes, whose
// UTF-8 is checked at the end.
var strSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, h := range d[i : i+4] {
		switch {
		case '0' <= h && h <= '9':
			r = r<<4 | rune(h-'0')
		case 'a' <= h && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case 'A' <= h && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unescape decodes the inside of a string str has accepted.
func unescape(raw []byte) string {
	return string(appendUnescaped(make([]byte, 0, len(raw)), raw))
}

// appendUnescaped appends the inside of a string str has accepted, decoded.
func appendUnescaped(b, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, _ := hex4(raw, i+1)
			i += 4
			if utf16.IsSurrogate(r) {
				r2, _ := hex4(raw, i+3)
				r = utf16.DecodeRune(r, r2)
				i += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, raw[i])
		}
	}
	return b
}

// number consumes a number per the JSON grammar.
func (st *state) number() error {
	d, i := st.data, st.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return st.syntax("invalid number at byte %d", st.pos)
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return st.syntax("invalid number at byte %d", st.pos)
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return st.syntax("invalid number at byte %d", st.pos)
		}
	}
	st.pos = i
	return nil
}

// next consumes ',' (false) or the closing byte (true).
func (st *state) next(closing byte) (bool, error) {
	st.ws()
	if st.pos >= len(st.data) {
		return false, st.syntax("unexpected end of input")
	}
	switch st.data[st.pos] {
	case ',':
		st.pos++
		return false, nil
	case closing:
		st.pos++
		return true, nil
	}
	return false, st.syntax("expected ',' or '%c' at byte %d", closing, st.pos)
}

// sub checks raw, a value already read at the current path, against n in
// a fresh pass. It allocates only to return violations.
func (st *state) sub(n *node, raw []byte, depth int) []Violation {
	s := statePool.Get().(*state)
	s.data, s.pos = raw, 0
	// The path so far, with its names copied: they are not in raw.
	s.path, s.names = s.path[:0], s.names[:0]
	for _, g := range st.path {
		if g.isKey {
			at := span{start: len(s.names), own: true}
			s.names = append(s.names, st.bytesOf(g.name())...)
			at.end = len(s.names)
			g = keySeg(at)
		}
		s.path = append(s.path, g)
	}
	s.violations, s.keys = s.violations[:0], s.keys[:0]
	var out []Violation
	if err := s.value(n, depth); err != nil {
		out = []Violation{{Path: s.pathString(), Rule: "syntax", Message: err.Error()}}
	} else if len(s.violations) > 0 {
		out = slices.Clone(s.violations)
	}
	putState(s)
	return out
}

func (st *state) addAll(vs []Violation) {
	for _, v := range vs {
		st.add(v)
	}
}

// composite checks a value already read against the subschemas that apply
// to it as a whole.
func (st *state) composite(n *node, raw []byte, depth int) {
	for _, a := range n.allOf {
		st.addAll(st.sub(a, raw, depth))
	}
	if len(n.anyOf) > 0 {
		var best []Violation
		ok := false
		for i, a := range n.anyOf {
			vs := st.sub(a, raw, depth)
			if len(vs) == 0 {
				ok = true
				break
			}
			if i == 0 || len(vs) < len(best) {
				best = vs
			}
		}
		if !ok {
			st.addAll(best)
		}
	}
	if len(n.oneOf) > 0 {
		first := -1
		var best []Violation
		for i, a := range n.oneOf {
			vs := st.sub(a, raw, depth)
			if len(vs) > 0 {
				if best == nil || len(vs) < len(best) {
					best = vs
				}
				continue
			}
			if first >= 0 {
				st.failf("oneOf", "must match exactly one schema in oneOf, but matches %d and %d", first, i)
				first = -2
				break
			}
			first = i
		}
		if first == -1 {
			st.addAll(best)
		}
	}
	if n.not != nil && len(st.sub(n.not, raw, depth)) == 0 {
		st.fail("not", "must not match the \"not\" schema")
	}
	if n.ifS != nil && (n.thenS != nil || n.elseS != nil) {
		if len(st.sub(n.ifS, raw, depth)) == 0 {
			if n.thenS != nil {
				st.addAll(st.sub(n.thenS, raw, depth))
			}
		} else if n.elseS != nil {
			st.addAll(st.sub(n.elseS, raw, depth))
		}
	}
}

// typeOK checks the value's JSON type, given by its first byte.
// numberType parses raw, a JSON number, and checks it against n's type,
// recording a violation; it reports whether the number may be checked
// further.
func (st *state) numberType(n *node, raw []byte) (decimal, bool) {
	d := parseDecimal(raw)
	if d.isInt() {
		return d, st.typeOK(n, tInteger, '0')
	}
	if n.types != 0 && n.types&tNumber == 0 {
		if n.types&tInteger != 0 {
			st.failf("type", "expected integer, got %s", raw)
		} else {
			st.typeOK(n, tNumber, '0')
		}
		return d, false
	}
	return d, true
}

func (st *state) typeOK(n *node, bit int, c byte) bool {
	if n.types == 0 || n.types&bit != 0 {
		return true
	}
	st.fail("type", "expected "+typeNames(n.types)+", got "+jsonKind(c))
	return false
}

func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func typeNames(types int) string {
	var names []string
	for _, t := range []struct {
		bit  int
		name string
	}{{tObject, "object"}, {tArray, "array"}, {tString, "string"}, {tNumber, "number"}, {tInteger, "integer"}, {tBoolean, "boolean"}, {tNull, "null"}} {
		if types&t.bit != 0 {
			if t.bit == tInteger && types&tNumber != 0 {
				continue
			}
			names = append(names, t.name)
		}
	}
	return strings.Join(names, " or ")
}

func (st *state) checkString(n *node, s string) {
	if n.enum != nil {
		st.checkEnum(n, '"', s, decimal{}, nil)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			st.failf("minLength", "must be at least %d characters long", n.minLen)
		}
		if n.maxLen >= 0 && l > n.maxLen {
			st.failf("maxLength", "must be at most %d characters long", n.maxLen)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		st.fail("pattern", "must match the pattern "+n.pattern.String())
	}
	if n.format != fmtNone {
		if msg := checkFormat(n.format, s); msg != "" {
			st.fail("format", msg)
		}
	}
}

func (st *state) checkNumber(n *node, d decimal) {
	if n.enum != nil {
		st.checkEnum(n, '0', "", d, nil)
	}
	if n.min != nil && cmpDecimal(d, n.min.d) < 0 {
		st.fail("minimum", "must be >= "+n.min.text)
	}
	if n.max != nil && cmpDecimal(d, n.max.d) > 0 {
		st.fail("maximum", "must be <= "+n.max.text)
	}
	if n.xmin != nil && cmpDecimal(d, n.xmin.d) <= 0 {
		st.fail("exclusiveMinimum", "must be > "+n.xmin.text)
	}
	if n.xmax != nil && cmpDecimal(d, n.xmax.d) >= 0 {
		st.fail("exclusiveMaximum", "must be < "+n.xmax.text)
	}
	if n.multipleOf != nil && !isMultiple(d, n.multipleOf.d) {
		st.fail("multipleOf", "must be a multiple of "+n.multipleOf.text)
	}
}

// isMultiple tries int64 arithmetic before math/big.
func isMultiple(x, m decimal) bool {
	if x.zero() {
		return true
	}
	sx, sm := x.exp-int64(x.n()), m.exp-int64(m.n())
	s := min(sx, sm)
	if x.n()+int(sx-s) <= 18 && m.n()+int(sm-s) <= 18 && sx-s < 19 && sm-s < 19 {
		return scaled(x, sx-s)%scaled(m, sm-s) == 0
	}
	return multipleOf(x, m)
}

func scaled(d decimal, shift int64) int64 {
	var v int64
	for i := 0; i < d.n(); i++ {
		v = v*10 + int64(d.digit(i)-'0')
	}
	for ; shift > 0; shift-- {
		v *= 10
	}
	return v
}

// checkEnum compares the value (kind c; s for strings, d for numbers, raw
// for objects and arrays) with enum or const.
func (st *state) checkEnum(n *node, c byte, s string, d decimal, raw []byte) {
	var canon string
	for i := range n.enum {
		e := &n.enum[i]
		switch {
		case e.kind != c:
		case c == '"':
			if e.str == s {
				return
			}
		case c == '0':
			if cmpDecimal(e.num, d) == 0 {
				return
			}
		case c == '{' || c == '[':
			if canon == "" {
				canon = canonRaw(raw)
			}
			if e.canon == canon {
				return
			}
		default:
			return
		}
	}
	if n.isConst {
		st.fail("const", "must be "+jsonText(n.enumData))
		return
	}
	st.fail("enum", "must be one of "+listText(n.enumData.([]any)))
}
