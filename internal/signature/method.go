package signature

import (
	"errors"
	"fmt"
	"reflect"
)

// Method returns obj's method called name, or an error saying why it
// cannot be a tool: it is unexported, obj has no such method, or the
// method has a pointer receiver and obj is not a pointer.
func Method(obj reflect.Value, name string) (reflect.Value, error) {
	typeName := obj.Type().String()
	if !isExported(name) {
		return reflect.Value{}, fmt.Errorf("method %q is unexported; only exported methods can be tools", name)
	}
	m := obj.MethodByName(name)
	if !m.IsValid() {
		if obj.Kind() != reflect.Pointer {
			if _, ok := reflect.PointerTo(obj.Type()).MethodByName(name); ok {
				return m, fmt.Errorf("method %s has a pointer receiver; pass a *%s", name, typeName)
			}
		}
		return m, fmt.Errorf("%s has no method %s", typeName, name)
	}
	return m, nil
}

func isExported(name string) bool { return name != "" && 'A' <= name[0] && name[0] <= 'Z' }

// Converter returns obj's method called name as a result converter, or an
// error when it has no such method with signature func(any) (string, error).
func Converter(obj reflect.Value, name string) (func(any) (string, error), error) {
	var conv func(any) (string, error)
	if cm := obj.MethodByName(name); cm.IsValid() {
		conv, _ = cm.Interface().(func(any) (string, error))
	}
	if conv == nil {
		return nil, fmt.Errorf("converter %q must be a method of %s with signature func(any) (string, error)", name, obj.Type())
	}
	return conv, nil
}

// ArgType returns the type a call's arguments decode into for a func of
// type ft and shape s: its struct parameter, a struct of its positional
// parameters named by params (see [PositionalStruct]), or struct{} when it
// takes none.
func ArgType(ft reflect.Type, s Shape, params []Param) (reflect.Type, error) {
	switch s.Input {
	case Struct:
		return ft.In(s.Params[0]), nil
	case Positional:
		return PositionalStruct(ft, s.Params, params)
	}
	return reflect.TypeFor[struct{}](), nil
}

// A TagError says why a type's toolcall.Method fields give no tools.
type TagError struct {
	// Method is the method the tag names, or the field when it names
	// none; empty when NoTools.
	Method string
	// NoTools: the type is not a struct, or has no toolcall.Method field.
	NoTools bool
	Err     error
}

// Error says why, without the type or method.
func (e *TagError) Error() string { return e.Err.Error() }

// Tags reads the tags of the fields of type marker (toolcall.Method) of
// the struct t, or t points to, in field order. A type that declares no
// tool and a tag that names no method or breaks the tag rules are a
// *TagError.
func Tags(t, marker reflect.Type) ([]MethodTag, *TagError) {
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		return nil, &TagError{NoTools: true, Err: fmt.Errorf("%s is not a struct with toolcall.Method fields", t)}
	}
	var tags []MethodTag
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if f.Type != marker {
			continue
		}
		m, err := ReadMethodTag(f.Tag)
		if err != nil {
			return nil, &TagError{Method: f.Tag.Get("tool"), Err: err}
		}
		if m.Method == "" {
			return nil, &TagError{Method: f.Name, Err: errors.New(`toolcall.Method field without a tool:"MethodName" tag`)}
		}
		tags = append(tags, m)
	}
	if len(tags) == 0 {
		return nil, &TagError{NoTools: true, Err: errors.New("no field _ toolcall.Method `tool:\"MethodName\" description:\"...\"` opts a method in")}
	}
	return tags, nil
}

// An Unsupported error is a signature no tool may have.
type Unsupported struct{ Err error }

// Error says what is wrong with the signature.
func (e *Unsupported) Error() string { return e.Err.Error() }

// Args reads a func type ft for a tool: how to call it and the type its
// arguments decode into. params name its positional parameters; without
// them, the entries of tagParams (a params tag) do. A signature no tool
// may have is an *Unsupported error.
func Args(ft, toolContext reflect.Type, tagParams string, params []Param) (Shape, reflect.Type, error) {
	if len(params) == 0 {
		var err error
		if params, err = ParseParams(tagParams); err != nil {
			return Shape{}, nil, err
		}
	}
	shape, err := Classify(ft, toolContext, len(params))
	if err != nil {
		return shape, nil, &Unsupported{err}
	}
	argType, err := ArgType(ft, shape, params)
	return shape, argType, err
}
