package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/schema"
)

// SchemaFor returns the JSON Schema that tools built from v's type send as
// their input schema. v must be a struct or a pointer to one; its exported
// fields are the parameters, named and made optional by their json tags
// (omitempty or omitzero means optional, everything else is required), and
// described by jsonschema tags in the syntax of github.com/invopop/jsonschema.
//
// The schema inlines nested types and uses $defs/$ref only for recursive
// types. Every object with fixed properties has additionalProperties false.
// Each type is reflected once; later calls return the cached result.
func SchemaFor(v any) (json.RawMessage, error) {
	ts, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), ts.s.Plain...), nil
}

// StrictSchemaFor is like [SchemaFor] but returns the strict variant (see
// [WithStrict]): every property is required, and optional ones also accept
// null.
func StrictSchemaFor(v any) (json.RawMessage, error) {
	ts, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	b, _ := ts.s.Strict()
	return append(json.RawMessage(nil), b...), nil
}

// typeSchema is the cached reflection of one argument type: its schema and
// the checks compiled from it, shared by every tool of the type.
type typeSchema struct {
	typ    reflect.Type // the argument type, possibly a pointer
	s      *schema.Type
	err    error
	plain  *checks
	strict struct {
		once sync.Once
		c    *checks
	}
}

// strictChecks returns the checks of the type's strict variant.
func (ts *typeSchema) strictChecks() *checks {
	ts.strict.once.Do(func() {
		b, tree := ts.s.Strict()
		c, err := newChecks(b, tree, ts.typ, ts.s.HasDuration)
		if err != nil { // the plain schema compiled, and strict only adds null
			panic(fmt.Sprintf("toolcall: strict variant of %s: %v", ts.typ, err))
		}
		ts.strict.c = c
	})
	return ts.strict.c
}

var schemaCache sync.Map // reflect.Type -> *typeSchema

func schemaOf(t reflect.Type) (*typeSchema, error) {
	if t == nil {
		return nil, &DefinitionError{Err: fmt.Errorf("%w: nil type", ErrUnsupportedType)}
	}
	if s, ok := schemaCache.Load(t); ok {
		ts := s.(*typeSchema)
		return ts, ts.err
	}
	ts := buildSchema(t)
	s, _ := schemaCache.LoadOrStore(t, ts)
	ts = s.(*typeSchema)
	return ts, ts.err
}

func buildSchema(t reflect.Type) *typeSchema {
	ts := &typeSchema{typ: t}
	s, err := schema.Build(t)
	if err != nil {
		var se *schema.Error
		if !errors.As(err, &se) {
			ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: %v", ErrUnsupportedType, err)}
			return ts
		}
		sentinel := ErrUnsupportedType
		if se.Tag {
			sentinel = ErrInvalidTool
		}
		ts.err = &DefinitionError{Path: se.Path, Err: fmt.Errorf("%w: %s", sentinel, se.Msg)}
		if se.Path == "" && !se.Tag {
			ts.err.(*DefinitionError).Type = t.String()
		}
		return ts
	}
	ts.s = s
	ts.plain, err = newChecks(s.Plain, s.Tree, t, s.HasDuration)
	if err != nil {
		ts.err = schemaError(err)
		if de, ok := ts.err.(*DefinitionError); ok {
			de.Type = t.String()
		}
	}
	return ts
}

// checks is the compiled form of one input schema, with the variants a
// call may be checked against: the schema itself, its strict variant (when
// a client asks for strict tools), and the lenient one a direct Tool.Call
// uses, which also reads null for an optional parameter as absent, so a
// call that passed the Manager's strict check passes again when a wrapper
// of the tool calls it.
type checks struct {
	schema    json.RawMessage
	tree      *jsonnode.Object
	typ       reflect.Type // the Go type arguments decode into; nil for a tool of raw JSON
	durations bool
	own       checker

	strictOnce  sync.Once
	strictDef   json.RawMessage
	strict      checker
	lenientOnce sync.Once
	lenient     checker
}

// A checker checks a call's arguments against one schema. With a plan it
// also decodes them into the tool's Go type, in the same pass.
type checker struct {
	schema *check.Schema
	plan   *check.Plan
}

// newChecks compiles schema (parsed as tree, which may be nil). typ is the
// type its arguments decode into, nil for raw JSON; it gets a plan only
// when the schema was reflected from it.
func newChecks(raw json.RawMessage, tree *jsonnode.Object, typ reflect.Type, durations bool) (*checks, error) {
	if tree == nil {
		v, err := jsonnode.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: input schema is not JSON: %v", ErrInvalidTool, err)
		}
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return nil, fmt.Errorf("%w: input schema is not a JSON object", ErrInvalidTool)
		}
		tree = o
	}
	c := &checks{schema: raw, tree: tree, typ: typ, durations: durations}
	var err error
	c.own, err = c.compile(tree)
	return c, err
}

func (c *checks) compile(tree *jsonnode.Object) (checker, error) {
	s, err := check.CompileTree(tree)
	if err != nil {
		return checker{}, err
	}
	k := checker{schema: s}
	if c.typ != nil {
		t := c.typ
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		k.plan = s.Plan(t)
	}
	return k, nil
}

// variant returns the checker for a Manager's call (strict: the client asks
// for strict tools) or for a direct Tool.Call (direct). A definition marked
// strict is checked against its schema as it is.
func (c *checks) variant(defStrict, strict, direct bool) *checker {
	switch {
	case defStrict:
		return &c.own
	case direct:
		c.lenientOnce.Do(func() {
			c.lenient = c.mustCompile(schema.LenientOf(c.tree))
		})
		return &c.lenient
	case strict:
		c.strictVariant()
		return &c.strict
	}
	return &c.own
}

// strictVariant returns the strict variant's schema text.
func (c *checks) strictVariant() json.RawMessage {
	c.strictOnce.Do(func() {
		tree := schema.StrictOf(c.tree)
		c.strictDef = jsonnode.Marshal(tree)
		c.strict = c.mustCompile(tree)
	})
	return c.strictDef
}

// mustCompile compiles a variant of a schema that compiled: the variants
// only make properties required or nullable, which cannot break it.
func (c *checks) mustCompile(tree *jsonnode.Object) checker {
	k, err := c.compile(tree)
	if err != nil {
		panic(fmt.Sprintf("toolcall: variant of a compiled schema: %v", err))
	}
	return k
}

// onCheck, when set by a test, sees every check of a call's arguments.
var onCheck func(tool string)

// check checks args (normalised) and, when target is not nil, decodes them
// into it: ptr and target both point to a value of the tool's Go type.
func (k *checker) check(c *checks, tool string, args []byte, ptr unsafe.Pointer, target any) error {
	if onCheck != nil {
		onCheck(tool)
	}
	var vs []check.Violation
	if k.plan != nil && target != nil {
		if c.typ.Kind() == reflect.Pointer {
			elem := reflect.New(c.typ.Elem()).UnsafePointer()
			*(*unsafe.Pointer)(ptr) = elem
			ptr = elem
		}
		vs = k.plan.Decode(args, ptr, c.durations)
	} else {
		vs = k.schema.Validate(args)
		if vs == nil && target != nil {
			vs = check.Decode(args, target, c.durations)
		}
	}
	if vs == nil {
		return nil
	}
	return argumentError(tool, vs)
}

func argumentError(tool string, vs []check.Violation) *ArgumentError {
	e := &ArgumentError{Tool: tool, Violations: make([]Violation, len(vs))}
	for i, v := range vs {
		e.Violations[i] = Violation(v)
	}
	return e
}

// schemaError turns a refused schema into a *DefinitionError naming the
// parameter path and the keyword.
func schemaError(err error) error {
	var se *check.SchemaError
	if errors.As(err, &se) {
		return &DefinitionError{Path: se.Field, Err: fmt.Errorf("%w: schema keyword %q: %s", ErrInvalidTool, se.Keyword, se.Reason)}
	}
	if _, ok := err.(*DefinitionError); ok {
		return err
	}
	return &DefinitionError{Err: err}
}

// rawSchemas caches the checks of schemas of tools this package did not
// build, by schema text. It stops growing at maxRawSchemas so tools made
// per request cannot exhaust memory.
var rawSchemas struct {
	sync.RWMutex
	m map[string]*checks
}

const maxRawSchemas = 4096

// checksOf returns the checks of any tool's definition.
func checksOf(t Tool, def Definition) (*checks, error) {
	if bt, ok := t.(builtTool); ok {
		return bt.checks(), nil
	}
	rawSchemas.RLock()
	c, ok := rawSchemas.m[string(def.InputSchema)]
	rawSchemas.RUnlock()
	if ok {
		return c, nil
	}
	c, err := newChecks(def.InputSchema, nil, nil, false)
	if err != nil {
		err = schemaError(err)
		if de, ok := err.(*DefinitionError); ok {
			de.Method = def.Name
		}
		return nil, err
	}
	rawSchemas.Lock()
	defer rawSchemas.Unlock()
	if rawSchemas.m == nil {
		rawSchemas.m = map[string]*checks{}
	}
	if prev, ok := rawSchemas.m[string(def.InputSchema)]; ok {
		return prev, nil
	}
	if len(rawSchemas.m) < maxRawSchemas {
		rawSchemas.m[string(def.InputSchema)] = c
	}
	return c, nil
}
