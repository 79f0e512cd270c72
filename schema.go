package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/check"
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
	in, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), in.Schema...), nil
}

// StrictSchemaFor is like [SchemaFor] but returns the strict variant (see
// [WithStrict]): every property is required, and optional ones also accept
// null.
func StrictSchemaFor(v any) (json.RawMessage, error) {
	in, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), in.Strict().Schema...), nil
}

// schemaOf returns the compiled input of the argument type t, reflected
// on first use and shared after (check.ForType); why t cannot be a tool's
// arguments is a *DefinitionError.
func schemaOf(t reflect.Type) (*check.Input, error) {
	if t == nil {
		return nil, &DefinitionError{Err: fmt.Errorf("%w: nil type", errUnsupportedType)}
	}
	in, err := check.ForType(t)
	if err == nil {
		return in, nil
	}
	var se *schema.Error
	if !errors.As(err, &se) { // a schema the checks refuse
		err := schemaError(err)
		if de, ok := err.(*DefinitionError); ok {
			de.Type = t.String()
		}
		return nil, err
	}
	sentinel := errUnsupportedType
	if se.Tag {
		sentinel = ErrInvalidTool
	}
	de := &DefinitionError{Path: se.Path, Err: fmt.Errorf("%w: %s", sentinel, se.Msg)}
	if se.Path == "" && !se.Tag {
		de.Type = t.String()
	}
	return nil, de
}

// onCheck, when set by a test, sees every check of a call's arguments.
var onCheck func(tool string)

// checkArgs checks a call's arguments (normalised) with k and, when target
// is not nil, decodes them into it.
func checkArgs(k *check.Checker, in *check.Input, tool string, args []byte, target any) error {
	if onCheck != nil {
		onCheck(tool)
	}
	vs := k.Check(in, args, target)
	if vs == nil {
		return nil
	}
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
