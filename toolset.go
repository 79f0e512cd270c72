package toolcall

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/tooldefs"
)

// Definitions returns the definitions of tools, for a [chat.Request]. The same
// tool given twice (say, directly and by name) is defined once; two
// different tools with one name are an error naming both, with
// [ErrInvalidTool]. A tool whose input schema the checks refuse is a
// [*DefinitionError] naming the tool, the parameter path and the keyword.
// With [WithStrictTools] each tool not already strict is given in its strict
// variant, whatever its schema's origin.
func (m *Manager) Definitions(tools []Tool) ([]chat.ToolDefinition, error) {
	set := newToolSet(m.cfg.strict, tools)
	if set.err != nil {
		return nil, set.err
	}
	return set.defs.Defs, nil
}

// A toolSet is the tools offered in a request, prepared once for every
// request and call that offers them: their definitions, built and checked,
// and an index by name for the calls. A set is not modified once built, so
// requests and calls share it, also concurrently.
type toolSet struct {
	tools []Tool // as offered, the same tool perhaps more than once
	// prepared reports that the set was made by newToolSet, which builds
	// defs and first; Execute's sets have only tools.
	prepared bool
	defs     tooldefs.Index // one per name, in order, for the request
	first    []Tool         // first[i] is the tool defs.Defs[i] defines
	// ins[i] is first[i]'s compiled input schema, for a tool of a
	// program's own type: checked when the set is built, then kept from
	// the tool's first call on. Most tools offered are never called, and
	// a compiled schema is many times its text: a set of thousands of
	// tools kept compiled would be live heap for every garbage collection
	// to scan (Tools/custom/n=5000 ran at 2.0x n=1 so, 1.1x now).
	ins []atomic.Pointer[check.Input]
	err error // what Definitions reports: the request fails
	// withAnswer holds this set with each answer tool added (see
	// answerSpec.withAnswerTool), prepared once like the set itself.
	withAnswer *sync.Map // Tool -> *toolSet
}

// newToolSet prepares tools for requests: the definitions as
// [Manager.Definitions] documents them (the same tool given twice is
// defined once, two tools with one name are an error naming both, a schema
// the checks refuse is an error), with the strict variants when strict.
func newToolSet(strict bool, tools []Tool) *toolSet {
	s := &toolSet{tools: tools, prepared: true, withAnswer: new(sync.Map)}
	defs := tooldefs.NewIndex(len(tools))
	first := make([]Tool, 0, len(tools))
	s.ins = make([]atomic.Pointer[check.Input], len(tools))
	for i, t := range tools {
		if t == nil {
			s.err = fmt.Errorf("%w: tool %d is nil", ErrInvalidTool, i)
			return s
		}
		d := t.Definition()
		if j := defs.Find(d.Name); j >= 0 {
			if tooldefs.Same(first[j], t) {
				continue
			}
			s.err = &DefinitionError{Method: d.Name,
				Err: fmt.Errorf("%w: %q is given by %s and %s", errDuplicateTool, d.Name, toolSource(first[j]), toolSource(t))}
			return s
		}
		in, err := inputOf(t, d)
		if err != nil {
			s.err = err
			return s
		}
		if strict && !d.Strict {
			d.InputSchema, d.Strict = in.Strict().Schema, true
			s.ins[len(first)].Store(in) // kept: its strict variant is what was sent
		}
		defs.Add(d)
		first = append(first, t)
	}
	s.defs, s.first = defs, first
	return s
}

// input returns the compiled input schema of the set's i-th tool: nil for
// a tool this package built, which holds its own. A tool of a program's
// own type is compiled at its first call from the definition the set
// checked and sent, and the first compilation is kept.
func (s *toolSet) input(i int) *check.Input {
	if in := s.ins[i].Load(); in != nil {
		return in
	}
	if _, ok := s.first[i].(builtTool); ok {
		return nil
	}
	in, err := inputOf(s.first[i], s.defs.Defs[i])
	if err != nil { // not so when the set was built; the caller compiles and reports it
		return nil
	}
	s.ins[i].CompareAndSwap(nil, in)
	return s.ins[i].Load()
}

// toolSource names where a tool comes from, for error messages: the type
// and method of a method tool (e.g. "*shop.Tools.Lookup"), "func tool" and
// the func's type for a [NewFunc] tool, "NewTool" for a [NewTool] tool, and
// the dynamic type of any other [Tool].
func toolSource(t Tool) string {
	switch t := t.(type) {
	case *reflectTool:
		return t.source
	case interface{ funcType() reflect.Type }:
		return fmt.Sprintf("func tool (%s)", t.funcType())
	case *rawTool:
		return "NewTool"
	}
	return fmt.Sprintf("%T", t)
}
