// Package signature classifies the Go func and method signatures that can
// become tools, and reads the toolcall.Method fields and tags that name
// the methods of a type that do.
package signature

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/toolcall-go/toolcall/internal/tagcheck"
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

// A Param is one named parameter of a func with several.
type Param struct {
	Name, Description string
	Optional          bool
}

// ParseParams reads a params tag: entries "name", "name: description",
// "name?" or "name?: description", separated by ";" (or "," when no entry
// has a description).
func ParseParams(s string) ([]Param, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	sep := ";"
	if !strings.ContainsAny(s, ";:") {
		sep = ","
	}
	var out []Param
	for _, entry := range strings.Split(s, sep) {
		name, desc, _ := strings.Cut(entry, ":")
		p := Param{Name: strings.TrimSpace(name), Description: strings.TrimSpace(desc)}
		if n, ok := strings.CutSuffix(p.Name, "?"); ok {
			p.Name, p.Optional = n, true
		}
		if p.Name == "" {
			return nil, fmt.Errorf("params %q has an empty name", s)
		}
		out = append(out, p)
	}
	return out, nil
}

// Entries reads the entries of toolcall.WithParams, one parameter each,
// in the syntax of a params tag entry (a ";" in one is read as ","). An
// entry that names no parameter gives an unnamed one, which
// [PositionalStruct] refuses.
func Entries(entries []string) []Param {
	params := make([]Param, len(entries))
	for i, e := range entries {
		if ps, _ := ParseParams(strings.ReplaceAll(e, ";", ",")); len(ps) > 0 {
			params[i] = ps[0]
		}
	}
	return params
}

// PositionalStruct makes a struct type whose fields are the parameters of
// ft at idx, named by params, so positional arguments decode and describe
// like a struct.
func PositionalStruct(ft reflect.Type, idx []int, params []Param) (reflect.Type, error) {
	fields := make([]reflect.StructField, len(idx))
	seen := map[string]bool{}
	for i, pi := range idx {
		p := params[i]
		if p.Name == "" || p.Name == "-" || strings.ContainsAny(p.Name, "\"\\,` \t\r\n") {
			return nil, fmt.Errorf("parameter %d needs a name without quotes, commas, backslashes or spaces, got %q", i+1, p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("parameter name %q given twice", p.Name)
		}
		seen[p.Name] = true
		tag := `json:"` + p.Name
		if p.Optional {
			tag += ",omitempty"
		}
		tag += `"`
		if p.Description != "" {
			// jsonschema_description is taken whole: no comma escaping.
			tag += ` jsonschema_description:` + strconv.Quote(p.Description)
		}
		fields[i] = reflect.StructField{Name: "P" + strconv.Itoa(i), Type: ft.In(pi), Tag: reflect.StructTag(tag)}
	}
	return reflect.StructOf(fields), nil
}

// A MethodTag is what the tag of a toolcall.Method field says.
type MethodTag struct {
	Method, Name, Description, Params, Converter string
	// Hints are the names the hints key lists, as written.
	Hints                          []string
	ReturnDirect, Strict, Approval bool
	Timeout                        time.Duration
}

// methodTagKeys are the keys a toolcall.Method field's tag may have.
var methodTagKeys = []string{"tool", "name", "description", "returnDirect", "strict", "approval", "timeout", "converter", "params", "hints"}

// ReadMethodTag reads the tag of a toolcall.Method field. An unknown key
// (a misspelling would otherwise drop a setting) and a malformed value are
// errors.
func ReadMethodTag(tag reflect.StructTag) (MethodTag, error) {
	if err := tagcheck.Keys(tag, methodTagKeys); err != nil {
		return MethodTag{}, err
	}
	m := MethodTag{
		Method:      tag.Get("tool"),
		Name:        tag.Get("name"),
		Description: tag.Get("description"),
		Params:      tag.Get("params"),
		Converter:   tag.Get("converter"),
	}
	var err error
	for _, b := range []struct {
		key string
		dst *bool
	}{{"returnDirect", &m.ReturnDirect}, {"strict", &m.Strict}, {"approval", &m.Approval}} {
		if s, ok := tag.Lookup(b.key); ok {
			if *b.dst, err = strconv.ParseBool(s); err != nil {
				return m, fmt.Errorf("tag %s:%q is not a boolean", b.key, s)
			}
		}
	}
	if s, ok := tag.Lookup("hints"); ok {
		for h := range strings.SplitSeq(s, ",") {
			m.Hints = append(m.Hints, strings.TrimSpace(h))
		}
	}
	if s, ok := tag.Lookup("timeout"); ok {
		if m.Timeout, err = time.ParseDuration(s); err != nil || m.Timeout <= 0 {
			return m, fmt.Errorf("tag timeout:%q is not a positive duration such as \"2s\"", s)
		}
	}
	return m, nil
}

// Call calls fn, of this shape, with the context, the tool context and the
// arguments (a struct, or a struct of the positional parameters), and
// returns its result, whether it has one, and its error.
func (s Shape) Call(fn, ctx, toolCtx, args reflect.Value) (result any, ok bool, err error) {
	in := make([]reflect.Value, fn.Type().NumIn())
	if s.Context >= 0 {
		in[s.Context] = ctx
	}
	if s.ToolContext >= 0 {
		in[s.ToolContext] = toolCtx
	}
	switch s.Input {
	case Struct:
		in[s.Params[0]] = args
	case Positional:
		for i, pi := range s.Params {
			in[pi] = args.Field(i)
		}
	}
	out := fn.Call(in)
	if s.Error {
		if err, _ := out[len(out)-1].Interface().(error); err != nil {
			return nil, false, err
		}
	}
	if !s.Result {
		return nil, false, nil
	}
	return out[0].Interface(), true, nil
}
