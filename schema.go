package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/toolcall-go/toolcall/chat"

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
	return append(json.RawMessage(nil), ts.plain.Schema...), nil
}

// StrictSchemaFor is like [SchemaFor] but returns the strict variant (see
// [WithStrict]): every property is required, and optional ones also accept
// null.
func StrictSchemaFor(v any) (json.RawMessage, error) {
	ts, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), ts.plain.Strict().Schema...), nil
}

// typeSchema is the cached reflection of one argument type: its schema and
// the checks compiled from it, shared by every tool of the type.
type typeSchema struct {
	plain     *check.Input
	durations bool // the type holds a time.Duration
	err       error
}

var schemaCache sync.Map // reflect.Type -> *typeSchema

func schemaOf(t reflect.Type) (*typeSchema, error) {
	if t == nil {
		return nil, &DefinitionError{Err: fmt.Errorf("%w: nil type", errUnsupportedType)}
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
	ts := &typeSchema{}
	s, err := schema.Build(t)
	if err != nil {
		var se *schema.Error
		if !errors.As(err, &se) {
			ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: %v", errUnsupportedType, err)}
			return ts
		}
		sentinel := errUnsupportedType
		if se.Tag {
			sentinel = ErrInvalidTool
		}
		ts.err = &DefinitionError{Path: se.Path, Err: fmt.Errorf("%w: %s", sentinel, se.Msg)}
		if se.Path == "" && !se.Tag {
			ts.err.(*DefinitionError).Type = t.String()
		}
		return ts
	}
	ts.durations = s.HasDuration
	ts.plain, err = newInput(s.Plain, s.Tree, t, s.HasDuration)
	if err != nil {
		ts.err = schemaError(err)
		if de, ok := ts.err.(*DefinitionError); ok {
			de.Type = t.String()
		}
	}
	return ts
}

// onCheck, when set by a test, sees every check of a call's arguments.
var onCheck func(tool string)

// checkArgs checks a call's arguments (normalised) with k and, when target
// is not nil, decodes them into it.
func checkArgs(k *check.Checker, in *check.Input, tool string, args []byte, target any) error {
	if onCheck != nil {
		onCheck(tool)
	}
	if vs := k.Check(in, args, target); vs != nil {
		return argumentError(tool, vs)
	}
	return nil
}

// newInput compiles a tool's input schema; a refusal is a *DefinitionError.
func newInput(raw json.RawMessage, tree *jsonnode.Object, typ reflect.Type, durations bool) (*check.Input, error) {
	in, err := check.NewInput(raw, tree, typ, durations)
	if err != nil {
		return nil, schemaError(err)
	}
	return in, nil
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
	return &DefinitionError{Err: fmt.Errorf("%w: %v", ErrInvalidTool, err)}
}

// inputOf returns the compiled input schema of any tool.
func inputOf(t Tool, def chat.ToolDefinition) (*check.Input, error) {
	if bt, ok := t.(builtTool); ok {
		return bt.core().in, nil
	}
	in, err := check.NewInput(def.InputSchema, nil, nil, false)
	if err != nil {
		err = schemaError(err)
		err.(*DefinitionError).Method = def.Name
		return nil, err
	}
	return in, nil
}
