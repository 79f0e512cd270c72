package toolcall_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
)

type noTags struct{ Name string }

func (noTags) Hello() string { return "hi" }

type missingMethod struct {
	_ toolcall.Method `tool:"Absent" description:"x"`
}

type unexportedMethod struct {
	_ toolcall.Method `tool:"hidden" description:"x"`
}

//lint:ignore U1000 the method a tag names but cannot reach
func (unexportedMethod) hidden() string { return "" }

type dupNames struct {
	_ toolcall.Method `tool:"A" name:"same"`
	_ toolcall.Method `tool:"B" name:"same"`
}

func (dupNames) A() string { return "" }
func (dupNames) B() string { return "" }

type badName struct {
	_ toolcall.Method `tool:"A" name:"get weather"`
}

func (badName) A() string { return "" }

type (
	chanArgs    struct{ C chan int }
	funcArgs    struct{ F func() }
	complexArgs struct{ C complex128 }
	pointerArgs struct{ P unsafe.Pointer }
	ifaceArgs   struct {
		R interface{ Read([]byte) (int, error) }
	}
	deepChan      struct{ Options deepOptions }
	deepOptions   struct{ Inner deepInner }
	deepInner     struct{ Callback chan string }
	mapKeyArgs    struct{ M map[float64]string }
	selfList      []selfList
	selfMap       map[string]selfMap
	recursiveList struct{ Expr selfList }
	recursiveMap  struct {
		Env struct{ Vars selfMap }
	}
	uintptrArgs struct{ Addr uintptr }
	dashArgs    struct {
		//lint:ignore SA5008 the tag under test names a field "-"
		Dash int `json:"-,"`
	}
	deepFunc struct {
		Options struct{ Inner struct{ F func() } }
	}
	deepComplex struct {
		Options struct{ Inner struct{ C complex64 } }
	}
	deepPointer struct {
		Options struct{ Inner struct{ P unsafe.Pointer } }
	}
	deepIface struct {
		Options struct {
			Inner struct{ S interface{ String() string } }
		}
	}
	deepMapKey struct {
		Options struct{ Inner struct{ M map[bool]string } }
	}
	unexportedTagged struct {
		City string `json:"city"`
		//lint:ignore U1000 an unexported field with a tag is the error under test
		days int `jsonschema:"minimum=1"`
	}
	//lint:ignore U1000 a struct with only unexported fields is the error under test
	onlyUnexported struct{ city, unit string }
	nestedHidden   struct{ Where onlyUnexported }
	structArgs1    struct{ A string }
	structArgs2    struct{ B string }
	badSignatures  struct {
		_ toolcall.Method `tool:"TwoStructs"`
		_ toolcall.Method `tool:"ErrorFirst"`
		_ toolcall.Method `tool:"ThreeResults"`
		_ toolcall.Method `tool:"Unnamed"`
		_ toolcall.Method `tool:"Chan"`
		_ toolcall.Method `tool:"Deep"`
		_ toolcall.Method `tool:"WrongCount" params:"a,b,c"`
		_ toolcall.Method `tool:"CtxLast"`
		_ toolcall.Method `tool:"Func"`
		_ toolcall.Method `tool:"Complex"`
		_ toolcall.Method `tool:"Pointer"`
		_ toolcall.Method `tool:"Iface"`
		_ toolcall.Method `tool:"MapKey"`
		_ toolcall.Method `tool:"DeepFunc"`
		_ toolcall.Method `tool:"DeepComplex"`
		_ toolcall.Method `tool:"DeepPointer"`
		_ toolcall.Method `tool:"DeepIface"`
		_ toolcall.Method `tool:"DeepMapKey"`
	}
)

func (badSignatures) Func(in funcArgs) error           { return nil }
func (badSignatures) Complex(in complexArgs) error     { return nil }
func (badSignatures) Pointer(in pointerArgs) error     { return nil }
func (badSignatures) Iface(in ifaceArgs) error         { return nil }
func (badSignatures) MapKey(in mapKeyArgs) error       { return nil }
func (badSignatures) DeepFunc(in deepFunc) error       { return nil }
func (badSignatures) DeepComplex(in deepComplex) error { return nil }
func (badSignatures) DeepPointer(in deepPointer) error { return nil }
func (badSignatures) DeepIface(in deepIface) error     { return nil }
func (badSignatures) DeepMapKey(in deepMapKey) error   { return nil }

func (badSignatures) TwoStructs(a structArgs1, b structArgs2) error { return nil }

//lint:ignore ST1008 the signature under test puts the error first
func (badSignatures) ErrorFirst() (error, string)                       { return nil, "" }
func (badSignatures) ThreeResults() (string, string, error)             { return "", "", nil }
func (badSignatures) Unnamed(a, b int) int                              { return a + b }
func (badSignatures) Chan(in chanArgs) error                            { return nil }
func (badSignatures) Deep(in deepChan) error                            { return nil }
func (badSignatures) WrongCount(a, b int) int                           { return a + b }
func (badSignatures) CtxLast(in structArgs1, ctx context.Context) error { return nil }

type wrongCount struct {
	_ toolcall.Method `tool:"WrongCount" params:"a,b,c"`
}

func (wrongCount) WrongCount(a, b int) int { return a + b }

type onlyOne struct {
	_ toolcall.Method `tool:"TwoStructs"`
}

func (onlyOne) TwoStructs(a structArgs1, b structArgs2) error { return nil }

type badReturnDirect struct {
	_ toolcall.Method `tool:"A" returnDirect:"maybe"`
}

func (badReturnDirect) A() string { return "" }

type badTimeout struct {
	_ toolcall.Method `tool:"A" timeout:"soon"`
}

func (badTimeout) A() string { return "" }

type zeroTimeout struct {
	_ toolcall.Method `tool:"A" timeout:"0s"`
}

func (zeroTimeout) A() string { return "" }

type ptrReceiver struct {
	_ toolcall.Method `tool:"A"`
}

func (*ptrReceiver) A() string { return "" }

type badConverter struct {
	_ toolcall.Method `tool:"A" converter:"Missing"`
}

func (badConverter) A() string { return "" }

func methodTool(obj any, method string) func() error {
	return func() error { _, err := toolcall.NewMethod(obj, method); return err }
}

func funcTool[In any]() func() error {
	return func() error {
		_, err := toolcall.NewFunc("f", "d", func(context.Context, In) (string, error) { return "", nil })
		return err
	}
}

func TestRegistrationErrors(t *testing.T) {
	t.Parallel()
	from := func(objs ...any) func() error {
		return func() error { _, err := toolcall.ToolsFrom(objs...); return err }
	}
	for _, tc := range []struct {
		name    string
		define  func() error
		wantErr error
		msg     string // names the type and method (or tool), the parameter path and the rule
		path    string
	}{
		{"no tagged method", from(noTags{}), toolcall.ErrInvalidTool, "toolcall: toolcall_test.noTags: no tools: no field _ toolcall.Method `tool:\"MethodName\" description:\"...\"` opts a method in", ""},
		{"not a struct", from(42), toolcall.ErrInvalidTool, `toolcall: int: no tools: int is not a struct with toolcall.Method fields`, ""},
		{"nil object", from(nil), toolcall.ErrInvalidTool, `toolcall: no tools: nil object`, ""},
		{"tag names a missing method", from(missingMethod{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.missingMethod.Absent: invalid tool: toolcall_test.missingMethod has no method Absent`, ""},
		{"unexported method", from(unexportedMethod{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.unexportedMethod.hidden: invalid tool: method "hidden" is unexported; only exported methods can be tools`, ""},
		{"duplicate tool names in one type", from(dupNames{}), toolcall.ErrInvalidTool, `toolcall: tool "same": duplicate tool name: "same" is declared by toolcall_test.dupNames.A and toolcall_test.dupNames.B`, ""},
		{"duplicate tool names across objects", from(Calculator{}, Calculator{}), toolcall.ErrInvalidTool, `toolcall: tool "Sum": duplicate tool name: "Sum" is declared by toolcall_test.Calculator.Sum and toolcall_test.Calculator.Sum`, ""},
		{"invalid name", from(badName{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badName.A: invalid tool name: "get weather" has ' ' at byte 3; names must match ^[a-zA-Z0-9_-]{1,64}$`, ""},
		{"invalid func name", func() error { _, err := toolcall.NewFunc("", "d", currentWeather); return err }, toolcall.ErrInvalidTool, `toolcall: invalid tool name: tool name is empty`, ""},
		{"name too long", func() error { _, err := toolcall.NewFunc(strings.Repeat("a", 65), "d", currentWeather); return err }, toolcall.ErrInvalidTool, `toolcall: tool "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": invalid tool name: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" is 65 bytes long, the limit is 64`, ""},
		{"chan parameter", methodTool(badSignatures{}, "Chan"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Chan: parameter C: unsupported parameter type: chan int (kind chan has no JSON form)`, "C"},
		{"chan nested two levels", methodTool(badSignatures{}, "Deep"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Deep: parameter Options.Inner.Callback: unsupported parameter type: chan string (kind chan has no JSON form)`, "Options.Inner.Callback"},
		{"func parameter of a method", methodTool(badSignatures{}, "Func"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Func: parameter F: unsupported parameter type: func() (kind func has no JSON form)`, "F"},
		{"complex parameter of a method", methodTool(badSignatures{}, "Complex"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Complex: parameter C: unsupported parameter type: complex128 (kind complex128 has no JSON form)`, "C"},
		{"unsafe.Pointer parameter of a method", methodTool(badSignatures{}, "Pointer"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Pointer: parameter P: unsupported parameter type: unsafe.Pointer (kind unsafe.Pointer has no JSON form)`, "P"},
		{"non-empty interface parameter of a method", methodTool(badSignatures{}, "Iface"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Iface: parameter R: unsupported parameter type: non-empty interface interface { Read([]uint8) (int, error) } (only any is free-form)`, "R"},
		{"map with non-string keys in a method", methodTool(badSignatures{}, "MapKey"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.MapKey: parameter M: unsupported parameter type: map key type float64 (keys must be strings, integers or encoding.TextUnmarshalers)`, "M"},
		{"func nested two levels", methodTool(badSignatures{}, "DeepFunc"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.DeepFunc: parameter Options.Inner.F: unsupported parameter type: func() (kind func has no JSON form)`, "Options.Inner.F"},
		{"complex nested two levels", methodTool(badSignatures{}, "DeepComplex"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.DeepComplex: parameter Options.Inner.C: unsupported parameter type: complex64 (kind complex64 has no JSON form)`, "Options.Inner.C"},
		{"unsafe.Pointer nested two levels", methodTool(badSignatures{}, "DeepPointer"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.DeepPointer: parameter Options.Inner.P: unsupported parameter type: unsafe.Pointer (kind unsafe.Pointer has no JSON form)`, "Options.Inner.P"},
		{"non-empty interface nested two levels", methodTool(badSignatures{}, "DeepIface"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.DeepIface: parameter Options.Inner.S: unsupported parameter type: non-empty interface interface { String() string } (only any is free-form)`, "Options.Inner.S"},
		{"map key nested two levels", methodTool(badSignatures{}, "DeepMapKey"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.DeepMapKey: parameter Options.Inner.M: unsupported parameter type: map key type bool (keys must be strings, integers or encoding.TextUnmarshalers)`, "Options.Inner.M"},
		{"func parameter", funcTool[funcArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter F: unsupported parameter type: func() (kind func has no JSON form)`, "F"},
		{"complex parameter", funcTool[complexArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter C: unsupported parameter type: complex128 (kind complex128 has no JSON form)`, "C"},
		{"unsafe.Pointer parameter", funcTool[pointerArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter P: unsupported parameter type: unsafe.Pointer (kind unsafe.Pointer has no JSON form)`, "P"},
		{"non-empty interface parameter", funcTool[ifaceArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter R: unsupported parameter type: non-empty interface interface { Read([]uint8) (int, error) } (only any is free-form)`, "R"},
		{"map with non-string keys", funcTool[mapKeyArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter M: unsupported parameter type: map key type float64 (keys must be strings, integers or encoding.TextUnmarshalers)`, "M"},
		{"recursive slice type", funcTool[recursiveList](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter Expr[]: unsupported parameter type: recursive type toolcall_test.selfList (a type can contain itself only through a struct)`, "Expr[]"},
		{"recursive map type nested", funcTool[recursiveMap](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter Env.Vars{}: unsupported parameter type: recursive type toolcall_test.selfMap (a type can contain itself only through a struct)`, "Env.Vars{}"},
		{"uintptr parameter", funcTool[uintptrArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter Addr: unsupported parameter type: uintptr (a memory address has no meaning to a model; use uint64)`, "Addr"},
		{"field named - by its json tag", funcTool[dashArgs](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter Dash: unsupported parameter type: JSON name "-" (tag json:"-,") cannot be expressed in the schema; choose another name`, "Dash"},
		{"unexported field with a jsonschema tag", funcTool[unexportedTagged](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter days: unsupported parameter type: unexported field with a jsonschema tag (encoding/json ignores unexported fields; export it)`, "days"},
		{"unexported field with a json tag", func() error {
			// Built at run time: go vet rejects such a field in source.
			t := reflect.StructOf([]reflect.StructField{
				{Name: "City", Type: reflect.TypeFor[string](), Tag: `json:"city"`},
				{Name: "days", PkgPath: "app", Type: reflect.TypeFor[int](), Tag: `json:"days"`},
			})
			_, err := toolcall.SchemaFor(reflect.New(t).Elem().Interface())
			return err
		}, toolcall.ErrInvalidTool, `toolcall: parameter days: unsupported parameter type: unexported field with a json tag (encoding/json ignores unexported fields; export it)`, "days"},
		{"only unexported fields", funcTool[onlyUnexported](), toolcall.ErrInvalidTool, `toolcall: tool "f": unsupported parameter type: toolcall_test.onlyUnexported has only unexported fields, which encoding/json ignores: the model could pass nothing; export them`, ""},
		{"only unexported fields nested", funcTool[nestedHidden](), toolcall.ErrInvalidTool, `toolcall: tool "f": parameter Where: unsupported parameter type: toolcall_test.onlyUnexported has only unexported fields, which encoding/json ignores: the model could pass nothing; export them`, "Where"},
		{"arguments of a type with its own JSON form", funcTool[time.Time](), toolcall.ErrInvalidTool, `toolcall: tool "f": unsupported parameter type: arguments must be a JSON object, and time.Time reads its own JSON form; make it a field of an arguments struct`, ""},
		{"empty parameter name", func() error {
			_, err := toolcall.NewMethod(Calculator{}, "Sum", toolcall.WithParams("", "b"))
			return err
		}, toolcall.ErrInvalidTool, `toolcall: toolcall_test.Calculator.Sum: invalid tool: parameter 1 needs a name without quotes, commas, backslashes or spaces, got ""`, ""},
		{"parameter name with a quote", func() error {
			_, err := toolcall.NewMethod(Calculator{}, "Sum", toolcall.WithParams(`a"`, "b"))
			return err
		}, toolcall.ErrInvalidTool, `toolcall: toolcall_test.Calculator.Sum: invalid tool: parameter 1 needs a name without quotes, commas, backslashes or spaces, got "a\""`, ""},
		{"parameter named -", func() error {
			_, err := toolcall.NewMethod(Calculator{}, "Sum", toolcall.WithParams("-", "b"))
			return err
		}, toolcall.ErrInvalidTool, `toolcall: toolcall_test.Calculator.Sum: invalid tool: parameter 1 needs a name without quotes, commas, backslashes or spaces, got "-"`, ""},
		{"zero timeout", from(zeroTimeout{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.zeroTimeout.A: invalid tool: tag timeout:"0s" is not a positive duration such as "2s"`, ""},
		{"arguments not a struct", funcTool[int](), toolcall.ErrInvalidTool, `toolcall: tool "f": unsupported parameter type: arguments must be a struct, got int`, ""},
		{"two struct parameters", methodTool(badSignatures{}, "TwoStructs"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.TwoStructs: unsupported signature: 2 struct parameters in func(toolcall_test.structArgs1, toolcall_test.structArgs2) error: name them in the tag (params) or use one struct; accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)`, ""},
		{"two struct parameters by tags", from(onlyOne{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.onlyOne.TwoStructs: unsupported signature: 2 struct parameters in func(toolcall_test.structArgs1, toolcall_test.structArgs2) error: name them in the tag (params) or use one struct; accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)`, ""},
		{"error not last", methodTool(badSignatures{}, "ErrorFirst"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.ErrorFirst: unsupported signature: results of func() (error, string): the second result must be error; accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)`, ""},
		{"three results", methodTool(badSignatures{}, "ThreeResults"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.ThreeResults: unsupported signature: 3 results in func() (string, string, error); accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)`, ""},
		{"positional parameters without names", methodTool(badSignatures{}, "Unnamed"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.Unnamed: unsupported signature: 2 parameters without names in func(int, int) int: name them in the tag (params) or use one struct; accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)`, ""},
		{"wrong number of names", from(wrongCount{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.wrongCount.WrongCount: unsupported signature: 3 parameter names given for the 2 parameters of func(int, int) int`, ""},
		{"context not first", methodTool(badSignatures{}, "CtxLast"), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badSignatures.CtxLast: unsupported signature: context.Context is parameter 2 of func(toolcall_test.structArgs1, context.Context) error, it must come first; accepted: func([context.Context,] [Args struct | named params...] [, toolcall.ToolContext]) with results (), (T), (T, error) or (error)`, ""},
		{"returnDirect not a boolean", from(badReturnDirect{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badReturnDirect.A: invalid tool: tag returnDirect:"maybe" is not a boolean`, ""},
		{"timeout not a duration", from(badTimeout{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badTimeout.A: invalid tool: tag timeout:"soon" is not a positive duration such as "2s"`, ""},
		{"pointer receiver on a value", from(ptrReceiver{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.ptrReceiver.A: invalid tool: method A has a pointer receiver; pass a *toolcall_test.ptrReceiver`, ""},
		{"converter missing", from(badConverter{}), toolcall.ErrInvalidTool, `toolcall: toolcall_test.badConverter.A: invalid tool: converter "Missing" must be a method of toolcall_test.badConverter with signature func(any) (string, error)`, ""},
		{"nil func", func() error {
			_, err := toolcall.NewFunc[WeatherRequest, WeatherResponse]("f", "d", nil)
			return err
		}, toolcall.ErrInvalidTool, `toolcall: tool "f": invalid tool: nil func`, ""},
		{"custom schema not an object", func() error {
			_, err := toolcall.NewTool(chat.ToolDefinition{Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`)},
				func(context.Context, json.RawMessage) (string, error) { return "", nil })
			return err
		}, toolcall.ErrInvalidTool, `toolcall: tool "x": invalid tool: input schema must have "type":"object", got string`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var err error
			require.NotPanics(t, func() { err = tc.define() })
			require.Error(t, err)
			require.ErrorIs(t, err, tc.wantErr)
			require.EqualError(t, err, tc.msg)
			var de *toolcall.DefinitionError
			if errors.As(err, &de) {
				assert.Equal(t, tc.path, de.Path)
				// The fields carry what the message names.
				where := fmt.Sprintf("tool %q", de.Method)
				if de.Type != "" {
					where = strings.TrimSuffix(de.Type+"."+de.Method, ".")
				}
				if de.Type != "" || de.Method != "" {
					assert.True(t, strings.HasPrefix(tc.msg, "toolcall: "+where+": "), "message %q does not start with %q", tc.msg, where)
				}
			} else {
				assert.Empty(t, tc.path, "want a *DefinitionError with a path")
			}
		})
	}
}

// callShapes exercises every signature shape through Call.
type callShapes struct {
	_ toolcall.Method `tool:"NoArgs"`
	_ toolcall.Method `tool:"CtxOnly"`
	_ toolcall.Method `tool:"ErrOnly"`
	_ toolcall.Method `tool:"Nothing"`
	_ toolcall.Method `tool:"Struct"`
	_ toolcall.Method `tool:"StructPtr"`
	_ toolcall.Method `tool:"Positional" params:"a,b"`
	_ toolcall.Method `tool:"WithToolContext" params:"n"`
	_ toolcall.Method `tool:"Raw"`
	_ toolcall.Method `tool:"Bytes"`
	_ toolcall.Method `tool:"NilPtr"`
	_ toolcall.Method `tool:"Converted" converter:"Shout"`
	_ toolcall.Method `tool:"Duration"`
	_ toolcall.Method `tool:"Failing"`
	_ toolcall.Method `tool:"Blob"`
}

type blobArgs struct {
	Data []byte `json:"data"`
}

func (callShapes) Blob(in blobArgs) string { return string(in.Data) }

type shapeArgs struct {
	Name    string   `json:"name"`
	Days    int      `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
	Unit    Unit     `json:"unit,omitempty" jsonschema:"enum=C,enum=F"`
	Tags    []string `json:"tags,omitempty"`
	Options struct {
		Days int `json:"days"`
	} `json:"options,omitzero"`
}

func (callShapes) NoArgs() string                                     { return "no args" }
func (callShapes) CtxOnly(ctx context.Context) (string, error)        { return "ctx only", nil }
func (callShapes) ErrOnly() error                                     { return nil }
func (callShapes) Nothing()                                           {}
func (callShapes) Struct(in shapeArgs) shapeArgs                      { return in }
func (callShapes) StructPtr(in *shapeArgs) (*shapeArgs, error)        { return in, nil }
func (callShapes) Positional(a int, b string) string                  { return b + strings.Repeat("!", a) }
func (callShapes) WithToolContext(tc toolcall.ToolContext, n int) int { return n * tc.Len() }
func (callShapes) Raw() json.RawMessage                               { return json.RawMessage(`{"raw": true}`) }
func (callShapes) Bytes() []byte                                      { return []byte("bytes") }
func (callShapes) NilPtr() *shapeArgs                                 { return nil }
func (callShapes) Converted() string                                  { return "quiet" }
func (callShapes) Shout(v any) (string, error)                        { return strings.ToUpper(v.(string)), nil }
func (callShapes) Failing() (string, error)                           { return "", errors.New("backend down") }
func (callShapes) Duration(in struct {
	Wait time.Duration `json:"wait"`
}) string {
	return in.Wait.String()
}

func TestCall(t *testing.T) {
	t.Parallel()
	tools, err := toolcall.ToolsFrom(callShapes{})
	require.NoError(t, err)
	ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(map[string]any{"a": 1, "b": 2}))
	for _, tc := range []struct {
		name, tool, args string
		want             string // result text
		wantErr          string // error text, for the model
	}{
		{name: "no parameters, empty", tool: "NoArgs", args: ``, want: "no args"},
		{name: "no parameters, blank", tool: "NoArgs", args: "  \n", want: "no args"},
		{name: "no parameters, null", tool: "NoArgs", args: `null`, want: "no args"},
		{name: "no parameters, object", tool: "NoArgs", args: `{}`, want: "no args"},
		{name: "no parameters, unknown field", tool: "NoArgs", args: `{"x":1}`, wantErr: `invalid arguments for tool "NoArgs": x: unknown field; remove it`},
		{name: "context only", tool: "CtxOnly", args: `{}`, want: "ctx only"},
		{name: "error only, nil", tool: "ErrOnly", want: "Success"},
		{name: "no results", tool: "Nothing", want: "Success"},
		{name: "struct to compact JSON", tool: "Struct", args: `{ "name" : "x", "days": 3 }`, want: `{"name":"x","days":3}`},
		{name: "int accepts 2.0", tool: "Struct", args: `{"name":"x","days":2.0}`, want: `{"name":"x","days":2}`},
		{name: "int accepts 1e1", tool: "Struct", args: `{"name":"x","days":1e1}`, want: `{"name":"x","days":10}`},
		{name: "int rejects 2.5", tool: "Struct", args: `{"name":"x","days":2.5}`, wantErr: `invalid arguments for tool "Struct": days: expected integer, got 2.5`},
		{name: "nested wrong type names the path", tool: "Struct", args: `{"name":"x","options":{"days":"three"}}`, wantErr: `invalid arguments for tool "Struct": options.days: expected integer, got string`},
		{name: "array element wrong type", tool: "Struct", args: `{"name":"x","tags":["a",2]}`, wantErr: `invalid arguments for tool "Struct": tags[1]: expected string, got number`},
		{name: "unknown nested field", tool: "Struct", args: `{"name":"x","options":{"weeks":1}}`, wantErr: `options.weeks: unknown field; remove it`},
		{name: "malformed JSON", tool: "Struct", args: `{"name":`, wantErr: `arguments are not valid JSON`},
		{name: "duplicate keys", tool: "Struct", args: `{"name":"a","name":"b"}`, wantErr: `name: arguments are not valid JSON: duplicate field "name"`},
		{name: "bytes from base64", tool: "Blob", args: `{"data":"aGVsbG8="}`, want: "hello"},
		{name: "bytes not base64", tool: "Blob", args: `{"data":"hello"}`, wantErr: `invalid arguments for tool "Blob": data: expected base64 (standard alphabet, with padding), got a string that is not`},
		{name: "bytes as an array", tool: "Blob", args: `{"data":[104,105]}`, wantErr: `invalid arguments for tool "Blob": data: expected string, got array`},
		{name: "field names match exactly", tool: "Struct", args: `{"Name":"x"}`, wantErr: `Name: unknown field`},
		{name: "enum violation", tool: "Struct", args: `{"name":"x","unit":"K"}`, wantErr: `invalid arguments for tool "Struct": unit: must be one of "C", "F"`},
		{name: "bounds violation", tool: "Struct", args: `{"name":"x","days":15}`, wantErr: `days: must be <= 14`},
		{name: "enum value decodes", tool: "Struct", args: `{"name":"x","unit":"F"}`, want: `{"name":"x","unit":"F"}`},
		{name: "pointer struct", tool: "StructPtr", args: `{"name":"p"}`, want: `{"name":"p"}`},
		{name: "pointer struct, no arguments", tool: "StructPtr", args: ``, wantErr: `name: required field is missing`},
		{name: "positional", tool: "Positional", args: `{"a":2,"b":"hey"}`, want: "hey!!"},
		{name: "positional wrong type", tool: "Positional", args: `{"a":"2","b":"hey"}`, wantErr: `a: expected integer, got string`},
		{name: "tool context parameter", tool: "WithToolContext", args: `{"n":21}`, want: "42"},
		{name: "raw JSON result as is", tool: "Raw", want: `{"raw": true}`},
		{name: "bytes result as text", tool: "Bytes", want: "bytes"},
		{name: "nil pointer result is null", tool: "NilPtr", want: "null"},
		{name: "custom converter", tool: "Converted", want: "QUIET"},
		{name: "duration from string", tool: "Duration", args: `{"wait":"1h30m"}`, want: "1h30m0s"},
		{name: "duration from number is an error", tool: "Duration", args: `{"wait":5}`, wantErr: `wait: expected string, got number`},
		{name: "tool error passes through", tool: "Failing", wantErr: "backend down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolByName(t, tools, tc.tool).Call(ctx, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestCallArgumentErrorIsTyped(t *testing.T) {
	t.Parallel()
	tools, err := toolcall.ToolsFrom(callShapes{})
	require.NoError(t, err)
	_, err = toolByName(t, tools, "Struct").Call(context.Background(), json.RawMessage(`{"name":"x","options":{"days":true}}`))
	var ae *toolcall.ArgumentError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "Struct", ae.Tool)
	assert.Equal(t, []toolcall.Violation{{Path: "options.days", Rule: "type", Message: "expected integer, got boolean"}}, ae.Violations)
}

func TestFuncToolShapes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	supplier, err := toolcall.NewFunc("now", "Current time", func(context.Context, struct{}) (string, error) { return "noon", nil })
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{},"required":[],"additionalProperties":false}`, string(supplier.Definition().InputSchema))
	got, err := supplier.Call(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, "noon", got)

	var seen string
	consumer, err := toolcall.NewFunc("log", "Log a line", func(_ context.Context, in struct {
		Line string `json:"line"`
	}) (struct{}, error) {
		seen = in.Line
		return struct{}{}, nil
	})
	require.NoError(t, err)
	got, err = consumer.Call(ctx, json.RawMessage(`{"line":"hello"}`))
	require.NoError(t, err)
	assert.Equal(t, "Success", got)
	assert.Equal(t, "hello", seen)

	withTC, err := toolcall.NewFunc("tenant", "Tenant", func(ctx context.Context, _ struct{}) (any, error) {
		return toolcall.ToolContextFrom(ctx).Value("tenantId"), nil
	})
	require.NoError(t, err)
	got, err = withTC.Call(toolcall.ContextWithToolContext(ctx, toolcall.NewToolContext(map[string]any{"tenantId": "acme"})), nil)
	require.NoError(t, err)
	assert.Equal(t, "acme", got)
}

func TestToolOptionsOverride(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)
	tool, err := toolcall.NewFunc("currentWeather", "Get the weather", currentWeather,
		toolcall.WithName("weather"), toolcall.WithDescription("Weather now"),
		toolcall.WithInputSchema(schema), toolcall.WithReturnDirect(true),
		toolcall.WithConverter(func(v any) (string, error) { return "converted", nil }))
	require.NoError(t, err)
	assert.Equal(t, chat.ToolDefinition{Name: "weather", Description: "Weather now", InputSchema: schema}, tool.Definition())
	assert.True(t, tool.Metadata().ReturnDirect)
	got, err := tool.Call(context.Background(), json.RawMessage(`{"location":"Oslo","unit":"C"}`))
	require.NoError(t, err)
	assert.Equal(t, "converted", got)

	m, err := toolcall.NewMethod(Calculator{}, "Sum", toolcall.WithName("add"), toolcall.WithParams("x", "y: second"))
	require.NoError(t, err)
	assert.Equal(t, "add", m.Definition().Name)
	assert.JSONEq(t, `{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number","description":"second"}},"required":["x","y"],"additionalProperties":false}`,
		string(m.Definition().InputSchema))
	got, err = m.Call(context.Background(), json.RawMessage(`{"x":1,"y":2}`))
	require.NoError(t, err)
	assert.Equal(t, "3", got)
}

func TestCustomTool(t *testing.T) {
	t.Parallel()
	tool, err := toolcall.NewTool(chat.ToolDefinition{
		Name:        "echo",
		Description: "Echo the text",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(_ context.Context, args json.RawMessage) (string, error) { return string(args), nil })
	require.NoError(t, err)
	got, err := tool.Call(context.Background(), json.RawMessage(`{"text":"hi"}`))
	require.NoError(t, err)
	assert.Equal(t, `{"text":"hi"}`, got)

	none, err := toolcall.NewTool(chat.ToolDefinition{Name: "ping"}, func(context.Context, json.RawMessage) (string, error) { return "pong", nil })
	require.NoError(t, err)
	assert.Equal(t, "ping", none.Definition().Description)
	assert.JSONEq(t, `{"type":"object","properties":{},"required":[],"additionalProperties":false}`, string(none.Definition().InputSchema))
}

func TestToolNames(t *testing.T) {
	t.Parallel()
	define := func(name string) error {
		_, err := toolcall.NewTool(chat.ToolDefinition{Name: name}, func(context.Context, json.RawMessage) (string, error) { return "", nil })
		return err
	}
	assert.NoError(t, define("get_weather-2"))
	assert.NoError(t, define(strings.Repeat("a", 64)))
	for _, bad := range []string{"", "get weather", "a.b", "é", strings.Repeat("a", 65), "tool\x00"} {
		assert.ErrorIs(t, define(bad), toolcall.ErrInvalidTool, bad)
	}
}

//lint:ignore U1000 an embedded struct with only unexported fields is under test
type embeddedBase struct{ id int }

type withEmbedded struct {
	sync.Mutex
	//lint:ignore U1000 under test: embedded, never a parameter
	embeddedBase
	Name   string `json:"name"`
	secret string `jsonschema:"-"`
}

type hexBytes []byte

func (h *hexBytes) UnmarshalText(text []byte) error {
	b, err := hex.DecodeString(string(text))
	if err != nil {
		return errors.New("not hex")
	}
	*h = b
	return nil
}

func TestUnexportedPartsThatAreFine(t *testing.T) {
	t.Parallel()
	// Embedded structs with only unexported fields (a mutex, a base) add
	// nothing to the schema and are not errors; nor is a jsonschema:"-"
	// tag on an unexported field.
	tool, err := toolcall.NewFunc("who", "who", func(_ context.Context, in *withEmbedded) (string, error) {
		in.Lock()
		defer in.Unlock()
		return in.Name + in.secret, nil
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`, string(tool.Definition().InputSchema))
	out, err := tool.Call(context.Background(), json.RawMessage(`{"name":"bob"}`))
	require.NoError(t, err)
	assert.Equal(t, "bob", out)

	// A named []byte that reads itself is not base64: its own error shows.
	hexTool := toolcall.MustFunc("hex", "hex", func(_ context.Context, in struct {
		H hexBytes `json:"h"`
	}) (int, error) {
		return len(in.H), nil
	})
	out, err = hexTool.Call(context.Background(), json.RawMessage(`{"h":"0a0b"}`))
	require.NoError(t, err)
	assert.Equal(t, "2", out)
	_, err = hexTool.Call(context.Background(), json.RawMessage(`{"h":"zz"}`))
	require.EqualError(t, err, `invalid arguments for tool "hex": h: not hex`)
}
