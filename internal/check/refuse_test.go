package check

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notJSONTails are encoding/json's errors for the truncated input "{":
// the classic decoder's, and that of encoding/json/v2's v1 emulation, the
// default from Go 1.27.
var notJSONTails = []string{"EOF", "unexpected end of JSON input"}

func TestRefuse(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{"lookahead nested", `{"properties":{"options":{"properties":{"path":{"type":"string","pattern":"^(?!\\.\\.).*$"}}}}}`,
			`parameter options.path: keyword "pattern": pattern "^(?!\.\.).*$" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`},
		{"lookbehind", `{"pattern":"(?<=a)b"}`, `keyword "pattern": pattern "(?<=a)b" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`},
		{"backreference", `{"pattern":"(a)\\1"}`, `keyword "pattern": pattern "(a)\1" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`},
		{"bad pattern", `{"pattern":"(a"}`, "keyword \"pattern\": pattern \"(a\" is not supported: Go's regexp (RE2) rejects it: missing closing ): (a"},
		{"patternProperties lookahead", `{"patternProperties":{"^(?!x)":{}}}`, `keyword "patternProperties": pattern "^(?!x)" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them`},
		{"pattern not string", `{"pattern":1}`, `keyword "pattern": must be a string`},
		{"minLenght", `{"properties":{"name":{"minLenght":3}}}`, `parameter name: keyword "minLenght": unknown keyword; did you mean "minLength"?`},
		{"tpye", `{"tpye":"string"}`, `keyword "tpye": unknown keyword; did you mean "type"?`},
		{"unknown", `{"frobnicate":true}`, `keyword "frobnicate": unknown keyword`},
		{"nullable", `{"properties":{"a":{"type":"string","nullable":true}}}`, `parameter a: keyword "nullable": not JSON Schema (it is OpenAPI 3.0); allow null with a type array such as ["string", "null"]`},
		{"bad $schema", `{"$schema":"http://json-schema.org/draft-04/schema#"}`, `keyword "$schema": unsupported dialect "http://json-schema.org/draft-04/schema#"; use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#"`},
		{"nested $schema", `{"properties":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}}`, `parameter a: keyword "$schema": only allowed at the root of the schema`},
		{"nested $id", `{"properties":{"a":{"$id":"x"}}}`, `parameter a: keyword "$id": only allowed at the root of the schema; embedded schema resources are not supported`},
		{"remote $ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, `parameter a: keyword "$ref": remote reference "https://example.com/s.json" is not supported; only local references such as "#/$defs/Name" are`},
		{"relative $ref", `{"$ref":"other.json#/x"}`, `keyword "$ref": remote reference "other.json#/x" is not supported; only local references such as "#/$defs/Name" are`},
		{"anchor $ref", `{"$ref":"#node"}`, `keyword "$ref": anchor reference "#node" is not supported; use a JSON pointer such as "#/$defs/Name"`},
		{"dangling $ref", `{"$ref":"#/$defs/Missing"}`, `keyword "$ref": reference "#/$defs/Missing" points to nothing in this schema`},
		{"$ref to data", `{"$ref":"#/$defs/A/enum","$defs":{"A":{"enum":[1]}}}`, `keyword "$ref": reference "#/$defs/A/enum" points to a value of type array, not to a schema`},
		{"$ref cycle", `{"properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}`, `parameter $defs.A: keyword "$ref": reference "#/$defs/A" loops back to itself without reading any input`},
		{"$ref cycle through anyOf", `{"$defs":{"A":{"anyOf":[{"$ref":"#/$defs/B"}]},"B":{"allOf":[{"$ref":"#/$defs/A"}]}}}`, `parameter $defs.B.allOf[0]: keyword "$ref": reference "#/$defs/A" loops back to itself without reading any input`},
		{"$ref not string", `{"$ref":1}`, `keyword "$ref": must be a string`},
		{"unevaluatedProperties", `{"properties":{"o":{"unevaluatedProperties":false}}}`, `parameter o: keyword "unevaluatedProperties": not supported; list the allowed fields with "properties" and "additionalProperties"`},
		{"unevaluatedItems", `{"unevaluatedItems":false}`, `keyword "unevaluatedItems": not supported; use "prefixItems" and "items"`},
		{"$anchor", `{"$defs":{"N":{"$anchor":"n"}}}`, `parameter $defs.N: keyword "$anchor": not supported; refer to subschemas with a JSON pointer such as "#/$defs/Name"`},
		{"$dynamicRef", `{"$dynamicRef":"#n"}`, `keyword "$dynamicRef": not supported; use "$ref" with a JSON pointer such as "#/$defs/Name"`},
		{"$recursiveRef", `{"$recursiveRef":"#"}`, `keyword "$recursiveRef": not supported; use "$ref" with a JSON pointer such as "#/$defs/Name"`},
		{"$vocabulary", `{"$vocabulary":{}}`, `keyword "$vocabulary": not supported; only the standard vocabularies are`},
		{"items array 2020-12", `{"properties":{"p":{"items":[{"type":"string"}]}}}`, `parameter p: keyword "items": an array of schemas is the draft-07 form; in draft 2020-12 use "prefixItems" for the leading items and "items" for the rest`},
		{"additionalItems 2020-12", `{"additionalItems":false}`, `keyword "additionalItems": not supported in draft 2020-12; use "prefixItems" for the leading items and "items" for the rest`},
		{"dependencies 2020-12", `{"dependencies":{"a":["b"]}}`, `keyword "dependencies": not supported in draft 2020-12; use "dependentRequired" or "dependentSchemas"`},
		{"draft-07 prefixItems", `{` + d7 + `"properties":{"a":{"prefixItems":[{"type":"string"}]}}}`, `parameter a: keyword "prefixItems": not a draft-07 keyword; declare "$schema": "https://json-schema.org/draft/2020-12/schema" to use it`},
		{"draft-07 dependentRequired", `{` + d7 + `"dependentRequired":{"a":["b"]}}`, `keyword "dependentRequired": not a draft-07 keyword; declare "$schema": "https://json-schema.org/draft/2020-12/schema" to use it`},
		{"draft-07 $ref siblings", `{` + d7 + `"properties":{"a":{"$ref":"#/definitions/N","maxLength":3}},"definitions":{"N":{"type":"string"}}}`, `parameter a: keyword "$ref": draft-07 ignores keywords next to "$ref", so "maxLength" would not be enforced; move them into an "allOf" with the "$ref"`},
		{"minLength negative", `{"minLength":-1}`, `keyword "minLength": must be a non-negative integer, got -1`},
		{"minLength fraction", `{"minLength":1.5}`, `keyword "minLength": must be a non-negative integer, got 1.5`},
		{"maxItems string", `{"maxItems":"3"}`, `keyword "maxItems": must be a non-negative integer, got "3"`},
		{"type unknown", `{"properties":{"n":{"type":"int"}}}`, `parameter n: keyword "type": unknown type "int"; use object, array, string, number, integer, boolean or null`},
		{"type twice", `{"type":["string","string"]}`, `keyword "type": type "string" is listed twice`},
		{"type not string", `{"type":3}`, `keyword "type": must be a type name or an array of type names`},
		{"type empty", `{"type":[]}`, `keyword "type": must not be an empty array`},
		{"required not array", `{"required":"a"}`, `keyword "required": must be an array of unique strings`},
		{"required duplicate", `{"required":["a","a"]}`, `keyword "required": must be an array of unique strings`},
		{"enum not array", `{"enum":"a"}`, `keyword "enum": must be a non-empty array`},
		{"multipleOf zero", `{"multipleOf":0}`, `keyword "multipleOf": must be a number greater than 0, got 0`},
		{"minimum string", `{"minimum":"1"}`, `keyword "minimum": must be a number, got string`},
		{"exclusiveMinimum draft-04", `{"minimum":0,"exclusiveMinimum":true}`, `keyword "exclusiveMinimum": must be a number; the boolean form is draft-04: write the bound itself, e.g. "exclusiveMinimum": 0, instead of "minimum" with "exclusiveMinimum": true`},
		{"uniqueItems not bool", `{"uniqueItems":1}`, `keyword "uniqueItems": must be a boolean`},
		{"format not string", `{"format":1}`, `keyword "format": must be a string`},
		{"anyOf empty", `{"properties":{"v":{"anyOf":[]}}}`, `parameter v: keyword "anyOf": must be a non-empty array of schemas`},
		{"bad subschema", `{"properties":{"v":{"anyOf":[{},3]}}}`, `parameter v.anyOf[1]: a schema must be an object or a boolean, got number`},
		{"bad nested keyword paths", `{"properties":{"tags":{"items":{"minLenght":1}}}}`, `parameter tags[]: keyword "minLenght": unknown keyword; did you mean "minLength"?`},
		{"additionalProperties path", `{"properties":{"options":{"additionalProperties":{"nullable":true}}}}`, `parameter options.additionalProperties: keyword "nullable": not JSON Schema (it is OpenAPI 3.0); allow null with a type array such as ["string", "null"]`},
		{"prefixItems path", `{"properties":{"pair":{"prefixItems":[{},{"tpye":"x"}]}}}`, `parameter pair[1]: keyword "tpye": unknown keyword; did you mean "type"?`},
		{"$defs path", `{"$defs":{"Node":{"properties":{"next":{"minLenght":1}}}}}`, `parameter $defs.Node.next: keyword "minLenght": unknown keyword; did you mean "minLength"?`},
		{"if path", `{"if":{"bogus":1}}`, `parameter if: keyword "bogus": unknown keyword`},
		{"not path", `{"not":{"maxLenght":1}}`, `parameter not: keyword "maxLenght": unknown keyword; did you mean "maxLength"?`},
		{"dependentRequired bad", `{"dependentRequired":{"a":"b"}}`, `keyword "dependentRequired": must be an object whose values are arrays of unique strings`},
		{"properties not object", `{"properties":[]}`, `keyword "properties": must be an object`},
		{"duplicate keyword", `{"type":"string","type":"integer"}`, `keyword "type": keyword appears twice`},
		{"not a schema", `[]`, `a schema must be an object or a boolean, got array`},
		// The tail is encoding/json's error, which depends on the toolchain:
		// see notJSONTails.
		{"not JSON", `{`, `schema is not valid JSON: `},
	}
	require.GreaterOrEqual(t, len(tests), 40)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema))
			require.Nil(t, s)
			require.Error(t, err)
			var se *SchemaError
			require.True(t, errors.As(err, &se))
			if tt.name == "not JSON" {
				require.True(t, strings.HasPrefix(err.Error(), tt.want), err.Error())
				assert.Contains(t, notJSONTails, strings.TrimPrefix(err.Error(), tt.want))
				return
			}
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestAccept(t *testing.T) {
	for _, s := range []string{
		`true`, `false`, `{}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#","$id":"urn:x"}`,
		`{"$schema":"http://json-schema.org/draft/2020-12/schema"}`,
		`{"$schema":"https://json-schema.org/draft-07/schema"}`,
		`{"title":"t","description":"d","examples":[{"minLenght":1}],"default":{"nullable":1},"deprecated":true,"readOnly":false,"writeOnly":false,"$comment":"c","contentEncoding":"base64","contentMediaType":"image/png","contentSchema":{"bogus":1},"x-vendor":{"anything":1}}`,
		`{"const":{"$ref":"https://remote"},"enum":[{"unevaluatedProperties":1}]}`,
		`{"format":"email"}`,
		`{"then":{"type":"string"}}`,
		`{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"next":{"$ref":"#/$defs/A"}}}}}`,
	} {
		_, err := Compile([]byte(s))
		assert.NoError(t, err, s)
	}
}

func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		cmp  int
	}{
		{"1", "1.0", 0}, {"1", "1e0", 0}, {"100", "1e2", 0}, {"0.05", "5e-2", 0}, {"-0", "0", 0},
		{"9007199254740993", "9007199254740992", 1}, {"-1", "1", -1}, {"-2", "-1", -1},
		{"0.1", "0.10000000000000000001", -1}, {"1e400", "1e399", 1}, {"-1e-400", "0", -1},
	} {
		got := cmpDecimal(parseDecimal([]byte(tt.a)), parseDecimal([]byte(tt.b)))
		assert.Equal(t, tt.cmp, got, "%s vs %s", tt.a, tt.b)
	}
	for _, tt := range []struct {
		x, m string
		ok   bool
	}{
		{"0.3", "0.1", true}, {"0.35", "0.1", false}, {"1e400", "0.1", true}, {"1e-400", "0.1", false},
		{"12345678901234567890", "5", true}, {"12345678901234567891", "5", false}, {"4.5", "1.5", true},
		{"1e999999999", "3", false}, {"7e999999999", "7", true},
	} {
		assert.Equal(t, tt.ok, isMultiple(parseDecimal([]byte(tt.x)), parseDecimal([]byte(tt.m))), "%s %% %s", tt.x, tt.m)
	}
}
