package tagcheck

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var methodKeys = []string{"tool", "name", "description", "returnDirect", "strict", "approval", "timeout", "converter", "params"}

func TestKeys(t *testing.T) {
	tests := []struct {
		name string
		tag  reflect.StructTag
		err  string
	}{
		{"empty", ``, ""},
		{"all known", `tool:"search" name:"find" description:"Finds, a thing" returnDirect:"true" strict:"true" timeout:"5s" converter:"c" params:"q"`, ""},
		{"escaped quote in value", `description:"say \"hi\""`, ""},
		{"extra spaces", `  tool:"a"   name:"b"  `, ""},
		{"misspelled description", `tool:"a" descripton:"Finds things"`, `unknown tag key "descripton" (did you mean "description"?)`},
		{"transposed returnDirect", `retrunDirect:"true"`, `unknown tag key "retrunDirect" (did you mean "returnDirect"?)`},
		{"case difference", `ReturnDirect:"true"`, `unknown tag key "ReturnDirect" (did you mean "returnDirect"?)`},
		{"all caps", `TIMEOUT:"1s"`, `unknown tag key "TIMEOUT" (did you mean "timeout"?)`},
		{"nothing close", `json:"x"`, `unknown tag key "json"`},
		{"duplicate key", `name:"a" name:"b"`, `duplicate tag key "name" (only the first is read)`},
		{"missing quotes", `name:find`, `malformed struct tag: want key:"value" at "name:find"`},
		{"space after colon", `name: "find"`, `malformed struct tag: want key:"value" at "name: \"find\""`},
		{"equals instead of colon", `name="find"`, `malformed struct tag: want key:"value" at "name=\"find\""`},
		{"unterminated", `name:"find`, `malformed struct tag: unterminated value of key "name"`},
		{"pairs not separated", `name:"a"tool:"b"`, `malformed struct tag: key:"value" pairs must be separated by spaces at "tool:\"b\""`},
		{"tab separator", "name:\"a\"\ttool:\"b\"", `malformed struct tag: key:"value" pairs must be separated by spaces at "\ttool:\"b\""`},
		{"bad escape", `name:"a\q"`, `malformed struct tag: value of key "name" is not a valid Go string: "a\q"`},
		{"malformed after a good pair", `name:"a" tool`, `malformed struct tag: want key:"value" at "tool"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Keys(tc.tag, methodKeys)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"descripton", methodKeys, "description"},
		{"retrunDirect", methodKeys, "returnDirect"},
		{"returndirect", methodKeys, "returnDirect"},
		{"RETURNDIRECT", methodKeys, "returnDirect"},
		{"Timeout", methodKeys, "timeout"},
		{"timeout", methodKeys, "timeout"},
		{"nmae", methodKeys, "name"},
		{"tol", methodKeys, "tool"},
		{"prams", methodKeys, "params"},
		{"Minimun", allKeywords, "minimum"},               // one letter plus case: 2
		{"MINIMUN", allKeywords, "minimum"},               // case counts once: 2
		{"Maxlenght", allKeywords, "maxLength"},           // transposition plus case: 2
		{"minimumm", allKeywords, "minimum"},              // insertion
		{"exclusiveMin", allKeywords, ""},                 // too far
		{"converters", methodKeys, "converter"},           // deletion
		{"paramz", []string{"params", "param"}, "params"}, // tie at 1 goes to the first
		{"xyz", methodKeys, ""},
		{"ab", []string{"id"}, ""}, // as far as the word is long
		{"", methodKeys, ""},
		{"name", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.word, func(t *testing.T) {
			assert.Equal(t, tc.want, Suggest(tc.word, tc.candidates))
		})
	}
}

// Keys must find the same keys reflect does for every well-formed tag.
func TestKeysMatchesLookup(t *testing.T) {
	tag := reflect.StructTag(`tool:"a" name:"b\"c" description:"x, y"`)
	keys, err := tagKeys(string(tag))
	require.NoError(t, err)
	for _, k := range keys {
		_, ok := tag.Lookup(k)
		assert.True(t, ok, k)
	}
	assert.Equal(t, []string{"tool", "name", "description"}, keys)
}

func TestMeantKey(t *testing.T) {
	for key, want := range map[string]string{
		"JSON": "json", "Json": "json", "json_schema": "jsonschema", "jsonschem": "jsonschema",
		"jsonSchema": "jsonschema", "JSONSchema": "jsonschema", "jsonshcema": "jsonschema",
		"jsonschema_extra": "jsonschema_extras", "jsonschema_descripton": "jsonschema_description",
		// One edit or transposition from json, in any case.
		"josn": "json", "jsno": "json", "sjon": "json", "jsn": "json", "son": "json", "jso": "json",
		"jon": "json", "jsonn": "json", "jjson": "json", "jsom": "json", "jspn": "json", "JOSN": "json",
		"Jsn": "json", "jsonb": "json", "json5": "json",
	} {
		assert.Equal(t, want, MeantKey(key), key)
	}
}

// Keys that this package reads, and keys other packages read, some of them
// one edit from json (bson, yson), are not typos.
func TestMeantKeyOtherPackages(t *testing.T) {
	for _, key := range []string{
		"json", "jsonschema", "jsonschema_description", "jsonschema_extras",
		"bson", "BSON", "yson", "yaml", "yml", "xml", "toml", "db", "validate", "form", "mapstructure",
		"gorm", "query", "binding", "msgpack", "protobuf", "cbor", "env", "envconfig", "csv", "url",
		"uri", "header", "param", "hcl", "ini", "avro", "dynamodbav", "datastore", "firestore",
		"bigquery", "spanner", "sql", "pg", "bun", "ch", "asn1", "example", "default", "description",
		"js", "schema", "jsonapi", "jsonld",
	} {
		assert.Empty(t, MeantKey(key), key)
	}
}
