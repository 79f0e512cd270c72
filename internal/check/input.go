package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/schema"
)

// An Input is the compiled input schema of one tool, with the variants a
// call may be checked against: the schema itself, its strict variant (when
// a client asks for strict tools), and the lenient one a direct call uses,
// which also reads null for an optional parameter as absent, so that a call
// that passed a strict check passes again when a wrapper of the tool calls
// it.
type Input struct {
	Schema json.RawMessage
	Tree   *jsonnode.Object
	typ    reflect.Type // the Go type arguments decode into; nil for raw JSON
	dur    bool
	own    *Checker

	strictOnce  sync.Once
	strict      *Input
	lenientOnce sync.Once
	lenient     *Checker
}

// A Checker checks a call's arguments against one schema. With a plan it
// also decodes them into the tool's Go type, in the same pass; the plan is
// built on the first call, as most tools defined are never called.
type Checker struct {
	schema   *Schema
	typ      reflect.Type // the struct type a plan decodes into, or nil
	planOnce sync.Once
	plan     *Plan
}

// NewInput compiles raw (parsed as tree, which may be nil). typ is the type
// arguments decode into, nil for raw JSON; it gets a plan, which checks and
// decodes in one pass, only when the schema was reflected from it.
// durations says whether typ holds a time.Duration.
func NewInput(raw json.RawMessage, tree *jsonnode.Object, typ reflect.Type, durations bool) (*Input, error) {
	if tree == nil {
		v, err := jsonnode.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("input schema is not JSON: %v", err)
		}
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return nil, errors.New("input schema is not a JSON object")
		}
		tree = o
	}
	in := &Input{Schema: raw, Tree: tree, typ: typ, dur: durations}
	var err error
	in.own, err = in.compile(tree)
	return in, err
}

func (in *Input) compile(tree *jsonnode.Object) (*Checker, error) {
	s, err := CompileTree(tree)
	if err != nil {
		return nil, err
	}
	k := &Checker{schema: s, typ: in.typ}
	if k.typ != nil && k.typ.Kind() == reflect.Pointer {
		k.typ = k.typ.Elem()
	}
	return k, nil
}

// onePass returns k's plan, building it on first use.
func (k *Checker) onePass() *Plan {
	if k.typ == nil {
		return nil
	}
	k.planOnce.Do(func() { k.plan = k.schema.Plan(k.typ) })
	return k.plan
}

// Variant returns the checker for a call: direct for a call of the tool's
// own Call, strict when the client asks for strict tools. A definition
// marked strict (defStrict) is checked against its schema as it is.
func (in *Input) Variant(defStrict, strict, direct bool) *Checker {
	switch {
	case defStrict:
		return in.own
	case direct:
		in.lenientOnce.Do(func() { in.lenient = in.mustCompile(schema.LenientOf(in.Tree)) })
		return in.lenient
	case strict:
		return in.Strict().own
	}
	return in.own
}

// Strict returns the input of the strict variant: every property
// required, and one that was optional also accepting null.
func (in *Input) Strict() *Input {
	in.strictOnce.Do(func() {
		tree := schema.StrictOf(in.Tree)
		s := &Input{Schema: jsonnode.Marshal(tree), Tree: tree, typ: in.typ, dur: in.dur, own: in.mustCompile(tree)}
		// Every property of the variant is required, so it is its own.
		s.strictOnce.Do(func() { s.strict = s })
		in.strict = s
	})
	return in.strict
}

// mustCompile compiles a variant of a schema that compiled: the variants
// only make properties required or nullable, which cannot break it.
func (in *Input) mustCompile(tree *jsonnode.Object) *Checker {
	k, err := in.compile(tree)
	if err != nil {
		panic(fmt.Sprintf("check: variant of a compiled schema: %v", err))
	}
	return k
}

// Check checks args (normalised) and, when target is not nil, decodes them
// into it, a pointer to a value of the input's Go type. The plan decodes in
// the same pass when reflect says target is what it was built for; any
// other target is checked, then decoded by the codec.
func (k *Checker) Check(in *Input, args []byte, target any) []Violation {
	if target == nil {
		return k.schema.Validate(args)
	}
	if p := k.onePass(); p != nil {
		v := reflect.ValueOf(target)
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			switch t := v.Type().Elem(); {
			case t == p.typ:
				return p.decode(args, v.UnsafePointer(), in.dur)
			case t.Kind() == reflect.Pointer && t.Elem() == p.typ:
				e := reflect.New(p.typ)
				v.Elem().Set(e)
				return p.decode(args, e.UnsafePointer(), in.dur)
			}
		}
	}
	vs := k.schema.Validate(args)
	if vs == nil {
		vs = Decode(args, target, in.dur)
	}
	return vs
}

// OnePass reports whether k checks and decodes in one pass.
func (k *Checker) OnePass() bool { return k.onePass() != nil }

// TwoPass returns k without its plan: the checker, then the codec.
func (k *Checker) TwoPass() *Checker { return &Checker{schema: k.schema} }

// NestingExceeds reports whether arrays and objects in the JSON text data
// nest deeper than limit. Only a limit below MaxDepth needs this pass: the
// checks enforce MaxDepth as they walk.
func NestingExceeds(data []byte, limit int) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// typed holds the input of each Go type ForType was asked for.
var typed sync.Map // reflect.Type -> typedInput

type typedInput struct {
	in  *Input
	err error
}

// ForType returns the input of Go type t: its schema, reflected by the
// schema builder, compiled with a plan that decodes into t. It is built on
// first use and shared after, as reflection is the costly part. The error
// is a *schema.Error when t cannot be arguments, otherwise the checks'
// refusal of its schema.
func ForType(t reflect.Type) (*Input, error) {
	v, ok := typed.Load(t)
	if !ok {
		var ti typedInput
		s, err := schema.Build(t)
		if err != nil {
			ti.err = err
		} else {
			ti.in, ti.err = NewInput(s.Plain, s.Tree, t, s.HasDuration)
		}
		v, _ = typed.LoadOrStore(t, ti)
	}
	ti := v.(typedInput)
	return ti.in, ti.err
}

// Durations reports whether the input's Go type holds a time.Duration,
// which needs its own decoder.
func (in *Input) Durations() bool { return in.dur }

// ForgetTypes empties ForType's cache, for a benchmark of a type's first
// use.
func ForgetTypes() { typed.Clear() }
