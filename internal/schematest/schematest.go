// Package schematest holds the Go types whose schemas are pinned by the
// golden files in testdata/schema, shared by the tests of the root package
// and of internal/schema.
package schematest

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/toolcall-go/toolcall/internal/signature"
)

// A Case is one golden file, testdata/schema/<Name>.json: the schema of
// Type, in its strict variant if Strict.
type Case struct {
	Name   string
	Type   reflect.Type
	Strict bool
}

// Cases returns every golden case, one per file. The root package builds
// some of them from a tool rather than from Type: no_params from a method
// without parameters, method_params* from a method with positional
// parameters (Type is the struct made for them) and func_struct_arg* from
// a func of a Booking.
func Cases() []Case {
	plain := func(name string, t reflect.Type) Case { return Case{name, t, false} }
	strict := func(name string, t reflect.Type) Case { return Case{name, t, true} }
	return []Case{
		plain("scalars", reflect.TypeFor[Scalars]()),
		plain("named_types", reflect.TypeFor[NamedTypes]()),
		plain("slices_arrays", reflect.TypeFor[Collections]()),
		plain("maps", reflect.TypeFor[Maps]()),
		strict("maps_strict", reflect.TypeFor[Maps]()),
		plain("pointers", reflect.TypeFor[Pointers]()),
		strict("pointers_strict", reflect.TypeFor[Pointers]()),
		plain("pointer_argument", reflect.TypeFor[*Address]()),
		plain("nested", reflect.TypeFor[Nested]()),
		strict("nested_strict", reflect.TypeFor[Nested]()),
		plain("embedded", reflect.TypeFor[Embedded]()),
		plain("optional", reflect.TypeFor[Optional]()),
		strict("optional_strict", reflect.TypeFor[Optional]()),
		plain("enum", reflect.TypeFor[Enum]()),
		strict("enum_strict", reflect.TypeFor[Enum]()),
		plain("descriptions", reflect.TypeFor[Described]()),
		plain("constraints", reflect.TypeFor[Constraints]()),
		plain("slice_of_structs", reflect.TypeFor[Order]()),
		plain("any", reflect.TypeFor[FreeForm]()),
		strict("any_strict", reflect.TypeFor[FreeForm]()),
		plain("raw_message", reflect.TypeFor[RawMessages]()),
		plain("time", reflect.TypeFor[Times]()),
		plain("duration", reflect.TypeFor[Durations]()),
		plain("custom_schema", reflect.TypeFor[Custom]()),
		plain("unmarshaler", reflect.TypeFor[Unmarshalers]()),
		plain("recursive", reflect.TypeFor[Recursive]()),
		strict("recursive_strict", reflect.TypeFor[Recursive]()),
		plain("recursive_root", reflect.TypeFor[TreeNode]()),
		plain("mutual_recursion", reflect.TypeFor[Mutual]()),
		strict("mutual_recursion_strict", reflect.TypeFor[Mutual]()),
		plain("json_tags", reflect.TypeFor[JSONTags]()),
		plain("keyword_names", reflect.TypeFor[Keywords]()),
		strict("keyword_names_strict", reflect.TypeFor[Keywords]()),
		plain("no_params", reflect.TypeFor[struct{}]()),
		plain("method_params", convertArgs(convertTag)),
		strict("method_params_strict", convertArgs(ConvertParams...)),
		plain("func_struct_arg", reflect.TypeFor[Booking]()),
		strict("func_struct_arg_strict", reflect.TypeFor[Booking]()),
	}
}

// convertTag is the params tag of the root package's Convert method, whose
// schema is method_params.
const convertTag = "value: the quantity to convert; from: unit of value; to: target unit; precision?: decimal places, default 2"

// ConvertParams name Convert's parameters through WithParams for
// method_params_strict.
var ConvertParams = []string{"value: the quantity to convert", "from: unit of value", `to: target unit, e.g. "ft"`, "precision?: decimal places, default 2"}

// convertArgs is the struct the root package makes for Convert's
// positional parameters named by params tag entries.
func convertArgs(entries ...string) reflect.Type {
	var params []signature.Param
	for _, e := range entries {
		ps, err := signature.ParseParams(e)
		if err != nil {
			panic(err)
		}
		params = append(params, ps...)
	}
	ft := reflect.TypeFor[func(value float64, from, to string, precision int)]()
	t, err := signature.PositionalStruct(ft, []int{0, 1, 2, 3}, params)
	if err != nil {
		panic(err)
	}
	return t
}

// Pretty is how a golden file holds a schema: indented by two spaces, keys
// in the order the library emits them, a trailing newline.
func Pretty(raw json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
