package openai

import (
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

func TestNoToolSupport(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		"registry.ollama.ai/library/gemma:2b does not support tools":                    true,
		"Model X Does Not Support Tools":                                                true,
		"Unsupported parameter: 'tools' is not supported with this model.":              true,
		`"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser`:  true,
		"tools param requires --jinja flag":                                             true,
		"this model does not support function calling":                                  true,
		"Invalid schema for function 'get_weather': 'additionalProperties' is required": false,
		"model 'x' not found": false,
		"":                    false,
	} {
		assert.Equal(t, want, noToolPhrases.In(msg), msg)
	}
}

func TestDecodeLenientFields(t *testing.T) {
	t.Parallel()
	var r wireResponse
	require.NoError(t, json.Unmarshal([]byte(`{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}],
		"refusal":null,"tool_calls":[{"function":{"arguments":{ "x" : [1, 2] }}},{"function":{"arguments":"{\"y\":1}"}},{"function":{"arguments":null}}]}`), &r))
	assert.Equal(t, text("ab"), r.Content)
	assert.Equal(t, text(""), r.Refusal)
	assert.Equal(t, `{"x":[1,2]}`, string(r.ToolCalls[0].Function.Arguments))
	assert.Equal(t, `{"y":1}`, string(r.ToolCalls[1].Function.Arguments))
	assert.Nil(t, r.ToolCalls[2].Function.Arguments)

	for _, bad := range []string{`{"content":5}`, `{"content":{}}`, `{"content":true}`, `{"content":[1]}`} {
		assert.Error(t, json.Unmarshal([]byte(bad), &r), bad)
	}
}

func TestReplyIDs(t *testing.T) {
	t.Parallel()
	r := wireResponse{ToolCalls: []wireCall{
		{Function: wireFunction{Name: "a"}},               // no id: call_0
		{ID: "call_0", Function: wireFunction{Name: "b"}}, // the server's id clashes with a made-up one
		{ID: "call_3", Function: wireFunction{Name: "c"}}, // kept
		{Function: wireFunction{Name: "d"}},               // call_3 is taken
		{ID: "x", Function: wireFunction{Name: "e"}},      // kept
		{ID: "x", Function: wireFunction{Name: "f"}},      // repeated
		{ID: "null", Function: wireFunction{Name: "g"}},   // a placeholder: no id
		{ID: "x_1", Function: wireFunction{Name: "h"}},    // clashes with the renamed repeat
	}}
	var ids []string
	for _, c := range r.message().ToolCalls {
		ids = append(ids, c.ID)
		assert.Equal(t, `{}`, string(c.Arguments))
	}
	assert.Equal(t, []string{"call_0", "call_0_1", "call_3", "call_3_1", "x", "x_1", "call_6", "x_1_1"}, ids)
}

func TestAddFragment(t *testing.T) {
	t.Parallel()
	idx := func(i int) *int { return &i }
	a := assembler{limit: -1}
	steps := []struct {
		c    wireCall
		pos  int
		want chat.ToolCallDelta
		ok   bool
	}{
		// A call without id, then its id in a later fragment: adopted.
		{c: wireCall{Index: idx(0), Function: wireFunction{Name: "a", Arguments: wire.RawArguments(`{"x"`)}}, want: chat.ToolCallDelta{Index: 0, Name: "a", Arguments: `{"x"`}, ok: true},
		{c: wireCall{Index: idx(0), ID: "id_a", Function: wireFunction{Arguments: wire.RawArguments(`:1}`)}}, want: chat.ToolCallDelta{Index: 0, ID: "id_a", Arguments: `:1}`}, ok: true},
		// The same id and name again, as some servers repeat them: no
		// new call, and not yielded twice.
		{c: wireCall{Index: idx(0), ID: "id_a", Function: wireFunction{Name: "a"}}, ok: false, want: chat.ToolCallDelta{Index: 0}},
		// A different id at the same index: a new call.
		{c: wireCall{Index: idx(0), ID: "id_b", Function: wireFunction{Name: "b", Arguments: wire.RawArguments(`{}`)}}, want: chat.ToolCallDelta{Index: 1, ID: "id_b", Name: "b", Arguments: `{}`}, ok: true},
		// No index: its position in the chunk.
		{c: wireCall{Function: wireFunction{Name: "c"}}, pos: 3, want: chat.ToolCallDelta{Index: 2, Name: "c"}, ok: true},
		// Nothing at a new index: no call.
		{c: wireCall{Index: idx(7)}, ok: false},
	}
	for i, s := range steps {
		d, ok := a.addFragment(s.pos, &s.c)
		assert.Equal(t, s.ok, ok, "step %d", i)
		assert.Equal(t, s.want, d, "step %d", i)
	}
	got := a.response().Message.ToolCalls
	require.Len(t, got, 3)
	assert.Equal(t, chat.ToolCall{ID: "id_a", Name: "a", Arguments: json.RawMessage(`{"x":1}`)}, got[0])
	assert.Equal(t, chat.ToolCall{ID: "id_b", Name: "b", Arguments: json.RawMessage(`{}`)}, got[1])
	assert.Equal(t, chat.ToolCall{ID: "call_2", Name: "c", Arguments: json.RawMessage(`{}`)}, got[2])
}

func TestFinishReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		calls bool
		want  chat.FinishReason
	}{
		{"stop", false, chat.FinishStop},
		{"", false, chat.FinishStop},
		{"tool_calls", false, chat.FinishStop},
		{"tool_calls", true, chat.FinishToolCalls},
		{"stop", true, chat.FinishToolCalls},
		{"function_call", true, chat.FinishToolCalls},
		{"length", true, chat.FinishLength},
		{"length", false, chat.FinishLength},
		{"content_filter", false, chat.FinishFiltered},
		{"eos_token", false, chat.FinishReason("eos_token")},
	} {
		assert.Equal(t, tc.want, finishReason(tc.in, tc.calls), "%q calls=%v", tc.in, tc.calls)
	}
}

func TestSSELine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, value string
		field       httpline.SSEField
	}{
		{"\n", "", httpline.SSEBlank},
		{"\r\n", "", httpline.SSEBlank},
		{": keep-alive\n", "", httpline.SSEOther},
		{"data: {\"a\":1}\n", `{"a":1}`, httpline.SSEData},
		{"data:{\"a\":1}\r\n", `{"a":1}`, httpline.SSEData},
		{"data: [DONE]", "[DONE]", httpline.SSEData},
		{"{\"choices\":[]}\n", `{"choices":[]}`, httpline.SSEData},
		{"error: {\"message\":\"x\"}\n", `{"message":"x"}`, httpline.SSEError},
		{"event: error\n", "error", httpline.SSEEvent},
		{"id: 7\n", "", httpline.SSEOther},
		{"retry: 100\n", "", httpline.SSEOther},
		{"garbage\n", "", httpline.SSEOther},
	} {
		v, f := sseLine([]byte(tc.line))
		assert.Equal(t, tc.field, f, "%q", tc.line)
		assert.Equal(t, tc.value, string(v), "%q", tc.line)
	}
}

func TestNewDefaults(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	m := New(Config{})
	assert.Equal(t, DefaultBaseURL+"/chat/completions", m.ep.URL)
	assert.Empty(t, m.ep.Header.Get("Authorization"))
	assert.Nil(t, m.ep.Client, "the Endpoint's default, httpline.DefaultClient")
	assert.Equal(t, 2, m.ep.Retry.Retries())
	assert.Equal(t, int64(32<<20), m.ep.Limit)
	assert.True(t, m.completionTokens)

	m = New(Config{BaseURL: " http://localhost:8080/v1/ ", APIKey: " k "})
	assert.Equal(t, "http://localhost:8080/v1/chat/completions", m.ep.URL)
	assert.Equal(t, "Bearer k", m.ep.Header.Get("Authorization"))
	assert.False(t, m.completionTokens)
}
