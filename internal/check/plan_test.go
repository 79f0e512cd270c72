package check

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fOptions struct {
	Detailed bool   `json:"detailed"`
	Lang     string `json:"lang,omitempty"`
}

type fWeather struct {
	City    string   `json:"city"`
	Unit    string   `json:"unit"`
	Days    int      `json:"days"`
	Tags    []string `json:"tags,omitempty"`
	Options fOptions `json:"options"`
}

const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string", "minLength": 1},
    "unit": {"type": "string", "enum": ["C", "F"]},
    "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    "options": {
      "type": "object",
      "properties": {
        "detailed": {"type": "boolean"},
        "lang": {"type": "string", "pattern": "^[a-z]{2}$"}
      },
      "required": ["detailed"],
      "additionalProperties": false
    }
  },
  "required": ["city", "unit", "days", "options"],
  "additionalProperties": false
}`

type fNode struct {
	Name string         `json:"name"`
	Next *fNode         `json:"next,omitempty"`
	Vals map[string]int `json:"vals,omitempty"`
	Kind string         `json:"kind"`
}

const nodeSchema = `{
  "$ref": "#/$defs/Node",
  "$defs": {
    "Node": {
      "type": "object",
      "properties": {
        "name": {"type": "string"},
        "next": {"$ref": "#/$defs/Node"},
        "vals": {"type": "object", "additionalProperties": {"type": "integer", "multipleOf": 2}, "maxProperties": 2},
        "kind": {"anyOf": [{"const": "a"}, {"type": "string", "maxLength": 1}]}
      },
      "required": ["name"],
      "additionalProperties": false
    }
  }
}`

type fItem struct {
	ID   uint8   `json:"id"`
	Rate float32 `json:"rate"`
}

type fMixed struct {
	N     *int           `json:"n"`
	F     float64        `json:"f"`
	Items []fItem        `json:"items"`
	Any   any            `json:"any,omitempty"`
	When  time.Time      `json:"when"`
	Pair  []string       `json:"pair,omitempty"`
	Meta  map[string]any `json:"meta,omitempty"`
}

const mixedSchema = `{
  "type": "object",
  "properties": {
    "n": {"type": ["integer", "null"], "exclusiveMinimum": 0},
    "f": {"type": "number", "multipleOf": 0.5},
    "items": {"type": "array", "items": {
      "type": "object",
      "properties": {"id": {"type": "integer", "minimum": 0, "maximum": 255}, "rate": {"type": "number"}},
      "required": ["id"],
      "additionalProperties": false
    }, "uniqueItems": true},
    "any": true,
    "when": {"type": "string", "format": "date-time"},
    "pair": {"type": "array", "prefixItems": [{"const": "x"}], "items": {"type": "string"}},
    "meta": {"type": "object", "propertyNames": {"maxLength": 3}},
    "extra": {"type": "string"}
  },
  "required": ["n", "f", "when"],
  "additionalProperties": false
}`

func TestPlanAgreesWithValidate(t *testing.T) {
	cases := []struct {
		typ    reflect.Type
		schema string
		inputs []string
	}{
		{reflect.TypeFor[fWeather](), weatherSchema, []string{
			`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`,
			`{"city":"Oslo","unit":"F","days":14,"options":{"detailed":false}}`,
			`{"city":"Oslo","unit":"F","days":14.0,"options":{"detailed":false}}`,
			`{"city":"Oslo","unit":"F","days":1e1,"options":{"detailed":false}}`,
			`{"city":"","unit":"C","days":3,"options":{"detailed":true}}`,
			`{"city":"x","unit":"K","days":3,"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":0,"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":2.5,"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":"3","options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":true,"lang":"eng"}}`,
			`{"city":"x","unit":"C","days":3,"options":{}}`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":true,"x":1}}`,
			`{"city":"x","unit":"C","days":3,"options":null}`,
			`{"city":"x","unit":"C","days":3,"tags":null,"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":3,"tags":["a","b","c","d"],"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":3,"tags":[1],"options":{"detailed":true}}`,
			`{"city":null,"unit":"C","days":3,"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":true},"city":"y"}`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":true},"extra":1}`,
			`{"unit":"C","days":3,"options":{"detailed":true}}`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":"yes"}}`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":true}} x`,
			`{"city":"x","unit":"C","days":3,"options":{"detailed":true}`,
			`{"city":"\u00e9","unit":"\u0043","days":3,"options":{"detailed":true}}`,
			`[]`, `null`, `"s"`, `{}`, ``,
		}},
		{reflect.TypeFor[fNode](), nodeSchema, []string{
			`{"name":"a"}`,
			`{"name":"a","next":{"name":"b","next":{"name":"c"}}}`,
			`{"name":"a","next":{"next":{"name":"c"}}}`,
			`{"name":"a","next":null}`,
			`{"name":"a","next":{"name":"b","bogus":1}}`,
			`{"name":"a","vals":{"x":2,"y":4}}`,
			`{"name":"a","vals":{"x":3}}`,
			`{"name":"a","vals":{"x":2,"y":4,"z":6}}`,
			`{"name":"a","vals":{"x":2,"x":4}}`,
			`{"name":"a","vals":null}`,
			`{"name":"a","kind":"a"}`,
			`{"name":"a","kind":"b"}`,
			`{"name":"a","kind":"bc"}`,
			`{"name":"a","kind":1}`,
			`{"name":1}`,
		}},
		{reflect.TypeFor[fMixed](), mixedSchema, []string{
			`{"n":1,"f":1.5,"when":"2024-01-02T03:04:05Z"}`,
			`{"n":null,"f":1.5,"when":"2024-01-02T03:04:05Z"}`,
			`{"n":0,"f":1.5,"when":"2024-01-02T03:04:05Z"}`,
			`{"n":1,"f":1.25,"when":"2024-01-02T03:04:05Z"}`,
			`{"n":1,"f":1,"when":"yesterday"}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","items":[{"id":1},{"id":2,"rate":0.5}]}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","items":[{"id":1},{"id":1}]}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","items":[{"id":256}]}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","items":[{"rate":1}]}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","any":{"deep":[1,{"x":null}]}}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","pair":["x","y"]}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","pair":["y","y"]}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","meta":{"abc":1}}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","meta":{"abcd":1}}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","extra":"s"}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","extra":1}`,
			`{"n":1,"f":1,"when":"2024-01-02T03:04:05Z","other":1}`,
			`{"n":1.5,"f":1,"when":"2024-01-02T03:04:05Z"}`,
			`{"n":2e0,"f":1,"when":"2024-01-02T03:04:05Z"}`,
			`{"f":1,"when":"2024-01-02T03:04:05Z"}`,
			`{"n":1,"f":null,"when":"2024-01-02T03:04:05Z"}`,
		}},
	}
	total := 0
	for _, c := range cases {
		s, err := Compile([]byte(c.schema))
		require.NoError(t, err)
		p := s.Plan(c.typ)
		require.NotNil(t, p, c.typ.String())
		for _, in := range c.inputs {
			want := s.Validate([]byte(in))
			got := p.Decode([]byte(in), reflect.New(c.typ).Interface(), false)
			assert.Equal(t, len(want) == 0, len(got) == 0, "%s %s\nvalidate: %v\nplan: %v", c.typ, in, want, got)
			total++
		}
	}
	t.Logf("%d inputs", total)
}

func TestPlanDecodes(t *testing.T) {
	s, err := Compile([]byte(weatherSchema))
	require.NoError(t, err)
	p := s.Plan(reflect.TypeFor[fWeather]())
	require.NotNil(t, p)
	var w fWeather
	vs := p.Decode([]byte(`{"city":"K\u00f8benhavn","unit":"C","days":3.0,"tags":["a","b"],"options":{"detailed":true,"lang":"da"}}`), &w, false)
	require.Nil(t, vs)
	assert.Equal(t, fWeather{City: "København", Unit: "C", Days: 3, Tags: []string{"a", "b"}, Options: fOptions{Detailed: true, Lang: "da"}}, w)

	vs = p.Decode([]byte(`{"city":"x","unit":"K","days":3,"options":{"detailed":true,"x":1}}`), &w, false)
	assert.Equal(t, []Violation{
		vio("unit", "enum", `must be one of "C", "F"`),
		vio("options.x", "additionalProperties", "unknown field; remove it"),
	}, vs)

	s2, err := Compile([]byte(mixedSchema))
	require.NoError(t, err)
	var m fMixed
	vs = s2.Plan(reflect.TypeFor[fMixed]()).Decode([]byte(`{"n":7,"f":2.5,"when":"2024-01-02T03:04:05Z","items":[{"id":9,"rate":0.5}],"any":[1]}`), &m, false)
	require.Nil(t, vs)
	assert.Equal(t, 7, *m.N)
	assert.Equal(t, []fItem{{9, 0.5}}, m.Items)
	assert.Equal(t, []any{1.0}, m.Any)
	assert.True(t, m.When.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)))

	assert.Nil(t, s.Plan(reflect.TypeFor[int]()))
	assert.Nil(t, s.Plan(reflect.TypeFor[*fWeather]()))
}

func TestDecodeCodec(t *testing.T) {
	var w fWeather
	assert.Nil(t, Decode([]byte(" "), &struct{}{}, false))
	assert.Nil(t, Decode([]byte(`{"city":"x","days":2.0}`), &w, false))
	assert.Equal(t, 2, w.Days)
	assert.Equal(t, []Violation{vio("days", "type", "expected integer, got number 2.5")}, Decode([]byte(`{"days":2.5}`), &w, false))
	assert.Equal(t, []Violation{vio("bogus", "additionalProperties", "unknown field; remove it")}, Decode([]byte(`{"bogus":1}`), &w, false))
	var d struct {
		D time.Duration `json:"d"`
	}
	assert.Nil(t, Decode([]byte(`{"d":"90s"}`), &d, true))
	assert.Equal(t, 90*time.Second, d.D)
}

func BenchmarkValidate(b *testing.B) {
	s, err := Compile([]byte(weatherSchema))
	require.NoError(b, err)
	args := []byte(`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		if vs := s.Validate(args); vs != nil {
			b.Fatal(vs)
		}
	}
}

func BenchmarkPlanDecode(b *testing.B) {
	s, err := Compile([]byte(weatherSchema))
	require.NoError(b, err)
	p := s.Plan(reflect.TypeFor[fWeather]())
	args := []byte(`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		var w fWeather
		if vs := p.Decode(args, &w, false); vs != nil {
			b.Fatal(vs)
		}
	}
}

// Check decodes in one pass only into what reflect says is the plan's
// type, or a pointer to it that it allocates; any other target is checked,
// then decoded by the codec. Plan.Decode refuses a target of another type.
func TestCheckTargets(t *testing.T) {
	in, err := NewInput([]byte(weatherSchema), nil, reflect.TypeFor[fWeather](), false)
	require.NoError(t, err)
	k := in.Variant(false, false, false)
	require.True(t, k.OnePass())
	args := []byte(`{"city":"Oslo","unit":"C","days":2,"tags":[],"options":{"detailed":false}}`)
	want := fWeather{City: "Oslo", Unit: "C", Days: 2, Tags: []string{}}

	var w fWeather
	require.Nil(t, k.Check(in, args, &w))
	assert.Equal(t, want, w)
	var pw *fWeather
	require.Nil(t, k.Check(in, args, &pw))
	require.NotNil(t, pw)
	assert.Equal(t, want, *pw)
	var m map[string]any
	require.Nil(t, k.Check(in, args, &m))
	assert.Equal(t, map[string]any{"city": "Oslo", "unit": "C", "days": 2.0, "tags": []any{}, "options": map[string]any{"detailed": false}}, m)

	bad := []byte(`{"city":"Oslo","unit":"K","days":2,"options":{"detailed":false}}`)
	vs := k.Check(in, bad, nil)
	require.Equal(t, []Violation{vio("unit", "enum", `must be one of "C", "F"`)}, vs)
	assert.Equal(t, vs, k.Check(in, bad, &w))
	assert.Equal(t, vs, k.Check(in, bad, &pw))
	assert.Equal(t, vs, k.Check(in, bad, &m))
	var n fWeather
	assert.NotNil(t, k.Check(in, args, n), "a target that is not a pointer is the codec's to refuse")

	p := k.onePass()
	assert.PanicsWithValue(t, "check: Plan.Decode into *map[string]interface {}, want a non-nil *check.fWeather", func() { p.Decode(args, &m, false) })
	assert.Panics(t, func() { p.Decode(args, (*fWeather)(nil), false) })
}

// BenchmarkCheck is the one-pass check and decode of a typical call, the
// part of BenchmarkInvoke this package owns.
func BenchmarkCheck(b *testing.B) {
	in, err := NewInput([]byte(weatherSchema), nil, reflect.TypeFor[fWeather](), false)
	require.NoError(b, err)
	k := in.Variant(false, false, false)
	args := []byte(`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`)
	b.ReportAllocs()
	for b.Loop() {
		var w fWeather
		if vs := k.Check(in, args, &w); vs != nil || len(w.Tags) != 2 {
			b.Fatal(vs, w)
		}
	}
}
