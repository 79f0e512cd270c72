// Package argtype reflects a Go type of tool arguments: its JSON Schema,
// from internal/schema, and the checks compiled from it, from
// internal/check.
package argtype

import (
	"reflect"

	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/schema"
)

// A Type is the reflection of one argument type.
type Type struct {
	Input     *check.Input // the compiled schema; nil when Err is set
	Durations bool         // the type holds a time.Duration
	// Err is why the type cannot be a tool's arguments: a *schema.Error,
	// or the refusal of check.NewInput.
	Err error
}

// Build reflects t. The caller caches the result: every tool of the type
// shares it.
func Build(t reflect.Type) *Type {
	s, err := schema.Build(t)
	if err != nil {
		return &Type{Err: err}
	}
	ty := &Type{Durations: s.HasDuration}
	if in, err := check.NewInput(s.Plain, s.Tree, t, s.HasDuration); err != nil {
		ty.Err = err
	} else {
		ty.Input = in
	}
	return ty
}
