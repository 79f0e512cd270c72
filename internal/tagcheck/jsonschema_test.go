package tagcheck

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

type (
	tagList []string
	status  string
	point   struct{ X int }
)

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

func TestJSONSchema(t *testing.T) {
	tests := []struct {
		name string
		tag  string
		typ  reflect.Type
		err  string // "" means accepted; otherwise the exact message
	}{
		// Empty, "-" and flags.
		{"empty tag", "", typeOf[int](), ""},
		{"dash omits the field", "-", typeOf[string](), ""},
		{"dash followed by more", "-,required", typeOf[string](), `jsonschema tag: "-" leaves the field out of the schema, so nothing may follow it`},
		{"required flag", "required", typeOf[string](), ""},
		{"nullable flag", "nullable", typeOf[int](), ""},
		{"flags with generic keywords", "required,nullable,description=x", typeOf[bool](), ""},
		{"flag given a value", "required=true", typeOf[string](), `jsonschema tag: "required" is a flag and takes no value (write just required)`},
		{"misspelled flag", "requird", typeOf[string](), `jsonschema tag: unknown keyword "requird" (did you mean "required"?)`},
		{"bare readOnly is ignored by invopop", "readOnly", typeOf[string](), `jsonschema tag: "readOnly" needs a value (readOnly=true); invopop ignores it alone`},
		{"empty piece", "minimum=1,", typeOf[int](), `jsonschema tag: empty keyword (a stray comma)`},

		// Generic keywords, on any type.
		{"generic on a struct", "title=T,description=D,anchor=a", typeOf[point](), ""},
		{"oneof/anyof keywords", "oneof_required=g1,anyof_required=g2,oneof_ref=#/$defs/A;#/$defs/B,anyof_ref=#/$defs/A", typeOf[point](), ""},
		{"generic on any", "description=anything goes", typeOf[any](), ""},
		{"type overrides the kind", "type=string,maxLength=3", typeOf[int](), ""},
		{"bad type value", "type=strnig", typeOf[int](), `jsonschema tag: type=strnig: "strnig" is not a JSON Schema type (did you mean "string"?)`},
		{"bad oneof_type value", "oneof_type=string;nmber", typeOf[string](), `jsonschema tag: oneof_type=string;nmber: "nmber" is not a JSON Schema type (did you mean "number"?)`},
		{"oneof_type clears the type", "oneof_type=string;integer,maxLength=3", typeOf[string](), `jsonschema tag: "maxLength" applies to strings, not string (oneof_type leaves it without a schema type)`},
		{"repeated single keyword", "description=a,description=b", typeOf[string](), `jsonschema tag: "description" is given more than once; invopop keeps only the last`},

		// Commas.
		{"unescaped comma", "description=The order id, e.g. o-1", typeOf[string](), `jsonschema tag: " e.g. o-1" is not a keyword=value pair; a comma inside a value must be escaped as \\, in the Go source (jsonschema:"description=a\\, b"), or use a jsonschema_description tag`},
		{"escaped comma", `description=The order id\, e.g. o-1`, typeOf[string](), ""},
		{"escaped comma in a pattern", `pattern=^[a-z]{1\,3}$`, typeOf[string](), ""},
		{"unescaped comma before a word", "description=Order id,optional", typeOf[string](), `jsonschema tag: "optional" is not a keyword=value pair; a comma inside a value must be escaped as \\, in the Go source (jsonschema:"description=a\\, b"), or use a jsonschema_description tag`},
		{"unescaped comma before a pair", "description=a, b=c", typeOf[string](), `jsonschema tag: " b=c" is not a keyword=value pair; a comma inside a value must be escaped as \\, in the Go source (jsonschema:"description=a\\, b"), or use a jsonschema_description tag`},
		{"escaped comma still read as a flag", `description=a\,required`, typeOf[string](), `jsonschema tag: "required" after an escaped comma still marks the field required: invopop finds flags without honouring \,`},

		// Unknown keywords.
		{"misspelled minimum", "minimun=3", typeOf[int](), `jsonschema tag: unknown keyword "minimun" (did you mean "minimum"?)`},
		{"keyword invopop v0.14 lacks", "deprecated=true", typeOf[string](), `jsonschema tag: unknown keyword "deprecated"`},
		{"wrong case", "maxlength=3", typeOf[string](), `jsonschema tag: unknown keyword "maxlength" (did you mean "maxLength"?)`},

		// Strings.
		{"string keywords", "minLength=1,maxLength=5,pattern=^a$,format=email", typeOf[string](), ""},
		{"readOnly and writeOnly", "readOnly=true,writeOnly=false", typeOf[string](), ""},
		{"string default example enum", "default=x,example=y,enum=a,enum=b", typeOf[string](), ""},
		{"string value may hold =", "default=a=b", typeOf[string](), ""},
		{"named string type", "enum=a,enum=b", typeOf[status](), ""},
		{"pointer is dereferenced", "maxLength=3", typeOf[*string](), ""},
		{"time.Time is a string", "format=date,maxLength=30", typeOf[time.Time](), ""},
		{"net.IP is a string", "format=ipv6", typeOf[net.IP](), ""},
		{"url.URL is a string", "pattern=^https:", typeOf[url.URL](), ""},
		{"[]byte is a string", "maxLength=10", typeOf[[]byte](), ""},
		{"maxLength on int", "maxLength=2", typeOf[int](), `jsonschema tag: "maxLength" applies to strings, not int`},
		{"negative maxLength", "maxLength=-1", typeOf[string](), `jsonschema tag: maxLength=-1 is not a non-negative integer`},
		{"non-numeric maxLength", "maxLength=x", typeOf[string](), `jsonschema tag: maxLength=x is not a non-negative integer`},
		{"readOnly not a boolean", "readOnly=yes", typeOf[string](), `jsonschema tag: readOnly=yes is not a boolean`},
		{"minimum on string", "minimum=3", typeOf[string](), `jsonschema tag: "minimum" applies to numbers, not string`},
		{"minItems on string", "minItems=1", typeOf[string](), `jsonschema tag: "minItems" applies to arrays, not string`},

		// Numbers.
		{"integer keywords", "minimum=1,maximum=10,exclusiveMinimum=0,exclusiveMaximum=11,multipleOf=2", typeOf[int](), ""},
		{"number keywords", "minimum=0.5,default=1.5,enum=1,enum=2,example=3e2", typeOf[float64](), ""},
		{"uint8", "maximum=255", typeOf[uint8](), ""},
		{"pointer to int", "minimum=1", typeOf[*int](), ""},
		{"duration is an integer without a Mapper", "minimum=0", typeOf[time.Duration](), ""},
		{"minimum not a number", "minimum=abc", typeOf[int](), `jsonschema tag: minimum=abc is not a number`},
		{"plus sign is not JSON", "minimum=+5", typeOf[int](), `jsonschema tag: minimum=+5 is not a number`},
		{"out of range", "maximum=1e400", typeOf[float64](), `jsonschema tag: maximum=1e400 is not a number`},
		{"numeric default dropped", "default=ten", typeOf[int](), `jsonschema tag: default=ten is not a number`},
		{"numeric enum dropped", "enum=a", typeOf[int](), `jsonschema tag: enum=a is not a number`},
		{"pattern on int", "pattern=^1$", typeOf[int](), `jsonschema tag: "pattern" applies to strings and arrays, not int`},

		// Booleans.
		{"boolean default", "default=true", typeOf[bool](), ""},
		{"boolean default not true or false", "default=yes", typeOf[bool](), `jsonschema tag: default=yes is not true or false`},
		{"enum on bool", "enum=true", typeOf[bool](), `jsonschema tag: "enum" applies to strings and numbers, not bool`},

		// Arrays.
		{"array keywords", "minItems=1,maxItems=3,uniqueItems=true", typeOf[[]string](), ""},
		{"string items", "enum=a,enum=b,minLength=1,maxLength=3,format=email,pattern=^a$,default=a,default=b", typeOf[[]string](), ""},
		{"integer items", "minimum=1,maximum=5,enum=3,example=4", typeOf[[]int](), ""},
		{"fixed-size array", "maxLength=3", typeOf[[2]string](), ""},
		{"array of any", "default=x,format=uri", typeOf[[]any](), ""},
		{"nested array", "minItems=1,pattern=^a$", typeOf[[][]string](), ""},
		{"string keyword on integer items", "maxLength=3", typeOf[[]int](), `jsonschema tag: "maxLength" applies to strings, not []int`},
		{"enum on boolean items", "enum=true", typeOf[[]bool](), `jsonschema tag: "enum" applies to strings and numbers, not []bool`},
		{"no traversal into nested arrays", "enum=a", typeOf[[][]string](), `jsonschema tag: "enum" applies to strings and numbers, not [][]string`},
		{"uniqueItems=false is read as true", "uniqueItems=false", typeOf[[]int](), `jsonschema tag: uniqueItems=false is read as true; write uniqueItems=true, or leave it out`},
		{"= in an array value", "pattern=^a=b$", typeOf[[]string](), `jsonschema tag: pattern=^a=b$ is dropped on an array: invopop ignores an array keyword whose value contains "="`},
		{"array default on integers", "default=1", typeOf[[]int](), `jsonschema tag: default=1 on []int becomes the string "1": invopop writes array defaults as strings, and the items are integer`},
		{"negative minItems", "minItems=-1", typeOf[[]int](), `jsonschema tag: minItems=-1 is not a non-negative integer`},
		{"named slice is a $ref", "minItems=1", typeOf[tagList](), `jsonschema tag: "minItems" applies to arrays, not tagcheck.tagList (a named slice type is referenced through $defs, which takes no type keywords; use []string)`},
		{"named slice takes generic", "description=the tags", typeOf[tagList](), ""},
		{"type=array without items", "type=array,pattern=^a$", typeOf[string](), `jsonschema tag: "pattern" applies to strings and arrays, not string (type=array here has no items schema)`},

		// Types without type keywords.
		{"enum on any", "enum=a", typeOf[any](), `jsonschema tag: "enum" applies to strings and numbers, not interface {}`},
		{"minimum on map", "minimum=1", typeOf[map[string]int](), `jsonschema tag: "minimum" applies to numbers, not map[string]int`},
		{"RawMessage has no type", "maxLength=3", typeOf[json.RawMessage](), `jsonschema tag: "maxLength" applies to strings, not json.RawMessage`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := JSONSchema(tc.tag, tc.typ)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

// selfSchema has its own schema, which invopop references through $defs.
type selfSchema struct{}

func (selfSchema) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }

func TestJSONSchemaField(t *testing.T) {
	durationAsString := func(t reflect.Type) *jsonschema.Schema {
		if t == reflect.TypeFor[time.Duration]() {
			return &jsonschema.Schema{Type: "string", Pattern: "^[0-9]+s$"}
		}
		return nil
	}
	type embedded struct{ A int }
	type args struct {
		Quoted     int           `json:"quoted,string" jsonschema:"maxLength=3"`
		QuotedMin  int           `json:"quoted_min,string" jsonschema:"minimum=1"`
		Timeout    time.Duration `json:"timeout" jsonschema:"maxLength=10"`
		TimeoutMin time.Duration `json:"timeout_min" jsonschema:"minimum=0"`
		embedded   `jsonschema:"description=ignored"`
		Both       string     `json:"both" jsonschema:"description=a" jsonschema_description:"b"`
		Skipped    string     `json:"-" jsonschema:"minimun=1"`
		NoTag      int        `json:"no_tag"`
		Own        selfSchema `json:"own" jsonschema:"maxLength=3"`
		OwnDesc    selfSchema `json:"own_desc" jsonschema:"description=fine"`
	}
	rt := reflect.TypeFor[args]()
	field := func(name string) reflect.StructField {
		f, ok := rt.FieldByName(name)
		require.True(t, ok, name)
		return f
	}
	tests := []struct {
		field string
		err   string
	}{
		{"Quoted", ""},
		{"QuotedMin", `jsonschema tag: "minimum" applies to numbers, not int (json ",string" makes it a string)`},
		{"Timeout", ""},
		{"TimeoutMin", `jsonschema tag: "minimum" applies to numbers, not time.Duration`},
		{"embedded", `jsonschema tag: an embedded struct is flattened into its parent, so its jsonschema tag has no effect; tag its fields instead`},
		{"Both", `jsonschema tag: description= replaces the jsonschema_description tag; keep one of them`},
		{"Skipped", ""},
		{"NoTag", ""},
		{"Own", `jsonschema tag: "maxLength" applies to strings, not tagcheck.selfSchema (a type with a JSONSchema method is referenced through $defs, which takes no type keywords)`},
		{"OwnDesc", ""},
	}
	for _, tc := range tests {
		t.Run(tc.field, func(t *testing.T) {
			err := JSONSchemaField(field(tc.field), durationAsString)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

// TestAgreesWithInvopop runs invopop itself over a grid of types and
// single keywords: a keyword must be accepted exactly when it changes the
// schema invopop generates.
func TestAgreesWithInvopop(t *testing.T) {
	types := []reflect.Type{
		typeOf[string](), typeOf[int](), typeOf[uint16](), typeOf[float64](), typeOf[bool](),
		typeOf[[]string](), typeOf[[]int](), typeOf[[]float64](), typeOf[[]bool](), typeOf[[][]string](),
		typeOf[[]any](), typeOf[[2]string](), typeOf[[]point](), typeOf[[]*int](), typeOf[[]time.Time](),
		typeOf[map[string]int](), typeOf[struct{ A int }](), typeOf[point](), typeOf[tagList](),
		typeOf[any](), typeOf[*string](), typeOf[*[]int](), typeOf[time.Time](), typeOf[time.Duration](),
		typeOf[net.IP](), typeOf[[]byte](), typeOf[json.RawMessage](), typeOf[status](), typeOf[url.URL](),
		typeOf[selfSchema](),
	}
	// Each row holds values of one keyword; it is read when any of them
	// changes the schema (type=string on a string changes nothing, yet
	// invopop reads it).
	pieces := [][]string{
		{"title=T"}, {"description=D"}, {"type=string", "type=integer"}, {"anchor=a"}, {"required"}, {"nullable"},
		{"oneof_type=string;integer"}, {"anyof_type=string"}, {"oneof_ref=#/$defs/X"}, {"anyof_ref=#/$defs/X"},
		{"oneof_required=g"}, {"anyof_required=g"},
		{"minLength=1"}, {"maxLength=2"}, {"pattern=^a$"}, {"format=email"}, {"readOnly=true"}, {"writeOnly=true"},
		{"default=1"}, {"default=true"}, {"example=1"}, {"enum=1"},
		{"multipleOf=2"}, {"minimum=1"}, {"maximum=2"}, {"exclusiveMinimum=0"}, {"exclusiveMaximum=3"},
		{"minItems=1", "minItems=5"}, {"maxItems=2", "maxItems=5"}, {"uniqueItems=true"},
	}
	for _, typ := range types {
		for _, values := range pieces {
			if deliberate(values[0], typ) {
				continue
			}
			read := false
			for _, v := range values {
				read = read || invopopChanges(typ, v)
			}
			for _, v := range values {
				err := JSONSchema(v, typ)
				assert.Equal(t, read, err == nil, "%s on %s: invopop reads it: %v, tagcheck: %v", v, typ, read, err)
			}
		}
	}
}

// deliberate lists what tagcheck refuses although invopop writes something:
// array defaults become strings whatever the items are.
func deliberate(piece string, typ reflect.Type) bool {
	if !strings.HasPrefix(piece, "default=") {
		return false
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Name() != "" || (typ.Kind() != reflect.Slice && typ.Kind() != reflect.Array) || typ == reflect.TypeFor[[]byte]() {
		return false
	}
	sh := shapeOf(typ.Elem(), nil, 0)
	return sh.typ != "string" && sh.typ != ""
}

func invopopChanges(typ reflect.Type, piece string) bool {
	gen := func(tag string) (out string) {
		defer func() {
			if recover() != nil {
				out = "panic"
			}
		}()
		st := reflect.StructOf([]reflect.StructField{{Name: "F", Type: typ, Tag: reflect.StructTag(tag)}})
		b, err := json.Marshal((&jsonschema.Reflector{Anonymous: true}).ReflectFromType(st))
		if err != nil {
			return "error"
		}
		return string(b)
	}
	base := gen(`json:"f,omitempty"`)
	with := gen(`json:"f,omitempty" jsonschema:` + strconv.Quote(piece))
	return with != "panic" && with != "error" && with != base
}

func ExampleJSONSchema() {
	fmt.Println(JSONSchema("minimun=3", reflect.TypeFor[int]()))
	fmt.Println(JSONSchema(`description=The order id\, e.g. o-1`, reflect.TypeFor[string]()))
	// Output:
	// jsonschema tag: unknown keyword "minimun" (did you mean "minimum"?)
	// <nil>
}

// TestNumberGrammar pins that jsonnode.ValidNumber accepts exactly what
// the regular expression of JSON's number grammar does.
func TestNumberGrammar(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := "-+0123456789.eEx "
	for range 200000 {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if s := string(b); jsonnode.ValidNumber(s) != re.MatchString(s) {
			t.Fatalf("%q: ValidNumber %v, regexp %v", s, jsonnode.ValidNumber(s), re.MatchString(s))
		}
	}
}

// TestAppendPieces pins invopop's cutting: an escaped comma joins two
// pieces and loses its backslash, an empty piece is never joined, and what
// dst already holds is left alone.
func TestAppendPieces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dst  []string
		tag  string
		want []string
	}{
		{nil, "", []string{""}},
		{nil, "a,b", []string{"a", "b"}},
		{nil, "a,,b,", []string{"a", "", "b", ""}},
		{nil, `a\,b,c`, []string{"a,b", "c"}},
		{nil, `a\,b\,c`, []string{"a,b,c"}},
		{nil, `\,a`, []string{",a"}},
		{nil, `a\\,b`, []string{`a\,b`}},
		{nil, `,\,a`, []string{"", ",a"}},
		{nil, `a\`, []string{`a\`}},
		{[]string{`x\`}, "a,b", []string{`x\`, "a", "b"}},
		{[]string{`x\`}, `a\,b`, []string{`x\`, "a,b"}},
	} {
		got := AppendPieces(tc.dst, tc.tag)
		assert.Equal(t, tc.want, got, "tag %q", tc.tag)
	}
}

// TestHasJSONOption pins that only the words after a json tag's name are
// its options.
func TestHasJSONOption(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tag  string
		want bool
	}{
		{"", false},
		{"string", false},
		{",string", true},
		{"n,omitempty,string", true},
		{"n,strings", false},
		{"n,,string", true},
		{"n,omitempty", false},
	} {
		assert.Equal(t, tc.want, HasJSONOption(tc.tag, "string"), "tag %q", tc.tag)
	}
}
