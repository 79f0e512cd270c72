package wire

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolcall-go/toolcall/chat"
	"go.uber.org/goleak"
)

// `go test ./... -update` passes -update to every package; this one has no
// golden files.
var _ = flag.Bool("update", false, "no golden files in this package")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestAddExtra(t *testing.T) {
	body := []byte(`{"model":"<m>","n":1}` + "\n")
	got, err := AddExtra(body, map[string]any{"n": 2, "tools": []int{1}, "seed": 7}, []string{"tools"})
	require.NoError(t, err)
	// Keys the body has, and reserved ones, are left alone, and so is the
	// body's text.
	assert.Equal(t, `{"model":"<m>","n":1,"seed":7}`+"\n", string(got))

	_, err = AddExtra(body, map[string]any{"f": func() {}}, nil)
	assert.ErrorContains(t, err, `key "f": json: unsupported type: func()`)
	_, err = AddExtra([]byte(`[1]`), map[string]any{"a": 1}, nil)
	assert.Error(t, err, "a body that is not an object")
}

// TestEncodeRequest: a request is encoded without HTML escaping and with
// the extra fields its own do not have; each failure says what failed.
func TestEncodeRequest(t *testing.T) {
	type request struct {
		Model string          `json:"model"`
		Tools json.RawMessage `json:"tools,omitempty"`
		Bad   any             `json:"bad,omitempty"`
	}
	got, err := EncodeRequest(request{Model: "a<b"}, nil, map[string]any{"model": "x", "seed": 7, "tools": 1}, []string{"tools"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"a<b","seed":7}`, string(got))
	assert.Contains(t, string(got), "a<b")

	bad := []chat.ToolDefinition{{Name: "ok", InputSchema: json.RawMessage(`{}`)}, {Name: "broken", InputSchema: json.RawMessage(`{`)}}
	_, err = EncodeRequest(request{Tools: json.RawMessage(`[{`)}, bad, nil, nil)
	assert.EqualError(t, err, `tool "broken": input schema is not valid JSON`)
	_, err = EncodeRequest(request{Bad: func() {}}, bad[:1], nil, nil)
	assert.EqualError(t, err, "encoding request: json: unsupported type: func()")
	_, err = EncodeRequest(request{}, nil, map[string]any{"f": func() {}}, nil)
	assert.EqualError(t, err, `Options.Extra: key "f": json: unsupported type: func()`)
}

func TestParameters(t *testing.T) {
	for _, in := range []string{"", " ", "null", " null\n"} {
		assert.JSONEq(t, `{"type":"object","properties":{}}`, string(Parameters(json.RawMessage(in))), "%q", in)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	assert.Equal(t, schema, Parameters(schema))
}

func TestSchemaError(t *testing.T) {
	ok := chat.ToolDefinition{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`)}
	none := chat.ToolDefinition{Name: "none"}
	assert.NoError(t, SchemaError([]chat.ToolDefinition{ok, none}))
	bad := chat.ToolDefinition{Name: "bad", InputSchema: json.RawMessage(`{"type":`)}
	assert.EqualError(t, SchemaError([]chat.ToolDefinition{ok, none, bad, {Name: "worse", InputSchema: json.RawMessage(`[`)}}),
		`tool "bad": input schema is not valid JSON`)
}

func TestAddExtraNone(t *testing.T) {
	body := []byte(`{"model":"m"}` + "\n")
	got, err := AddExtra(body, nil, nil)
	require.NoError(t, err)
	assert.Same(t, &body[0], &got[0], "no Extra: the body as it is, not copied")
}

func TestEncode(t *testing.T) {
	got, err := Encode(map[string]string{"text": "<b>a & b</b>"})
	require.NoError(t, err)
	assert.Equal(t, `{"text":"<b>a & b</b>"}`+"\n", string(got))
	_, err = Encode(map[string]any{"f": func() {}})
	assert.ErrorContains(t, err, "unsupported type")
}

func TestArguments(t *testing.T) {
	for in, want := range map[string]string{
		``:                    `{}`,
		"  \n":                `{}`,
		`null`:                `{}`,
		` null `:              `{}`,
		`{}`:                  `{}`,
		`{"a": 1}`:            `{"a": 1}`, // the model's text is kept as it is
		`{"a":`:               `{"a":`,
		`"{\"a\":1}"`:         `"{\"a\":1}"`,
		`[1, 2]`:              `[1, 2]`,
		`{"html":"<b>&</b>"}`: `{"html":"<b>&</b>"}`,
	} {
		assert.Equal(t, want, string(Arguments(json.RawMessage(in))), "%q", in)
	}
	assert.Equal(t, "{}", string(Arguments(nil)))
}

func TestDecodeProblem(t *testing.T) {
	var v struct{ N int }
	err := json.Unmarshal([]byte(`{"N":"x"}`), &v)
	assert.Equal(t, `response does not fit the Chat Completions format: field "N" is a JSON string`, DecodeProblem("response", "Chat Completions", err))
	err = json.Unmarshal([]byte(`{"N":`), &v)
	assert.Equal(t, "stream event is not valid JSON: unexpected end of JSON input (at byte 5)", DecodeProblem("stream event", "Messages API", err))
	assert.Equal(t, "response does not fit the Responses API format: bad delta", DecodeProblem("response", "Responses API", errors.New("bad delta")))
}

func TestPhrases(t *testing.T) {
	p := Phrases{"does not support tools", "requires --jinja"}
	assert.True(t, p.In(`registry.ollama.ai/library/gemma does NOT support tools`))
	assert.True(t, p.In("tools param requires --jinja flag"))
	assert.False(t, p.In("does not support images"))
	assert.False(t, Phrases(nil).In("anything"))
}

func TestCallIDs(t *testing.T) {
	ids := CallIDs{Prefix: "call_"}
	var got []string
	for _, id := range []string{"a", "", "a", "a_1", "a", "call_1", ""} {
		got = append(got, ids.Next(id))
	}
	// A missing id is the prefix and the call's index; a repeated one gets
	// the first suffix not given yet.
	assert.Equal(t, []string{"a", "call_1", "a_1", "a_1_1", "a_2", "call_1_1", "call_6"}, got)
}

// TestCallIDsPastFew: ids stay unique past the ones kept without a map.
func TestCallIDsPastFew(t *testing.T) {
	ids := CallIDs{Prefix: "call_"}
	var got []string
	for i := range 20 {
		got = append(got, ids.Next([]string{"a", "b", ""}[i%3]))
	}
	assert.Equal(t, []string{"a", "b", "call_2", "a_1", "b_1", "call_5", "a_2", "b_2", "call_8", "a_3",
		"b_3", "call_11", "a_4", "b_4", "call_14", "a_5", "b_5", "call_17", "a_6", "b_6"}, got)
}

// TestCallIDsFewAllocateNothing: a usual reply, a few calls with ids of
// their own, costs no allocation.
func TestCallIDsFewAllocateNothing(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		ids := CallIDs{Prefix: "call_"}
		for _, id := range []string{"call_a", "call_b", "call_c"} {
			_ = ids.Next(id)
		}
	})
	assert.Zero(t, allocs)
}

// TestCallIDsLinear: thousands of calls with one id are named in time in
// proportion to their number (trying every suffix from 1 for each call
// took minutes for 5,000).
func TestCallIDsLinear(t *testing.T) {
	const n = 50_000
	start := time.Now()
	ids := CallIDs{Prefix: "call_"}
	seen := make(map[string]bool, n)
	for i := range n {
		id := ids.Next("same")
		if i > 0 {
			require.Equal(t, "same_"+strconv.Itoa(i), id)
		}
		seen[id] = true
	}
	assert.Len(t, seen, n)
	assert.Less(t, time.Since(start), 5*time.Second, "quadratic: %d calls", n)
}

func ExampleCallIDs() {
	ids := CallIDs{Prefix: "toolu_"}
	fmt.Println(ids.Next("x"), ids.Next(""), ids.Next("x"))
	// Output: x toolu_1 x_1
}

func TestRawArguments(t *testing.T) {
	for in, want := range map[string]string{
		`"{\"a\": 1}"`:     `{"a": 1}`, // the text in the string, as it is
		`""`:               ``,
		`null`:             ``,
		`{"a": [1, 2]}`:    `{"a":[1,2]}`, // an object, compacted
		` {"b" : true} `:   `{"b":true}`,
		`[1]`:              `[1]`,
		`"<b>&amp;</b>\n"`: "<b>&amp;</b>\n",
	} {
		var got struct {
			A RawArguments `json:"a"`
		}
		require.NoError(t, json.Unmarshal([]byte(`{"a":`+in+`}`), &got), in)
		assert.Equal(t, want, string(got.A), in)
	}
}

func TestProviderData(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"mine":[1,2],"other":{}}`, `[1,2]`},
		{` {"mine":null}`, `null`},
		{`{"other":[1]}`, ``},
		{`["mine"]`, ``},
		{`not JSON`, ``},
		{``, ``},
	} {
		assert.Equal(t, c.want, string(ProviderData(json.RawMessage(c.data), "mine")), c.data)
	}
}

func TestValue(t *testing.T) {
	v, err := Value(map[string]string{"a": "<b>"})
	require.NoError(t, err)
	assert.Equal(t, `{"a":"<b>"}`, string(v), "no newline, no HTML escapes")
}
