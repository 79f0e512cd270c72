package signature

import (
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
