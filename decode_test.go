package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/check"
)

type richInner struct {
	N    int8              `json:"n,omitempty"`
	U    uint16            `json:"u,omitempty"`
	F    float32           `json:"f,omitempty"`
	Next *richInner        `json:"next,omitempty"`
	Tags map[string]string `json:"tags,omitempty"`
}

type RichEmbedded struct {
	Emb string `json:"emb,omitempty"`
}

type richArgs struct {
	RichEmbedded
	Name    string          `json:"name" jsonschema:"minLength=1,maxLength=20"`
	Kind    string          `json:"kind,omitempty" jsonschema:"enum=a,enum=b"`
	Count   int             `json:"count,omitempty" jsonschema:"minimum=0,maximum=100"`
	Ratio   float64         `json:"ratio,omitempty"`
	On      bool            `json:"on,omitempty"`
	Items   []richInner     `json:"items,omitempty"`
	Ptr     *string         `json:"ptr,omitempty"`
	When    time.Time       `json:"when,omitzero"`
	Wait    time.Duration   `json:"wait,omitempty"`
	Any     any             `json:"any,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"`
	Matrix  [][]int         `json:"matrix,omitempty"`
	ByName  map[string]int  `json:"by_name,omitempty"`
	Nested  richInner       `json:"nested,omitzero"`
	private int
}

// decodeBoth decodes args with the compiled plan, which checks and decodes
// in one pass, and with the two-pass path of a schema given by
// WithInputSchema: the checker, then the codec.
func decodeBoth(t testing.TB, args string) (planned, coded richArgs, perr, cerr error) {
	ts, err := schemaOf(reflect.TypeFor[richArgs]())
	require.NoError(t, err)
	k := ts.Variant(false, false, false)
	require.True(t, k.OnePass())
	norm := check.Normalize([]byte(args))
	perr = checkArgs(k, ts, "rich", norm, &planned)
	cerr = checkArgs(k.TwoPass(), ts, "rich", norm, &coded)

	require.Zero(t, planned.private, "an unexported field is not a parameter")
	require.Zero(t, coded.private, "an unexported field is not a parameter")

	// The plan again, with the pooled state the first pass left: the same
	// verdict and value.
	var again richArgs
	serr := checkArgs(k, ts, "rich", norm, &again)
	require.Equal(t, fmt.Sprint(perr), fmt.Sprint(serr), "with a used pooled state")
	if perr == nil {
		require.Equal(t, planned, again, "with a used pooled state")
	}

	// The codec's retry for integer fields writes every integral number
	// such as 1.0 as 1, those in a json.RawMessage too, where the plan
	// keeps the arguments' text: the same JSON value either way.
	a, b := jsontext.Value(bytes.Clone(coded.Raw)), jsontext.Value(bytes.Clone(planned.Raw))
	if a.Canonicalize() == nil && b.Canonicalize() == nil && bytes.Equal(a, b) {
		coded.Raw = planned.Raw
	}
	return
}

func TestCompiledDecoder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args string
		wantErr    string
		check      func(t *testing.T, a richArgs)
	}{
		{name: "scalars", args: `{"name":"x","kind":"a","count":5,"ratio":0.5,"on":true}`, check: func(t *testing.T, a richArgs) {
			assert.Equal(t, richArgs{Name: "x", Kind: "a", Count: 5, Ratio: 0.5, On: true}, a)
		}},
		{name: "escapes and unicode", args: `{"name":"\u00e9\"\n","emb":"🙂"}`, check: func(t *testing.T, a richArgs) {
			assert.Equal(t, "é\"\n", a.Name)
			assert.Equal(t, "🙂", a.Emb)
		}},
		{name: "escaped key", args: `{"n\u0061me":"x"}`, check: func(t *testing.T, a richArgs) { assert.Equal(t, "x", a.Name) }},
		{name: "nested and recursive", args: `{"name":"x","items":[{"n":-3,"next":{"u":7,"tags":{"k":"v"}}}],"nested":{"f":1.5}}`, check: func(t *testing.T, a richArgs) {
			require.Len(t, a.Items, 1)
			assert.EqualValues(t, -3, a.Items[0].N)
			assert.EqualValues(t, 7, a.Items[0].Next.U)
			assert.Equal(t, map[string]string{"k": "v"}, a.Items[0].Next.Tags)
			assert.EqualValues(t, 1.5, a.Nested.F)
		}},
		{name: "pointer and fallbacks", args: `{"name":"x","ptr":"p","when":"2025-01-02T03:04:05Z","wait":"2m","any":{"a":[1]},"raw":[1, 2]}`, check: func(t *testing.T, a richArgs) {
			assert.Equal(t, "p", *a.Ptr)
			assert.Equal(t, time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), a.When)
			assert.Equal(t, 2*time.Minute, a.Wait)
			assert.Equal(t, map[string]any{"a": []any{1.0}}, a.Any)
			assert.Equal(t, `[1, 2]`, string(a.Raw))
		}},
		{name: "matrix and map", args: `{"name":"x","matrix":[[1,2],[],[3.0]],"by_name":{"a":1,"b":2}}`, check: func(t *testing.T, a richArgs) {
			assert.Equal(t, [][]int{{1, 2}, {}, {3}}, a.Matrix)
			assert.Equal(t, map[string]int{"a": 1, "b": 2}, a.ByName)
		}},
		{name: "null for an optional field", args: `{"name":"x","kind":null}`, wantErr: "kind: expected string, got null"},
		{name: "null for a required field", args: `{"name":null}`, wantErr: "name: expected string, got null"},
		{name: "int8 overflow", args: `{"name":"x","nested":{"n":300}}`, wantErr: "nested.n: must be between -128 and 127"},
		{name: "uint negative", args: `{"name":"x","nested":{"u":-1}}`, wantErr: "nested.u: must be between 0 and 65535"},
		{name: "float32 overflow", args: `{"name":"x","nested":{"f":1e300}}`, wantErr: "nested.f: number 1e300 is out of range for float32"},
		{name: "minLength", args: `{"name":""}`, wantErr: "name: must be at least 1 characters long"},
		{name: "wrong element type deep", args: `{"name":"x","items":[{"next":{"tags":{"k":1}}}]}`, wantErr: "items[0].next.tags.k: expected string, got number"},
		{name: "object for a string", args: `{"name":{}}`, wantErr: "name: expected string, got object"},
		{name: "array for an object", args: `{"name":"x","nested":[]}`, wantErr: "nested: expected object, got array"},
		{name: "bad time", args: `{"name":"x","when":"yesterday"}`, wantErr: "when: must be an RFC 3339 date-time"},
		{name: "bad duration", args: `{"name":"x","wait":"soon"}`, wantErr: "wait: must match the pattern"},
		{name: "several violations", args: `{"count":-1,"kind":"c"}`, wantErr: "count: must be >= 0; kind: must be one of \"a\", \"b\"; name: required field is missing"},
		{name: "invalid UTF-8", args: "{\"name\":\"\xff\"}", wantErr: "name: arguments are not valid JSON: invalid UTF-8 in string"},
		{name: "trailing data", args: `{"name":"x"} {}`, wantErr: "arguments are not valid JSON: data after the top-level value"},
		{name: "not an object", args: `[1]`, wantErr: "expected object, got array"},
		{name: "bare string", args: `"x"`, wantErr: "expected object, got string"},
		{name: "truncated", args: `{"name":"x","items":[{"n":1`, wantErr: "unexpected end of input"},
		{name: "bad literal", args: `{"name":"x","on":tru}`, wantErr: "on: arguments are not valid JSON: invalid literal"},
		{name: "huge number", args: `{"name":"x","count":1e999}`, wantErr: "count: must be <= 100"},
		{name: "huge integer text", args: `{"name":"x","ratio":` + strings.Repeat("9", 400) + `}`, wantErr: "ratio: number 999"},
		{name: "huge float", args: `{"name":"x","ratio":1e309}`, wantErr: "ratio: number 1e309 is out of range for float64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			planned, coded, perr, cerr := decodeBoth(t, tc.args)
			if tc.wantErr != "" {
				require.Error(t, perr)
				assert.Contains(t, perr.Error(), tc.wantErr)
				assert.Error(t, cerr, "the codec path must refuse it too")
				return
			}
			require.NoError(t, perr)
			tc.check(t, planned)
			if cerr == nil {
				assert.Equal(t, coded, planned, "both paths decode alike")
			}
		})
	}
}

func TestDeepNestingDoesNotCrash(t *testing.T) {
	t.Parallel()
	deep := `{"name":"x","any":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`
	planned, _, perr, _ := decodeBoth(t, deep)
	require.NoError(t, perr)
	assert.NotNil(t, planned.Any)
	deeper := `{"name":"x","any":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	_, _, perr, _ = decodeBoth(t, deeper)
	require.Error(t, perr)
	assert.Contains(t, perr.Error(), "nesting deeper than 10000 levels")
}

// FuzzArguments checks that the compiled plan and the checker plus codec
// agree: neither panics, they give the same verdict, and when both accept,
// they decode alike.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{
		`{"name":"x"}`, `{}`, ``, `null`, `{"name":"x","items":[{"n":1,"next":{"u":2}}]}`,
		`{"name":"a","kind":"b","count":3,"ratio":1e3,"on":false,"by_name":{"z":1}}`,
		`{"name":"\ud83d\ude42","matrix":[[1],[2,3]],"ptr":null}`, `{"name":"x","when":"2025-01-01T00:00:00Z","wait":"1s"}`,
		`{"name":"x","count":2.0}`, `{"name":"x","count":2.0,"raw":[1.0, "\u0061" , {"b":1e0}]}`, `{"name":"x","any":[{},[],null,true,1.5,"s"]}`, `{"name":1}`, `[`, `{"name":"x",}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		planned, coded, perr, cerr := decodeBoth(t, args)
		if (perr == nil) != (cerr == nil) {
			t.Fatalf("verdicts differ on %q:\nplan  %v\ncodec %v", args, perr, cerr)
		}
		if perr == nil && !reflect.DeepEqual(planned, coded) {
			t.Fatalf("decoders disagree on %q:\nplan  %+v\ncodec %+v", args, planned, coded)
		}
	})
}
