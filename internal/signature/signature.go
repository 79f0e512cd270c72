// Package signature classifies the Go func and method signatures that can
// become tools.
package signature

import (
	"context"
	"fmt"
	"reflect"
	"time"
)

// Input says how a func receives the model's arguments.
type Input int

const (
	NoInput    Input = iota // no parameters besides contexts
	Struct                  // one struct (or *struct) whose fields are the parameters
	Positional              // several parameters named by the caller
)

// A Shape is a classified signature. Indexes count the func's parameters
// (after the receiver, for method values).
type Shape struct {
	Context     int   // index of the context.Context parameter, or -1
	ToolContext int   // index of the tool-context parameter, or -1
	Params      []int // indexes of the argument parameters, in order
	Input       Input
	Result      bool // returns a value
	Error       bool // returns an error (last)
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// Accepted lists the accepted shapes, for error messages.
const Accepted = "accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)"

// Classify returns the shape of ft, a func type without receiver.
// toolContext is the tool-context type; positional is the number of
// parameter names the caller supplied (0 if none).
func Classify(ft reflect.Type, toolContext reflect.Type, positional int) (Shape, error) {
	s := Shape{Context: -1, ToolContext: -1}
	if ft.Kind() != reflect.Func {
		return s, fmt.Errorf("%s is not a func", ft)
	}
	if ft.IsVariadic() {
		return s, fmt.Errorf("variadic %s; %s", describe(ft), Accepted)
	}
	for i := 0; i < ft.NumIn(); i++ {
		p := ft.In(i)
		switch {
		case p == contextType:
			if i != 0 {
				return s, fmt.Errorf("context.Context is parameter %d of %s, it must come first; %s", i+1, describe(ft), Accepted)
			}
			s.Context = i
		case p == toolContext:
			if s.ToolContext >= 0 {
				return s, fmt.Errorf("two %s parameters in %s", toolContext, describe(ft))
			}
			s.ToolContext = i
		default:
			s.Params = append(s.Params, i)
		}
	}
	switch {
	case positional > 0:
		if positional != len(s.Params) {
			return s, fmt.Errorf("%d parameter names given for the %d parameters of %s", positional, len(s.Params), describe(ft))
		}
		s.Input = Positional
	case len(s.Params) == 0:
		s.Input = NoInput
	case len(s.Params) == 1 && isStruct(ft.In(s.Params[0])):
		s.Input = Struct
	default:
		var structs int
		for _, i := range s.Params {
			if isStruct(ft.In(i)) {
				structs++
			}
		}
		what := fmt.Sprintf("%d parameters without names", len(s.Params))
		if structs > 1 {
			what = fmt.Sprintf("%d struct parameters", structs)
		}
		return s, fmt.Errorf("%s in %s: name them in the tag (params) or use one struct; %s", what, describe(ft), Accepted)
	}
	switch ft.NumOut() {
	case 0:
	case 1:
		if ft.Out(0) == errorType {
			s.Error = true
		} else {
			s.Result = true
		}
	case 2:
		if ft.Out(1) != errorType {
			return s, fmt.Errorf("results of %s: the second result must be error; %s", describe(ft), Accepted)
		}
		if ft.Out(0) == errorType {
			return s, fmt.Errorf("results of %s: two errors; %s", describe(ft), Accepted)
		}
		s.Result, s.Error = true, true
	default:
		return s, fmt.Errorf("%d results in %s; %s", ft.NumOut(), describe(ft), Accepted)
	}
	return s, nil
}

func isStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != reflect.TypeFor[time.Time]()
}

func describe(ft reflect.Type) string { return ft.String() }
