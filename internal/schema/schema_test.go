package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/schematest"
)

// goldenDir holds the root package's golden schemas, which this package
// must produce byte for byte.
const goldenDir = "../../testdata/schema"

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range schematest.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			ts, err := Build(tc.Type)
			if err != nil {
				t.Fatal(err)
			}
			raw, tree := ts.Plain, ts.Tree
			if tc.Strict {
				tree = StrictOf(ts.Tree)
				raw = jsonnode.Marshal(tree)
			}
			want, err := os.ReadFile(filepath.Join(goldenDir, tc.Name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := schematest.Pretty(raw)
			if err != nil {
				t.Fatalf("schema is not valid JSON: %v\n%s", err, raw)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("differs from %s\ngot:\n%s\nwant:\n%s", tc.Name, got, want)
			}
			// The tree is what the bytes parse to, and writes them back.
			if got := jsonnode.Marshal(tree); !bytes.Equal(got, raw) {
				t.Errorf("jsonnode.Marshal(tree) = %s\nwant %s", got, raw)
			}
			parsed, err := jsonnode.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(parsed, any(tree)) {
				t.Errorf("the tree differs from the parsed bytes")
			}
		})
	}
}

// Types beyond the golden ones, for what invopop does less often.
type (
	extraArgs struct {
		X int      `json:"x" jsonschema_extras:"a=1,b=true,minimum=5,c=x,c=y"`
		Y string   `json:"y,omitempty" jsonschema:"oneof_type=string;integer"`
		Z *int     `json:"z" jsonschema:"nullable"`
		H string   `json:"h" jsonschema:"description=<b>&amp; \"q\" é\u2028,title=t\\,x"`
		E []string `json:"e,omitempty" jsonschema:"enum=a,enum=b,default=c"`
		F []bool   `json:"f,omitempty" jsonschema:"uniqueItems=true"`
	}
	ownSchema     struct{ A int }
	extendedEmpty struct{ A int }
	kindArgs      struct {
		IP    net.IP                 `json:"ip"`
		ByInt map[int]string         `json:"by_int,omitempty"`
		ByU   map[uint8]ownSchema    `json:"by_u,omitempty"`
		Quad  [4]byte                `json:"quad"`
		Text  schematest.RGB         `json:"text"`
		Own   ownSchema              `json:"own"`
		Empty extendedEmpty          `json:"empty,omitempty"`
		Ptrs  []*schematest.TreeNode `json:"ptrs"`
		Emb   *schematest.Paging     `json:"emb"`
		Gen   schematest.Page[int]   `json:"gen"`
		Gen2  schematest.Page[bool]  `json:"gen2,omitempty"`
		Many  map[string][]*int      `json:"many"`
	}
	embedPtrArgs struct {
		*schematest.Audit
		schematest.Employee
	}
)

func (ownSchema) JSONSchema() *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("a", &jsonschema.Schema{Type: "integer", Minimum: "0.5"})
	return &jsonschema.Schema{
		Type: "object", Properties: props, Required: []string{"a"},
		Extras:      map[string]any{"x-kind": "own", "x-n": 2},
		Definitions: jsonschema.Definitions{"inner": {Type: "string"}},
	}
}

func (extendedEmpty) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Const = map[string]any{"k": []any{1.25, "v"}}
	s.Examples = []any{json.Number("10"), nil}
}

// TestDirectTreeMatchesMarshal compares the direct conversion of invopop's
// schemas with what marshalling and parsing them gives.
func TestDirectTreeMatchesMarshal(t *testing.T) {
	t.Parallel()
	types := []reflect.Type{
		reflect.TypeFor[extraArgs](), reflect.TypeFor[kindArgs](), reflect.TypeFor[embedPtrArgs](),
		reflect.TypeFor[*schematest.TreeNode](),
	}
	for _, tc := range schematest.Cases() {
		types = append(types, tc.Type)
	}
	for _, typ := range types {
		if _, err := Build(typ); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		root := typ
		for root.Kind() == reflect.Pointer {
			root = root.Elem()
		}
		w := walker{mapper: mapper(root)}
		if _, err := w.walk(root, "", nil); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		sameTree(t, typ.String(), reflectRoot(root, &w))
	}

	str := func(s string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: s} }
	props := jsonschema.NewProperties()
	props.Set("b", str("second <&> \"quoted\"\n"))
	props.Set("a", nil)
	props.Set("bad\xffkey", jsonschema.TrueSchema)
	falseCopy := *jsonschema.FalseSchema
	zeroProps := jsonschema.NewProperties() // made zero: it marshals as null
	reflect.ValueOf(zeroProps).Elem().SetZero()
	n := uint64(3)
	for name, s := range map[string]*jsonschema.Schema{
		"empty":           {},
		"true":            jsonschema.TrueSchema,
		"false copy":      &falseCopy,
		"empty extras":    {Extras: map[string]any{}},
		"empty enum":      {Enum: []any{}},
		"empty props":     {Properties: jsonschema.NewProperties()},
		"zero props":      {Type: "object", Properties: zeroProps},
		"invalid utf8":    {Description: "a\xffb\xfe\xfdc", Enum: []any{"x\xff"}},
		"html and escape": {Pattern: `^<a>&"b"\d$`, Title: "tab\there\u2028"},
		"everything": {
			Version: "v", ID: "id", Anchor: "an", Ref: "#/$defs/x", DynamicRef: "dr",
			Definitions: jsonschema.Definitions{"z": str("z"), "a": str("a"), "n": nil},
			Comments:    "c",
			AllOf:       []*jsonschema.Schema{str("1"), nil}, AnyOf: []*jsonschema.Schema{{}}, OneOf: []*jsonschema.Schema{jsonschema.FalseSchema},
			Not: str("not"), If: str("if"), Then: str("then"), Else: str("else"),
			DependentSchemas: map[string]*jsonschema.Schema{"q": str("q"), "p": str("p")},
			PrefixItems:      []*jsonschema.Schema{str("p")}, Items: str("i"), Contains: str("c"),
			Properties:           props,
			PatternProperties:    map[string]*jsonschema.Schema{"^x": str("x")},
			AdditionalProperties: jsonschema.FalseSchema, PropertyNames: str("pn"),
			Type: "object", Enum: []any{1, "a", true, nil, 1.5, json.Number(""), json.Number("2.50"), []string{"x"}, map[string]any{"k": 1}, int64(-4), uint8(7), float32(0.1), 1e21, 1e-7},
			Const:      false,
			MultipleOf: "5", Maximum: "1.5", ExclusiveMaximum: "-3", Minimum: "1e3", ExclusiveMinimum: "0",
			MaxLength: &n, MinLength: &n, Pattern: "p", MaxItems: &n, MinItems: &n, UniqueItems: true,
			MaxContains: &n, MinContains: &n, MaxProperties: &n, MinProperties: &n,
			Required:          []string{"b", "a"},
			DependentRequired: map[string][]string{"y": {"a"}, "x": nil},
			Format:            "f", ContentEncoding: "ce", ContentMediaType: "cm", ContentSchema: str("cs"),
			Title: "t", Description: "d", Default: 0, Deprecated: true, ReadOnly: true, WriteOnly: true,
			Examples: []any{"e", str("schema in data")},
			Extras:   map[string]any{"zz": []string{"a", "b"}, "$defs": 1, "type": "dup", "minimum": 3, "nested": map[string]any{"b": []any{1, "x"}, "a": nil}, "t": true},
		},
	} {
		sameTree(t, name, s)
	}

	// What json.Marshal rejects fails the same way.
	for name, s := range map[string]*jsonschema.Schema{
		"invalid number":      {Minimum: "+1"},
		"NaN":                 {Extras: map[string]any{"x": math.NaN()}},
		"channel":             {Default: make(chan int)},
		"invalid enum number": {Enum: []any{json.Number("1.")}},
	} {
		_, want := slowTree(s)
		_, got := toTree(s)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: error %v, want %v", name, got, want)
		}
	}
}

func sameTree(t *testing.T, name string, s *jsonschema.Schema) {
	t.Helper()
	want, err := slowTree(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := toTree(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: direct tree\n%s\nwant (marshal and parse)\n%s", name, jsonnode.Marshal(got), jsonnode.Marshal(want))
	}
}

// TestSchemaFields pins the fields of jsonschema.Schema that the direct
// conversion writes: a new field in an upgrade must be added there.
func TestSchemaFields(t *testing.T) {
	t.Parallel()
	var got []string
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		f := st.Field(i)
		got = append(got, f.Name+" "+f.Tag.Get("json"))
	}
	want := []string{
		"Version $schema,omitempty", "ID $id,omitempty", "Anchor $anchor,omitempty", "Ref $ref,omitempty",
		"DynamicRef $dynamicRef,omitempty", "Definitions $defs,omitempty", "Comments $comment,omitempty",
		"AllOf allOf,omitempty", "AnyOf anyOf,omitempty", "OneOf oneOf,omitempty", "Not not,omitempty",
		"If if,omitempty", "Then then,omitempty", "Else else,omitempty", "DependentSchemas dependentSchemas,omitempty",
		"PrefixItems prefixItems,omitempty", "Items items,omitempty", "Contains contains,omitempty",
		"Properties properties,omitempty", "PatternProperties patternProperties,omitempty",
		"AdditionalProperties additionalProperties,omitempty", "PropertyNames propertyNames,omitempty",
		"Type type,omitempty", "Enum enum,omitempty", "Const const,omitempty",
		"MultipleOf multipleOf,omitempty", "Maximum maximum,omitempty", "ExclusiveMaximum exclusiveMaximum,omitempty",
		"Minimum minimum,omitempty", "ExclusiveMinimum exclusiveMinimum,omitempty",
		"MaxLength maxLength,omitempty", "MinLength minLength,omitempty", "Pattern pattern,omitempty",
		"MaxItems maxItems,omitempty", "MinItems minItems,omitempty", "UniqueItems uniqueItems,omitempty",
		"MaxContains maxContains,omitempty", "MinContains minContains,omitempty",
		"MaxProperties maxProperties,omitempty", "MinProperties minProperties,omitempty",
		"Required required,omitempty", "DependentRequired dependentRequired,omitempty",
		"Format format,omitempty", "ContentEncoding contentEncoding,omitempty", "ContentMediaType contentMediaType,omitempty",
		"ContentSchema contentSchema,omitempty", "Title title,omitempty", "Description description,omitempty",
		"Default default,omitempty", "Deprecated deprecated,omitempty", "ReadOnly readOnly,omitempty",
		"WriteOnly writeOnly,omitempty", "Examples examples,omitempty", "Extras -", "boolean ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jsonschema.Schema fields changed:\n%q", got)
	}
	if booleanField < 0 {
		t.Error("the boolean field of jsonschema.Schema is not found")
	}
}

// Rejected types that need a name (it shows in the error, or a method or
// the unused-field note below needs it); the others are written in the
// table.
type (
	selfList         []selfList
	selfMap          map[string]selfMap
	onlyUnexported   struct{ city, unit string }
	unexportedTagged struct {
		City string `json:"city"`
		days int    `jsonschema:"minimum=1"`
	}
	panicExtend struct{ N int }
)

func (panicExtend) JSONSchemaExtend(*jsonschema.Schema) { panic("boom") }

var _ = unexportedTagged{days: 0}.days
var _ = onlyUnexported{city: "", unit: ""}.city

func TestErrors(t *testing.T) {
	t.Parallel()
	unexportedJSON := reflect.StructOf([]reflect.StructField{
		{Name: "City", Type: reflect.TypeFor[string](), Tag: `json:"city"`},
		{Name: "days", PkgPath: "app", Type: reflect.TypeFor[int](), Tag: `json:"days"`},
	})
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		path string
		msg  string
	}{
		{"nil", nil, "", "nil type"},
		{"not a struct", reflect.TypeFor[int](), "", "arguments must be a struct, got int"},
		{"pointer to not a struct", reflect.TypeFor[*[]int](), "", "arguments must be a struct, got *[]int"},
		{"own JSON form", reflect.TypeFor[schematest.LatLng](), "", "arguments must be a JSON object, and schematest.LatLng reads its own JSON form; make it a field of an arguments struct"},
		{"chan", reflect.TypeFor[struct{ C chan int }](), "C", "chan int (kind chan has no JSON form)"},
		{"chan nested", reflect.TypeFor[struct {
			Options struct {
				Inner struct{ Callback chan string }
			}
		}](), "Options.Inner.Callback", "chan string (kind chan has no JSON form)"},
		{"func", reflect.TypeFor[struct{ F func() }](), "F", "func() (kind func has no JSON form)"},
		{"func under json names", reflect.TypeFor[struct {
			Options struct {
				List []struct {
					Cb func() `json:"cb"`
				} `json:"list"`
			} `json:"options"`
		}](), "options.list[].cb", "func() (kind func has no JSON form)"},
		{"complex", reflect.TypeFor[struct{ C complex128 }](), "C", "complex128 (kind complex128 has no JSON form)"},
		{"unsafe.Pointer", reflect.TypeFor[struct{ P unsafe.Pointer }](), "P", "unsafe.Pointer (kind unsafe.Pointer has no JSON form)"},
		{"non-empty interface", reflect.TypeFor[struct {
			R interface{ Read([]byte) (int, error) }
		}](), "R", "non-empty interface interface { Read([]uint8) (int, error) } (only any is free-form)"},
		{"map key", reflect.TypeFor[struct{ M map[float64]string }](), "M", "map key type float64 (keys must be strings, integers or encoding.TextUnmarshalers)"},
		{"map key nested", reflect.TypeFor[struct {
			Options struct{ Inner struct{ M map[bool]string } }
		}](), "Options.Inner.M", "map key type bool (keys must be strings, integers or encoding.TextUnmarshalers)"},
		{"recursive slice", reflect.TypeFor[struct{ Expr selfList }](), "Expr[]", "recursive type schema.selfList (a type can contain itself only through a struct)"},
		{"recursive map", reflect.TypeFor[struct {
			Env struct{ Vars selfMap }
		}](), "Env.Vars{}", "recursive type schema.selfMap (a type can contain itself only through a struct)"},
		{"uintptr", reflect.TypeFor[struct{ Addr uintptr }](), "Addr", "uintptr (a memory address has no meaning to a model; use uint64)"},
		{"json name -", reflect.TypeFor[struct {
			//lint:ignore SA5008 the tag under test names a field "-"
			Dash int `json:"-,"`
		}](), "Dash", `JSON name "-" (tag json:"-,") cannot be expressed in the schema; choose another name`},
		{"unexported with jsonschema tag", reflect.TypeFor[unexportedTagged](), "days", "unexported field with a jsonschema tag (encoding/json ignores unexported fields; export it)"},
		{"unexported with json tag", unexportedJSON, "days", "unexported field with a json tag (encoding/json ignores unexported fields; export it)"},
		{"only unexported fields", reflect.TypeFor[onlyUnexported](), "", "schema.onlyUnexported has only unexported fields, which encoding/json ignores: the model could pass nothing; export them"},
		{"only unexported fields nested", reflect.TypeFor[struct{ Where onlyUnexported }](), "Where", "schema.onlyUnexported has only unexported fields, which encoding/json ignores: the model could pass nothing; export them"},
		{"panic in invopop", reflect.TypeFor[struct{ P panicExtend }](), "", "schema generation failed: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts, err := Build(tc.typ)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Build = %v, %v; want an *Error", ts, err)
			}
			if ts != nil {
				t.Error("a schema came with the error")
			}
			if e.Path != tc.path || e.Msg != tc.msg || e.Tag {
				t.Errorf("got Path %q Msg %q Tag %v\nwant Path %q Msg %q", e.Path, e.Msg, e.Tag, tc.path, tc.msg)
			}
		})
	}
}

type (
	tagMistake struct {
		Days int `json:"days" jsonschema:"minLength=1"`
	}
	nestedTagMistake struct {
		Options struct {
			Tags []string `json:"tags" jsonschema:"minimum=1"`
		} `json:"options"`
	}
	// The tag applies to what invopop makes of the field: a string, for a
	// duration (our Mapper) and for a number sent as a string.
	tagsThatFit struct {
		Wait time.Duration `json:"wait" jsonschema:"pattern=^[0-9]+s$"`
		N    int           `json:"n,string" jsonschema:"pattern=^[0-9]+$"`
	}
)

func TestTagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  reflect.Type
		path string
	}{
		{reflect.TypeFor[tagMistake](), "days"},
		{reflect.TypeFor[nestedTagMistake](), "options.tags"},
	} {
		_, err := Build(tc.typ)
		var e *Error
		if !errors.As(err, &e) || !e.Tag || e.Path != tc.path || e.Msg == "" {
			t.Errorf("%s: Build error %#v, want a tag error at %q", tc.typ, err, tc.path)
		}
	}
	if _, err := Build(reflect.TypeFor[tagsThatFit]()); err != nil {
		t.Errorf("tagsThatFit: %v", err)
	}
}

func TestVariants(t *testing.T) {
	t.Parallel()
	ts, err := Build(reflect.TypeFor[schematest.Optional]())
	if err != nil {
		t.Fatal(err)
	}
	plain := string(ts.Plain)
	strict := StrictOf(ts.Tree)
	if strict == ts.Tree {
		t.Error("StrictOf rewrote the tree in place")
	}
	lenient := LenientOf(ts.Tree)
	if got := string(jsonnode.Marshal(ts.Tree)); got != plain {
		t.Errorf("the variants changed the plain tree: %s", got)
	}

	// LenientOf keeps required as it is and makes the optional properties
	// nullable just as Strict does.
	req, _ := lenient.Get("required")
	plainReq, _ := ts.Tree.Get("required")
	if !reflect.DeepEqual(req, plainReq) {
		t.Errorf("lenient required = %v, want %v", req, plainReq)
	}
	for _, tc := range []struct{ path, want string }{
		{"/properties/query", `{"type":"string"}`},
		{"/properties/limit", `{"type":["integer","null"]}`},
		{"/properties/filter/properties/zip", `{"type":["string","null"]}`},
		{"/properties/filter/required", `["street","city"]`},
		{"/properties/options/required", `["lang"]`},
	} {
		var v any = lenient
		for _, key := range strings.Split(tc.path, "/")[1:] {
			v, _ = v.(*jsonnode.Object).Get(key)
		}
		if got := string(jsonnode.Marshal(v)); got != tc.want {
			t.Errorf("lenient %s = %s, want %s", tc.path, got, tc.want)
		}
	}
}

// The workload of the benchmarks.
type benchOptions struct {
	Detailed bool   `json:"detailed"`
	Lang     string `json:"lang,omitempty"`
}

type benchArgs struct {
	City    string       `json:"city"`
	Unit    string       `json:"unit" jsonschema:"enum=C,enum=F"`
	Days    int          `json:"days" jsonschema:"minimum=1,maximum=14"`
	Tags    []string     `json:"tags,omitempty"`
	Options benchOptions `json:"options"`
}

// BenchmarkBuild compares a cold build with invopop's reflection alone
// (default settings), with the way of the types left to invopop, and with
// the former way: marshal invopop's schema, parse it back, reshape, and
// derive the strict variant eagerly.
func BenchmarkBuild(b *testing.B) {
	typ := reflect.TypeFor[benchArgs]()
	b.Run("invopop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = (&jsonschema.Reflector{}).Reflect(&benchArgs{})
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Build(typ); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("invopop-path", func(b *testing.B) {
		// The way the types the walker leaves to invopop take: the walk
		// checks, invopop reflects, the tree is converted and reshaped.
		b.ReportAllocs()
		for b.Loop() {
			if _, err := build(typ, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold+strict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ts, err := Build(typ)
			if err != nil {
				b.Fatal(err)
			}
			StrictOf(ts.Tree)
		}
	})
	b.Run("marshal-path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w := walker{mapper: mapper(typ)}
			if _, err := w.walk(typ, "", nil); err != nil {
				b.Fatal(err)
			}
			recursive := w.recursiveNames()
			tree, err := slowTree(reflectRoot(typ, &w))
			if err != nil {
				b.Fatal(err)
			}
			plain := tidy(shapeRoot(tree.(*jsonnode.Object), recursive)).(*jsonnode.Object)
			_ = jsonnode.Marshal(plain)
			_ = jsonnode.Marshal(StrictOf(plain))
		}
	})
}
