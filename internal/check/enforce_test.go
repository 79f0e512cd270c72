package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func vio(path, rule, msg string) Violation { return Violation{Path: path, Rule: rule, Message: msg} }

// prop wraps a subschema as property "x" of an object, so paths are visible.
func prop(s string) string { return `{"type":"object","properties":{"x":` + s + `}}` }

func TestEnforce(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		args   string
		want   []Violation
	}{
		{"type ok", prop(`{"type":"integer"}`), `{"x":3}`, nil},
		{"type string for integer", prop(`{"type":"integer"}`), `{"x":"3"}`, []Violation{vio("x", "type", "expected integer, got string")}},
		{"type fraction for integer", prop(`{"type":"integer"}`), `{"x":2.5}`, []Violation{vio("x", "type", "expected integer, got 2.5")}},
		{"integer 2.0", prop(`{"type":"integer"}`), `{"x":2.0}`, nil},
		{"integer 1e3", prop(`{"type":"integer"}`), `{"x":1e3}`, nil},
		{"integer 1e400", prop(`{"type":"integer"}`), `{"x":1e400}`, nil},
		{"type array ok", prop(`{"type":["string","null"]}`), `{"x":null}`, nil},
		{"type array bad", prop(`{"type":["string","null"]}`), `{"x":1}`, []Violation{vio("x", "type", "expected string or null, got number")}},
		{"required ok", `{"required":["a"]}`, `{"a":1}`, nil},
		{"required missing", `{"type":"object","required":["a","b"]}`, `{"a":1}`, []Violation{vio("b", "required", "required field is missing")}},
		{"additionalProperties false ok", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1}`, nil},
		{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, []Violation{vio("b", "additionalProperties", "unknown field; remove it")}},
		{"additionalProperties schema ok", `{"additionalProperties":{"type":"string"}}`, `{"a":"s"}`, nil},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"a":1}`, []Violation{vio("a", "type", "expected string, got number")}},
		{"nested path", `{"properties":{"options":{"properties":{"days":{"type":"integer"}}}}}`, `{"options":{"days":"x"}}`, []Violation{vio("options.days", "type", "expected integer, got string")}},
		{"items ok", prop(`{"items":{"type":"string"}}`), `{"x":["a","b"]}`, nil},
		{"items bad", prop(`{"items":{"type":"string"}}`), `{"x":["a","b",3]}`, []Violation{vio("x[2]", "type", "expected string, got number")}},
		{"prefixItems ok", prop(`{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`), `{"x":["a",1]}`, nil},
		{"prefixItems bad", prop(`{"prefixItems":[{"type":"string"},{"type":"integer"}]}`), `{"x":["a","b"]}`, []Violation{vio("x[1]", "type", "expected integer, got string")}},
		{"items false after prefix", prop(`{"prefixItems":[{"type":"string"}],"items":false}`), `{"x":["a",1]}`, []Violation{vio("x[1]", "not", "no value is allowed here")}},
		{"enum ok", prop(`{"enum":["C","F"]}`), `{"x":"C"}`, nil},
		{"enum bad", prop(`{"enum":["C","F"]}`), `{"x":"K"}`, []Violation{vio("x", "enum", `must be one of "C", "F"`)}},
		{"enum escaped string", prop(`{"enum":["é"]}`), `{"x":"\u00e9"}`, nil},
		{"enum number by value", prop(`{"enum":[1,2]}`), `{"x":1.0}`, nil},
		{"enum object order ignored", prop(`{"enum":[{"a":1,"b":[true]}]}`), `{"x":{"b":[true],"a":10e-1}}`, nil},
		{"enum object bad", prop(`{"enum":[{"a":1}]}`), `{"x":{"a":2}}`, []Violation{vio("x", "enum", `must be one of {"a":1}`)}},
		{"const ok", prop(`{"const":"on"}`), `{"x":"on"}`, nil},
		{"const bad", prop(`{"const":"on"}`), `{"x":"off"}`, []Violation{vio("x", "const", `must be "on"`)}},
		{"const null", prop(`{"const":null}`), `{"x":false}`, []Violation{vio("x", "const", `must be null`)}},
		{"minimum ok", prop(`{"minimum":1}`), `{"x":1}`, nil},
		{"minimum bad", prop(`{"minimum":1}`), `{"x":0.5}`, []Violation{vio("x", "minimum", "must be >= 1")}},
		{"maximum exact big", prop(`{"maximum":9007199254740992}`), `{"x":9007199254740993}`, []Violation{vio("x", "maximum", "must be <= 9007199254740992")}},
		{"maximum exact ok", prop(`{"maximum":9007199254740992}`), `{"x":9007199254740992.0}`, nil},
		{"maximum huge exponent", prop(`{"maximum":14}`), `{"x":1e400}`, []Violation{vio("x", "maximum", "must be <= 14")}},
		{"exclusiveMinimum ok", prop(`{"exclusiveMinimum":0}`), `{"x":0.0001}`, nil},
		{"exclusiveMinimum bad", prop(`{"exclusiveMinimum":0}`), `{"x":-0}`, []Violation{vio("x", "exclusiveMinimum", "must be > 0")}},
		{"exclusiveMaximum ok", prop(`{"exclusiveMaximum":1}`), `{"x":0.99999999999999999999}`, nil},
		{"exclusiveMaximum bad", prop(`{"exclusiveMaximum":1}`), `{"x":1.00000000000000000000}`, []Violation{vio("x", "exclusiveMaximum", "must be < 1")}},
		{"multipleOf decimal ok", prop(`{"multipleOf":0.1}`), `{"x":0.3}`, nil},
		{"multipleOf decimal bad", prop(`{"multipleOf":0.1}`), `{"x":0.35}`, []Violation{vio("x", "multipleOf", "must be a multiple of 0.1")}},
		{"multipleOf big ok", prop(`{"multipleOf":7}`), `{"x":7e400}`, nil},
		{"multipleOf big bad", prop(`{"multipleOf":3}`), `{"x":1e400}`, []Violation{vio("x", "multipleOf", "must be a multiple of 3")}},
		{"minLength code points", prop(`{"minLength":2}`), `{"x":"日本"}`, nil},
		{"minLength bad", prop(`{"minLength":2}`), `{"x":"日"}`, []Violation{vio("x", "minLength", "must be at least 2 characters long")}},
		{"maxLength ok", prop(`{"maxLength":3}`), `{"x":"\ud83d\ude00ab"}`, nil},
		{"maxLength bad", prop(`{"maxLength":3}`), `{"x":"abcd"}`, []Violation{vio("x", "maxLength", "must be at most 3 characters long")}},
		{"pattern unanchored ok", prop(`{"pattern":"b+"}`), `{"x":"abbc"}`, nil},
		{"pattern bad", prop(`{"pattern":"^[a-z]+$"}`), `{"x":"A1"}`, []Violation{vio("x", "pattern", "must match the pattern ^[a-z]+$")}},
		{"minItems ok", prop(`{"minItems":1}`), `{"x":[1]}`, nil},
		{"minItems bad", prop(`{"minItems":1}`), `{"x":[]}`, []Violation{vio("x", "minItems", "must have at least 1 items")}},
		{"maxItems bad", prop(`{"maxItems":1}`), `{"x":[1,2]}`, []Violation{vio("x", "maxItems", "must have at most 1 items")}},
		{"uniqueItems ok", prop(`{"uniqueItems":true}`), `{"x":[1,"1",[1],{"a":1}]}`, nil},
		{"uniqueItems bad", prop(`{"uniqueItems":true}`), `{"x":[{"a":1,"b":2},3,{"b":2,"a":1.0}]}`, []Violation{vio("x", "uniqueItems", "items must be unique, but items 0 and 2 are equal")}},
		{"contains ok", prop(`{"contains":{"const":3}}`), `{"x":[1,3]}`, nil},
		{"contains bad", prop(`{"contains":{"const":3}}`), `{"x":[1,2]}`, []Violation{vio("x", "contains", `must contain an item that matches the "contains" schema`)}},
		{"minContains bad", prop(`{"contains":{"type":"string"},"minContains":2}`), `{"x":["a",1]}`, []Violation{vio("x", "minContains", `must contain at least 2 items that match the "contains" schema`)}},
		{"maxContains bad", prop(`{"contains":{"type":"string"},"maxContains":1}`), `{"x":["a","b"]}`, []Violation{vio("x", "maxContains", `must contain at most 1 items that match the "contains" schema`)}},
		{"minContains zero ok", prop(`{"contains":{"type":"string"},"minContains":0}`), `{"x":[]}`, nil},
		{"minProperties bad", prop(`{"minProperties":1}`), `{"x":{}}`, []Violation{vio("x", "minProperties", "must have at least 1 fields")}},
		{"maxProperties bad", prop(`{"maxProperties":1}`), `{"x":{"a":1,"b":2}}`, []Violation{vio("x", "maxProperties", "must have at most 1 fields")}},
		{"maxProperties ok", prop(`{"maxProperties":1}`), `{"x":{"a":1}}`, nil},
		{"dependentRequired ok", `{"dependentRequired":{"card":["cvc"]}}`, `{"card":"1","cvc":"2"}`, nil},
		{"dependentRequired bad", `{"dependentRequired":{"card":["cvc"]}}`, `{"card":"1"}`, []Violation{vio("cvc", "dependentRequired", `required when "card" is present`)}},
		{"dependentSchemas ok", `{"dependentSchemas":{"card":{"required":["cvc"]}}}`, `{"x":1}`, nil},
		{"dependentSchemas bad", `{"dependentSchemas":{"card":{"required":["cvc"]}}}`, `{"card":1}`, []Violation{vio("cvc", "required", "required field is missing")}},
		{"propertyNames ok", prop(`{"propertyNames":{"pattern":"^[a-z]+$"}}`), `{"x":{"ab":1}}`, nil},
		{"propertyNames bad", prop(`{"propertyNames":{"maxLength":2}}`), `{"x":{"abc":1}}`, []Violation{vio("x.abc", "propertyNames", "field name: must be at most 2 characters long")}},
		{"anyOf ok", prop(`{"anyOf":[{"type":"string"},{"type":"integer"}]}`), `{"x":3}`, nil},
		{"anyOf bad", prop(`{"anyOf":[{"type":"string"},{"type":"integer"}]}`), `{"x":true}`, []Violation{vio("x", "type", "expected string, got boolean")}},
		{"oneOf ok", prop(`{"oneOf":[{"type":"string"},{"type":"integer"}]}`), `{"x":3}`, nil},
		{"oneOf two match", prop(`{"oneOf":[{"type":"number"},{"type":"integer"}]}`), `{"x":3}`, []Violation{vio("x", "oneOf", "must match exactly one schema in oneOf, but matches 0 and 1")}},
		{"oneOf none", prop(`{"oneOf":[{"minimum":5},{"maximum":1}]}`), `{"x":3}`, []Violation{vio("x", "minimum", "must be >= 5")}},
		{"allOf ok", prop(`{"allOf":[{"minimum":1},{"maximum":5}]}`), `{"x":3}`, nil},
		{"allOf bad", prop(`{"allOf":[{"minimum":1},{"maximum":5}]}`), `{"x":6}`, []Violation{vio("x", "maximum", "must be <= 5")}},
		{"not ok", prop(`{"not":{"type":"string"}}`), `{"x":1}`, nil},
		{"not bad", prop(`{"not":{"type":"string"}}`), `{"x":"s"}`, []Violation{vio("x", "not", `must not match the "not" schema`)}},
		{"if then ok", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`, `{"k":"a","a":1}`, nil},
		{"if then bad", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`, `{"k":"a","b":1}`, []Violation{vio("a", "required", "required field is missing")}},
		{"if else bad", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`, `{"k":"z","a":1}`, []Violation{vio("b", "required", "required field is missing")}},
		{"patternProperties ok", `{"patternProperties":{"^n_":{"type":"number"}},"additionalProperties":false}`, `{"n_a":1}`, nil},
		{"patternProperties bad", `{"patternProperties":{"^n_":{"type":"number"}},"additionalProperties":false}`, `{"n_a":"s","b":1}`, []Violation{vio("n_a", "type", "expected number, got string"), vio("b", "additionalProperties", "unknown field; remove it")}},
		{"patternProperties and properties both apply", `{"properties":{"n_a":{"minimum":0}},"patternProperties":{"^n_":{"maximum":5}}}`, `{"n_a":6}`, []Violation{vio("n_a", "maximum", "must be <= 5")}},
		{"false schema", prop(`false`), `{"x":1}`, []Violation{vio("x", "not", "no value is allowed here")}},
		{"true schema", prop(`true`), `{"x":[{"a":null}]}`, nil},
		{"ref defs ok", `{"properties":{"x":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"integer"}}}`, `{"x":1}`, nil},
		{"ref defs bad", `{"properties":{"x":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"integer"}}}`, `{"x":"a"}`, []Violation{vio("x", "type", "expected integer, got string")}},
		{"ref escaped pointer", `{"properties":{"x":{"$ref":"#/$defs/a~1b%25c~0"}},"$defs":{"a/b%c~":{"type":"integer"}}}`, `{"x":"a"}`, []Violation{vio("x", "type", "expected integer, got string")}},
		{"ref recursive", `{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`, `{"next":{"next":{"v":"a"}}}`, []Violation{vio("next.next.v", "type", "expected integer, got string")}},
		{"ref with siblings 2020-12", `{"properties":{"x":{"$ref":"#/$defs/N","maximum":3}},"$defs":{"N":{"type":"integer"}}}`, `{"x":4}`, []Violation{vio("x", "maximum", "must be <= 3")}},
		{"definitions", `{"properties":{"x":{"$ref":"#/definitions/N"}},"definitions":{"N":{"type":"integer"}}}`, `{"x":"a"}`, []Violation{vio("x", "type", "expected integer, got string")}},
		{"format date-time ok", prop(`{"format":"date-time"}`), `{"x":"2024-02-29T10:00:00+01:00"}`, nil},
		{"format date-time bad", prop(`{"format":"date-time"}`), `{"x":"2024-02-29 10:00"}`, []Violation{vio("x", "format", "must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z")}},
		{"format date ok", prop(`{"format":"date"}`), `{"x":"2024-02-29"}`, nil},
		{"format date bad", prop(`{"format":"date"}`), `{"x":"2023-02-29"}`, []Violation{vio("x", "format", "must be an RFC 3339 date such as 2006-01-02")}},
		{"format time ok", prop(`{"format":"time"}`), `{"x":"10:20:30.5Z"}`, nil},
		{"format time bad", prop(`{"format":"time"}`), `{"x":"10:20"}`, []Violation{vio("x", "format", "must be an RFC 3339 time such as 15:04:05Z or 15:04:05+02:00")}},
		{"format uuid ok", prop(`{"format":"uuid"}`), `{"x":"123e4567-e89b-12d3-a456-426614174000"}`, nil},
		{"format uuid bad", prop(`{"format":"uuid"}`), `{"x":"123e4567e89b12d3a456426614174000"}`, []Violation{vio("x", "format", "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000")}},
		{"format ipv4 ok", prop(`{"format":"ipv4"}`), `{"x":"192.0.2.1"}`, nil},
		{"format ipv4 bad", prop(`{"format":"ipv4"}`), `{"x":"192.0.2.01"}`, []Violation{vio("x", "format", "must be an IPv4 address such as 192.0.2.1")}},
		{"format ipv6 ok", prop(`{"format":"ipv6"}`), `{"x":"2001:db8::1"}`, nil},
		{"format ipv6 bad", prop(`{"format":"ipv6"}`), `{"x":"192.0.2.1"}`, []Violation{vio("x", "format", "must be an IPv6 address such as 2001:db8::1")}},
		{"format annotation", prop(`{"format":"email"}`), `{"x":"not an email"}`, nil},
		{"string keywords skip numbers", prop(`{"minLength":5,"pattern":"^a"}`), `{"x":1}`, nil},
		{"object keywords skip strings", prop(`{"required":["a"],"minProperties":1}`), `{"x":"s"}`, nil},
		{"array keywords skip objects", prop(`{"minItems":1,"uniqueItems":true}`), `{"x":{}}`, nil},
		{"duplicate key", `{}`, `{"a":1,"a":2}`, []Violation{vio("a", "syntax", `arguments are not valid JSON: duplicate field "a"`)}},
		{"duplicate escaped key", prop(`{}`), `{"x":{"a":1,"\u0061":2}}`, []Violation{vio("x.a", "syntax", `arguments are not valid JSON: duplicate field "a"`)}},
		{"invalid UTF-8", `{}`, "{\"a\":\"\xff\"}", []Violation{vio("a", "syntax", "arguments are not valid JSON: invalid UTF-8 in string")}},
		{"unpaired surrogate", `{}`, `{"a":"\ud800"}`, []Violation{vio("a", "syntax", "arguments are not valid JSON: unpaired surrogate escape at byte 6")}},
		{"syntax", `{}`, `{"a":}`, []Violation{vio("a", "syntax", "arguments are not valid JSON: invalid character '}' at byte 5")}},
		{"trailing data", `{}`, `{} x`, []Violation{vio("", "syntax", "arguments are not valid JSON: data after the top-level value")}},
		{"null not allowed", prop(`{"type":"string"}`), `{"x":null}`, []Violation{vio("x", "type", "expected string, got null")}},
	}
	require.GreaterOrEqual(t, len(tests), 60)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema))
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Validate([]byte(tt.args)))
		})
	}
}

func TestDraft07(t *testing.T) {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	tests := []struct {
		name   string
		schema string
		args   string
		want   []Violation
	}{
		{"items array", `{` + d7 + `"items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`, `["a",1,"b"]`, []Violation{vio("[2]", "type", "expected integer, got string")}},
		{"dependencies array", `{` + d7 + `"dependencies":{"a":["b"]}}`, `{"a":1}`, []Violation{vio("b", "dependentRequired", `required when "a" is present`)}},
		{"dependencies schema", `{` + d7 + `"dependencies":{"a":{"properties":{"b":{"type":"string"}}}}}`, `{"a":1,"b":2}`, []Violation{vio("b", "type", "expected string, got number")}},
		{"ref with annotations", `{` + d7 + `"properties":{"x":{"$ref":"#/definitions/N","description":"d"}},"definitions":{"N":{"type":"integer"}}}`, `{"x":"a"}`, []Violation{vio("x", "type", "expected integer, got string")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema))
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Validate([]byte(tt.args)))
		})
	}
}

func TestLimits(t *testing.T) {
	s, err := Compile([]byte(`{"additionalProperties":{"type":"integer"}}`))
	require.NoError(t, err)
	many := []byte("{")
	for i := range 50000 {
		if i > 0 {
			many = append(many, ',')
		}
		many = append(many, `"k`...)
		many = append(many, []byte(itoa(i))...)
		many = append(many, `":1`...)
	}
	assert.Nil(t, s.Validate(append(many, '}')))
	dup := append(append([]byte(nil), many...), `,"k49999":2}`...)
	assert.Equal(t, []Violation{vio("k49999", "syntax", `arguments are not valid JSON: duplicate field "k49999"`)}, s.Validate(dup))

	deep := []byte(`{"a":`)
	for range MaxDepth + 1 {
		deep = append(deep, '[')
	}
	vs := s.Validate(deep)
	require.Len(t, vs, 1)
	assert.Equal(t, "syntax", vs[0].Rule)
	assert.Contains(t, vs[0].Message, "nesting deeper than 10000 levels")

	bad := []byte("[")
	for i := range 30 {
		if i > 0 {
			bad = append(bad, ',')
		}
		bad = append(bad, `"s"`...)
	}
	s2, err := Compile([]byte(`{"items":{"type":"integer"}}`))
	require.NoError(t, err)
	assert.Len(t, s2.Validate(append(bad, ']')), 10)

	assert.Equal(t, []byte("{}"), Normalize([]byte("  null ")))
	assert.Equal(t, []byte("{}"), Normalize(nil))
	assert.Equal(t, []byte(`{"a":1}`), Normalize([]byte(`{"a":1}`)))
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
