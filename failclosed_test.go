package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/invopop/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

func handTool(schema string) func() error {
	return func() error {
		_, err := toolcall.NewTool(chat.ToolDefinition{Name: "t", InputSchema: json.RawMessage(schema)},
			func(context.Context, json.RawMessage) (string, error) { return "ran", nil })
		return err
	}
}

func typedTool[In any]() func() error {
	return func() error {
		_, err := toolcall.NewFunc("f", "f", func(context.Context, In) (string, error) { return "ran", nil })
		return err
	}
}

func prop(name, schema string) string {
	return `{"type":"object","properties":{"` + name + `":` + schema + `}}`
}

type (
	tagMisspelled struct {
		N int `json:"n" jsonschema:"minimun=3"`
	}
	tagWrongType struct {
		N int `json:"n" jsonschema:"maxLength=2"`
	}
	tagUnescapedComma struct {
		ID string `json:"id" jsonschema:"description=The order id, e.g. o-1"`
	}
	tagLookahead struct {
		Path string `json:"path" jsonschema:"pattern=^(?!\\.\\.).*$"`
	}
	tagBadNumber struct {
		N int `json:"n" jsonschema:"minimum=abc"`
	}
	tagBadType struct {
		N int `json:"n" jsonschema:"type=strnig"`
	}
	tagKeyTypo struct {
		Sort string `json:"sort" json_schema:"enum=top,enum=new"`
	}
	tagJSONCase struct {
		Name string `JSON:"name"`
	}
	tagExtras struct {
		S string `json:"s" jsonschema_extras:"minLenght=3"`
	}
	tagNested struct {
		Inner struct {
			N int `json:"n" jsonschema:"minLength=1"`
		} `json:"inner"`
	}
	tagBareReadOnly struct {
		S string `json:"s" jsonschema:"readOnly"`
	}
	tagUniqueFalse struct {
		L []string `json:"l" jsonschema:"uniqueItems=false"`
	}
	tagEnumOnBool struct {
		B bool `json:"b" jsonschema:"enum=true"`
	}
	methodTagTypo struct {
		_ toolcall.Method `tool:"Do" descripton:"does it"`
	}
	methodTagTypo2 struct {
		_ toolcall.Method `tool:"Do" retrunDirect:"true"`
	}
)

func (methodTagTypo) Do() string  { return "" }
func (methodTagTypo2) Do() string { return "" }

// Other packages' tag keys beside json's and jsonschema's are no mistake.
func TestOtherPackagesTagKeys(t *testing.T) {
	t.Parallel()
	type args struct {
		Name  string `json:"name" bson:"name" yaml:"name" xml:"name" db:"name" validate:"required" mapstructure:"name" gorm:"column:name"`
		Count int    `json:"count" jsonschema:"minimum=1" form:"count" binding:"required" msgpack:"count" toml:"count"`
	}
	tool, err := toolcall.NewFunc("f", "f", func(_ context.Context, in args) (string, error) { return in.Name, nil })
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer","minimum":1}},"required":["name","count"],"additionalProperties":false}`,
		string(tool.Definition().InputSchema))
}

// What the checks cannot enforce is refused when the tool is defined, with a
// *DefinitionError naming the tool, the parameter path and the keyword.
func TestRefusedAtDefinition(t *testing.T) {
	t.Parallel()
	const kw = `toolcall: tool "t": parameter %s: invalid tool: schema keyword %q: %s`
	const root = `toolcall: tool "t": invalid tool: schema keyword %q: %s`
	for _, tc := range []struct {
		name   string
		define func() error
		msg    string
		path   string
	}{
		{"lookahead pattern", handTool(prop("path", `{"type":"string","pattern":"^(?!\\.\\.).*$"}`)),
			fmt.Sprintf(kw, "path", "pattern", `pattern "^(?!\.\.).*$" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`), "path"},
		{"misspelled keyword", handTool(prop("name", `{"type":"string","minLenght":3}`)),
			fmt.Sprintf(kw, "name", "minLenght", `unknown keyword; did you mean "minLength"?`), "name"},
		{"OpenAPI nullable", handTool(prop("name", `{"type":"string","nullable":true}`)),
			fmt.Sprintf(kw, "name", "nullable", `not JSON Schema (it is OpenAPI 3.0); allow null with a type array such as ["string", "null"]`), "name"},
		{"unknown root keyword", handTool(`{"type":"object","foobar":1}`), fmt.Sprintf(root, "foobar", "unknown keyword"), ""},
		{"draft-04", handTool(`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`), fmt.Sprintf(root, "$schema", `unsupported dialect "http://json-schema.org/draft-04/schema#"; use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#"`), ""},
		{"$schema below the root", handTool(prop("a", `{"$schema":"https://json-schema.org/draft/2020-12/schema"}`)), fmt.Sprintf(kw, "a", "$schema", "only allowed at the root of the schema"), "a"},
		{"remote $ref", handTool(prop("a", `{"$ref":"https://example.com/s.json"}`)), fmt.Sprintf(kw, "a", "$ref", `remote reference "https://example.com/s.json" is not supported; only local references such as "#/$defs/Name" are`), "a"},
		{"$ref to nothing", handTool(prop("a", `{"$ref":"#/$defs/Missing"}`)), fmt.Sprintf(kw, "a", "$ref", `reference "#/$defs/Missing" points to nothing in this schema`), "a"},
		{"$ref cycle", handTool(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`), fmt.Sprintf(kw, "$defs.A", "$ref", `reference "#/$defs/A" loops back to itself without reading any input`), "$defs.A"},
		{"unevaluatedProperties", handTool(`{"type":"object","unevaluatedProperties":false}`), fmt.Sprintf(root, "unevaluatedProperties", `not supported; list the allowed fields with "properties" and "additionalProperties"`), ""},
		{"items array in 2020-12", handTool(prop("a", `{"type":"array","items":[{"type":"string"}]}`)), fmt.Sprintf(kw, "a", "items", `an array of schemas is the draft-07 form; in draft 2020-12 use "prefixItems" for the leading items and "items" for the rest`), "a"},
		{"additionalItems in 2020-12", handTool(prop("a", `{"type":"array","additionalItems":false}`)), fmt.Sprintf(kw, "a", "additionalItems", `not supported in draft 2020-12; use "prefixItems" for the leading items and "items" for the rest`), "a"},
		{"dependencies in 2020-12", handTool(`{"type":"object","dependencies":{"a":["b"]}}`), fmt.Sprintf(root, "dependencies", `not supported in draft 2020-12; use "dependentRequired" or "dependentSchemas"`), ""},
		{"draft-07 $ref with siblings", handTool(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/A","minLength":2}},"definitions":{"A":{"type":"string"}}}`), fmt.Sprintf(kw, "a", "$ref", `draft-07 ignores keywords next to "$ref", so "minLength" would not be enforced; move them into an "allOf" with the "$ref"`), "a"},
		{"negative minLength", handTool(prop("a", `{"type":"string","minLength":-1}`)), fmt.Sprintf(kw, "a", "minLength", "must be a non-negative integer, got -1"), "a"},
		{"unknown type", handTool(prop("a", `{"type":"strin"}`)), fmt.Sprintf(kw, "a", "type", `unknown type "strin"; use object, array, string, number, integer, boolean or null`), "a"},
		{"type listed twice", handTool(prop("a", `{"type":["string","string"]}`)), fmt.Sprintf(kw, "a", "type", `type "string" is listed twice`), "a"},
		{"required not an array", handTool(`{"type":"object","required":"a"}`), fmt.Sprintf(root, "required", "must be an array of unique strings"), ""},
		{"enum not an array", handTool(prop("a", `{"enum":"x"}`)), fmt.Sprintf(kw, "a", "enum", "must be a non-empty array"), "a"},
		{"multipleOf zero", handTool(prop("a", `{"type":"number","multipleOf":0}`)), fmt.Sprintf(kw, "a", "multipleOf", "must be a number greater than 0, got 0"), "a"},
		{"draft-04 exclusiveMinimum", handTool(prop("a", `{"type":"number","minimum":0,"exclusiveMinimum":true}`)), fmt.Sprintf(kw, "a", "exclusiveMinimum", `must be a number; the boolean form is draft-04: write the bound itself, e.g. "exclusiveMinimum": 0, instead of "minimum" with "exclusiveMinimum": true`), "a"},
		{"$anchor", handTool(prop("a", `{"$anchor":"x"}`)), fmt.Sprintf(kw, "a", "$anchor", `not supported; refer to subschemas with a JSON pointer such as "#/$defs/Name"`), "a"},
		{"$dynamicRef", handTool(prop("a", `{"$dynamicRef":"#x"}`)), fmt.Sprintf(kw, "a", "$dynamicRef", `not supported; use "$ref" with a JSON pointer such as "#/$defs/Name"`), "a"},
		{"$id below the root", handTool(prop("a", `{"$id":"https://example.com/a"}`)), fmt.Sprintf(kw, "a", "$id", "only allowed at the root of the schema; embedded schema resources are not supported"), "a"},
		{"format not a string", handTool(prop("a", `{"type":"string","format":5}`)), fmt.Sprintf(kw, "a", "format", "must be a string"), "a"},
		{"lookbehind in patternProperties", handTool(`{"type":"object","patternProperties":{"(?<=a)b":{}}}`), fmt.Sprintf(root, "patternProperties", `pattern "(?<=a)b" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`), ""},
		{"empty anyOf", handTool(prop("a", `{"anyOf":[]}`)), fmt.Sprintf(kw, "a", "anyOf", "must be a non-empty array of schemas"), "a"},
		{"nested in items", handTool(prop("list", `{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","maxLenght":3}}}}`)),
			fmt.Sprintf(kw, "list[].x", "maxLenght", `unknown keyword; did you mean "maxLength"?`), "list[].x"},
		{"inside anyOf", handTool(prop("v", `{"anyOf":[{"type":"string"},{"type":"integer","minimun":1}]}`)),
			fmt.Sprintf(kw, "v.anyOf[1]", "minimun", `unknown keyword; did you mean "minimum"?`), "v.anyOf[1]"},
		{"inside $defs", handTool(`{"type":"object","$defs":{"Node":{"type":"object","properties":{"next":{"typ":"string"}}}}}`),
			fmt.Sprintf(kw, "$defs.Node.next", "typ", `unknown keyword; did you mean "type"?`), "$defs.Node.next"},
		{"nil call function", func() error {
			_, err := toolcall.NewTool(chat.ToolDefinition{Name: "t"}, nil)
			return err
		}, `toolcall: tool "t": invalid tool: nil call function`, ""},
		{"not an object schema", handTool(`{"type":"string"}`), `toolcall: tool "t": invalid tool: input schema must have "type":"object", got string`, ""},

		{"tag: misspelled keyword", typedTool[tagMisspelled](), `toolcall: tool "f": parameter n: invalid tool: jsonschema tag: unknown keyword "minimun" (did you mean "minimum"?)`, "n"},
		{"tag: keyword of another type", typedTool[tagWrongType](), `toolcall: tool "f": parameter n: invalid tool: jsonschema tag: "maxLength" applies to strings, not int`, "n"},
		{"tag: unescaped comma", typedTool[tagUnescapedComma](), `toolcall: tool "f": parameter id: invalid tool: jsonschema tag: " e.g. o-1" is not a keyword=value pair; a comma inside a value must be escaped as \\, in the Go source (jsonschema:"description=a\\, b"), or use a jsonschema_description tag`, "id"},
		{"tag: lookahead pattern", typedTool[tagLookahead](), `toolcall: tool "f": parameter path: invalid tool: schema keyword "pattern": pattern "^(?!\.\.).*$" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`, "path"},
		{"tag: bad number", typedTool[tagBadNumber](), `toolcall: tool "f": parameter n: invalid tool: jsonschema tag: minimum=abc is not a number`, "n"},
		{"tag: bad type", typedTool[tagBadType](), `toolcall: tool "f": parameter n: invalid tool: jsonschema tag: type=strnig: "strnig" is not a JSON Schema type (did you mean "string"?)`, "n"},
		{"tag: misspelled key", typedTool[tagKeyTypo](), `toolcall: tool "f": parameter sort: invalid tool: tag key "json_schema" is not read (did you mean "jsonschema"?)`, "sort"},
		{"tag: json in capitals", typedTool[tagJSONCase](), `toolcall: tool "f": parameter Name: invalid tool: tag key "JSON" is not read (did you mean "json"?)`, "Name"},
		{"tag: extras keyword", typedTool[tagExtras](), `toolcall: tool "f": parameter s: invalid tool: schema keyword "minLenght": unknown keyword; did you mean "minLength"?`, "s"},
		{"tag: nested field", typedTool[tagNested](), `toolcall: tool "f": parameter inner.n: invalid tool: jsonschema tag: "minLength" applies to strings, not int`, "inner.n"},
		{"tag: bare readOnly", typedTool[tagBareReadOnly](), `toolcall: tool "f": parameter s: invalid tool: jsonschema tag: "readOnly" needs a value (readOnly=true); invopop ignores it alone`, "s"},
		{"tag: uniqueItems=false", typedTool[tagUniqueFalse](), `toolcall: tool "f": parameter l: invalid tool: jsonschema tag: uniqueItems=false is read as true; write uniqueItems=true, or leave it out`, "l"},
		{"tag: enum on a bool", typedTool[tagEnumOnBool](), `toolcall: tool "f": parameter b: invalid tool: jsonschema tag: "enum" applies to strings and numbers, not bool`, "b"},
		{"method tag: descripton", func() error { _, err := toolcall.ToolsFrom(methodTagTypo{}); return err },
			`toolcall: toolcall_test.methodTagTypo.Do: invalid tool: unknown tag key "descripton" (did you mean "description"?)`, ""},
		{"method tag: retrunDirect", func() error { _, err := toolcall.ToolsFrom(methodTagTypo2{}); return err },
			`toolcall: toolcall_test.methodTagTypo2.Do: invalid tool: unknown tag key "retrunDirect" (did you mean "returnDirect"?)`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var err error
			require.NotPanics(t, func() { err = tc.define() })
			var de *toolcall.DefinitionError
			require.True(t, errors.As(err, &de), "want a *DefinitionError, got %v", err)
			require.ErrorIs(t, err, toolcall.ErrInvalidTool)
			assert.EqualError(t, err, tc.msg)
			assert.Equal(t, tc.path, de.Path)
		})
	}
}

type rawField struct{ raw json.RawMessage }

func (f *rawField) UnmarshalJSON(b []byte) error { f.raw = append(f.raw[:0], b...); return nil }

type (
	oneOfField   struct{ rawField }
	notField     struct{ rawField }
	ifField      struct{ rawField }
	containsFld  struct{ rawField }
	depReqField  struct{ rawField }
	propNamesFld struct{ rawField }
	minPropsFld  struct{ rawField }
	constField   struct{ rawField }
)

func (oneOfField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "integer"}, {Type: "number", Minimum: "5"}}}
}
func (notField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Not: &jsonschema.Schema{Type: "string"}}
}
func (ifField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{If: &jsonschema.Schema{Type: "string"}, Then: &jsonschema.Schema{MinLength: ptr(uint64(2))}, Else: &jsonschema.Schema{Type: "integer"}}
}
func (containsFld) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Contains: &jsonschema.Schema{Const: "x"}}
}
func (depReqField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", DependentRequired: map[string][]string{"a": {"b"}}}
}
func (propNamesFld) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", PropertyNames: &jsonschema.Schema{Pattern: "^[a-z]+$"}}
}
func (minPropsFld) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", MinProperties: ptr(uint64(1))}
}
func (constField) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Const: "fixed"} }

func ptr[T any](v T) *T { return &v }

type (
	tMinimum struct {
		V int `json:"v" jsonschema:"minimum=1"`
	}
	tMaximum struct {
		V int `json:"v" jsonschema:"maximum=14"`
	}
	tXMin struct {
		V float64 `json:"v" jsonschema:"exclusiveMinimum=0"`
	}
	tXMax struct {
		V float64 `json:"v" jsonschema:"exclusiveMaximum=1"`
	}
	tMultipleOf struct {
		V float64 `json:"v" jsonschema:"multipleOf=0.1"`
	}
	tMinLength struct {
		V string `json:"v" jsonschema:"minLength=2"`
	}
	tMaxLength struct {
		V string `json:"v" jsonschema:"maxLength=3"`
	}
	tPattern struct {
		V string `json:"v" jsonschema:"pattern=^[a-z]+$"`
	}
	tEnum struct {
		V string `json:"v" jsonschema:"enum=C,enum=F"`
	}
	tMinItems struct {
		V []int `json:"v" jsonschema:"minItems=1"`
	}
	tMaxItems struct {
		V []int `json:"v" jsonschema:"maxItems=2"`
	}
	tUniqueItems struct {
		V []int `json:"v" jsonschema:"uniqueItems=true"`
	}
	tFormat struct {
		V string `json:"v" jsonschema:"format=date-time"`
	}
	tType struct {
		V bool `json:"v"`
	}
	tOneOf struct {
		V oneOfField `json:"v"`
	}
	tNot struct {
		V notField `json:"v"`
	}
	tIf struct {
		V ifField `json:"v"`
	}
	tContains struct {
		V containsFld `json:"v"`
	}
	tDepReq struct {
		V depReqField `json:"v"`
	}
	tPropNames struct {
		V propNamesFld `json:"v"`
	}
	tMinProps struct {
		V minPropsFld `json:"v"`
	}
	tConst struct {
		V constField `json:"v"`
	}
)

func typed[In any]() toolcall.Tool {
	return toolcall.MustFunc("t", "t", func(context.Context, In) (string, error) { return "ran", nil })
}

// Every keyword is enforced: for each, a value that passes reaches the tool
// and one that breaks it does not, for a hand-written schema and, where a
// tag or JSONSchema() says it, for a tool built from a Go type.
func TestKeywordEnforcement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		keyword, schema string
		accept, reject  string // the value of property v
		typed           toolcall.Tool
	}{
		{"type", `{"type":"boolean"}`, `true`, `"true"`, typed[tType]()},
		{"type", `{"type":["string","null"]}`, `null`, `1`, nil},
		{"type", `{"type":"integer"}`, `2.0`, `2.5`, nil},
		{"enum", `{"enum":["C","F"]}`, `"C"`, `"K"`, typed[tEnum]()},
		{"enum", `{"enum":[1,{"a":[1]}]}`, `{"a":[1.0]}`, `{"a":[2]}`, nil},
		{"const", `{"const":"fixed"}`, `"fixed"`, `"other"`, typed[tConst]()},
		{"const", `{"const":1}`, `1.0`, `1.5`, nil},
		{"minimum", `{"type":"integer","minimum":1}`, `1`, `0`, typed[tMinimum]()},
		{"maximum", `{"type":"integer","maximum":14}`, `14`, `15`, typed[tMaximum]()},
		{"maximum", `{"type":"integer","maximum":9007199254740992}`, `9007199254740992`, `9007199254740993`, nil},
		{"exclusiveMinimum", `{"type":"number","exclusiveMinimum":0}`, `0.001`, `0`, typed[tXMin]()},
		{"exclusiveMaximum", `{"type":"number","exclusiveMaximum":1}`, `0.999`, `1`, typed[tXMax]()},
		{"multipleOf", `{"type":"number","multipleOf":0.1}`, `0.3`, `0.35`, typed[tMultipleOf]()},
		{"minLength", `{"type":"string","minLength":2}`, `"éé"`, `"é"`, typed[tMinLength]()},
		{"maxLength", `{"type":"string","maxLength":3}`, `"日本語"`, `"日本語!"`, typed[tMaxLength]()},
		{"pattern", `{"type":"string","pattern":"^[a-z]+$"}`, `"abc"`, `"ab1"`, typed[tPattern]()},
		{"pattern", `{"type":"string","pattern":"b"}`, `"abc"`, `"ac"`, nil},
		{"format", `{"type":"string","format":"date-time"}`, `"2026-11-24T10:00:00Z"`, `"tomorrow"`, typed[tFormat]()},
		{"format", `{"type":"string","format":"uuid"}`, `"123e4567-e89b-12d3-a456-426614174000"`, `"123"`, nil},
		{"minItems", `{"type":"array","minItems":1}`, `[1]`, `[]`, typed[tMinItems]()},
		{"maxItems", `{"type":"array","maxItems":2}`, `[1,2]`, `[1,2,3]`, typed[tMaxItems]()},
		{"uniqueItems", `{"type":"array","uniqueItems":true}`, `[1,2]`, `[1,1.0]`, typed[tUniqueItems]()},
		{"items", `{"type":"array","items":{"type":"string"}}`, `["a"]`, `["a",1]`, nil},
		{"prefixItems", `{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a",1,true]`, `[1,"a"]`, nil},
		{"contains", `{"type":"array","contains":{"const":"x"}}`, `["a","x"]`, `["a"]`, typed[tContains]()},
		{"minContains", `{"type":"array","contains":{"const":"x"},"minContains":2}`, `["x","x"]`, `["x"]`, nil},
		{"maxContains", `{"type":"array","contains":{"const":"x"},"maxContains":1}`, `["x"]`, `["x","x"]`, nil},
		{"properties", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"x"}`, `{"a":1}`, nil},
		{"required", `{"type":"object","required":["a"]}`, `{"a":1}`, `{}`, nil},
		{"additionalProperties", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1}`, `{"b":1}`, nil},
		{"additionalProperties", `{"type":"object","additionalProperties":{"type":"integer"}}`, `{"b":1}`, `{"b":"1"}`, nil},
		{"patternProperties", `{"type":"object","patternProperties":{"^n_":{"type":"number"}}}`, `{"n_a":1,"x":"y"}`, `{"n_a":"1"}`, nil},
		{"minProperties", `{"type":"object","minProperties":1}`, `{"a":1}`, `{}`, typed[tMinProps]()},
		{"maxProperties", `{"type":"object","maxProperties":1}`, `{"a":1}`, `{"a":1,"b":2}`, nil},
		{"dependentRequired", `{"type":"object","dependentRequired":{"a":["b"]}}`, `{"a":1,"b":2}`, `{"a":1}`, typed[tDepReq]()},
		{"dependentSchemas", `{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`, `{"b":2}`, `{"a":1}`, nil},
		{"propertyNames", `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ab":1}`, `{"A":1}`, typed[tPropNames]()},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `1`, `true`, nil},
		{"oneOf", `{"oneOf":[{"type":"integer"},{"type":"number","minimum":5}]}`, `1`, `7`, typed[tOneOf]()},
		{"allOf", `{"allOf":[{"type":"integer"},{"minimum":2}]}`, `2`, `1`, nil},
		{"not", `{"not":{"type":"string"}}`, `1`, `"s"`, typed[tNot]()},
		{"if", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"integer"}}`, `"ab"`, `"a"`, typed[tIf]()},
		{"else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"integer"}}`, `3`, `true`, nil},
		{"$ref", `{"$ref":"#/$defs/pos"}`, `1`, `-1`, nil},
		{"$ref recursive", `{"$ref":"#/$defs/list"}`, `{"next":{"next":{}}}`, `{"next":{"next":{"x":1}}}`, nil},
		{"boolean schema", `false`, ``, `1`, nil},
	} {
		name := tc.keyword + " " + tc.schema
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			schema := `{"type":"object","properties":{"v":` + tc.schema + `},"$defs":{"pos":{"type":"integer","minimum":0},` +
				`"list":{"type":"object","properties":{"next":{"$ref":"#/$defs/list"}},"additionalProperties":false}}}`
			hand, err := toolcall.NewTool(chat.ToolDefinition{Name: "t", InputSchema: json.RawMessage(schema)},
				func(context.Context, json.RawMessage) (string, error) { return "ran", nil })
			require.NoError(t, err)
			tools := []toolcall.Tool{hand}
			if tc.typed != nil {
				tools = append(tools, tc.typed)
			}
			for _, tool := range tools {
				if tc.accept != "" {
					got := execute(t, tool, `{"v":`+tc.accept+`}`)
					assert.False(t, got.IsError, "%T accepts %s: %s", tool, tc.accept, got.Result)
				}
				got := execute(t, tool, `{"v":`+tc.reject+`}`)
				require.True(t, got.IsError, "%T rejects %s", tool, tc.reject)
				var ae *toolcall.ArgumentError
				require.ErrorAs(t, got.Err, &ae)
				assert.True(t, strings.HasPrefix(ae.Violations[0].Path, "v"), "path %q", ae.Violations[0].Path)
				assert.NotEqual(t, "ran", got.Result)
			}
		})
	}
}

func execute(t *testing.T, tool toolcall.Tool, args string) toolcall.ToolExecution {
	t.Helper()
	ex, err := toolcall.NewManager().Execute(context.Background(), []toolcall.Tool{tool},
		&chat.Request{Messages: []chat.Message{chat.UserMessage("go")}},
		&chat.Response{Message: chat.AssistantMessage("", tt.Call("c1", "t", args))})
	require.NoError(t, err)
	return ex.Executions[0]
}
