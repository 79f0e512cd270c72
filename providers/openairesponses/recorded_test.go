package openairesponses_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// The calls of the recorded replies, and the arguments both servers made.
const (
	llamaArgs  = `{"city": "Paris", "unit": "celsius", "days":1, "options": {"wind": true}}`
	ollamaArgs = `{"city":"Paris"}`
)

// TestRecordedCases replays every recorded exchange of both servers, JSON
// and streamed, and checks the reply (messages, calls, arguments, finish
// reason, usage), the deltas of a stream, and the request sent against
// the recorded one (checkRecordedRequest).
func TestRecordedCases(t *testing.T) {
	t.Parallel()
	ask := chat.UserMessage("What is the weather in Paris?")
	hi := chat.UserMessage("Hi")
	tools := []chat.ToolDefinition{weatherTool}
	zero := chat.Options{Temperature: ptr(0.0)}
	hello := []chat.Delta{text("Hello"), text("!"), text(" How"), text(" can"), text(" I"), text(" help"), text(" you"), text("?")}
	for _, tc := range []struct {
		name    string // the recording
		stream  bool
		req     *chat.Request
		want    *chat.Response
		deltas  []chat.Delta // for a stream whose arguments come whole
		pieces  int          // for a stream: argument fragments, one delta each
		wantErr error
		wantMsg string
	}{
		{
			name: "llamacpp/a_tools",
			req:  &chat.Request{Messages: []chat.Message{ask}, Tools: tools, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_sCQM7xn5FGWGZ7eLjqoN3ZFVBwIOn7Mg", "get_weather", llamaArgs)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 267, CompletionTokens: 47, TotalTokens: 314, CacheReadTokens: 266},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
		},
		{
			name: "llamacpp/b_tools_stream", stream: true,
			req: &chat.Request{Messages: []chat.Message{ask}, Tools: tools, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_sWorHYLyrEXEop7F6BTWZdyjhQ8YDBL7", "get_weather", llamaArgs)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 267, CompletionTokens: 47, TotalTokens: 314, CacheReadTokens: 266},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
			pieces: 32, // one per token, and no function_call_arguments.done
		},
		{
			name: "llamacpp/c_tool_result",
			req: &chat.Request{Messages: []chat.Message{ask,
				chat.AssistantMessage("", call("call_sCQM7xn5FGWGZ7eLjqoN3ZFVBwIOn7Mg", "get_weather", llamaArgs)),
				chat.ToolMessage(call("call_sCQM7xn5FGWGZ7eLjqoN3ZFVBwIOn7Mg", "get_weather", ""), "18 degrees, light wind"),
			}, Tools: tools, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("The weather is warm."),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 333, CompletionTokens: 6, TotalTokens: 339, CacheReadTokens: 271},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
		},
		{
			name: "llamacpp/d_plain_stream", stream: true,
			req: &chat.Request{Messages: []chat.Message{hi}, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 30, CompletionTokens: 9, TotalTokens: 39, CacheReadTokens: 29},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
			deltas: hello,
		},
		{
			// One model loaded: llama-server answers whatever the name.
			name: "llamacpp/e_unknown_model",
			req:  &chat.Request{Model: "nope", Messages: []chat.Message{hi}},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 30, CompletionTokens: 9, TotalTokens: 39, CacheReadTokens: 29},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
		},
		{
			name: "ollama/a_tools",
			req:  &chat.Request{Messages: []chat.Message{ask}, Tools: tools, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_lk55ifok", "get_weather", ollamaArgs)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 191, CompletionTokens: 21, TotalTokens: 212},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
		},
		{
			name: "ollama/b_tools_stream", stream: true,
			req: &chat.Request{Messages: []chat.Message{ask}, Tools: tools, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_txtgfnd9", "get_weather", ollamaArgs)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 191, CompletionTokens: 21, TotalTokens: 212},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
			// The whole arguments in one delta, then a .done event.
			deltas: []chat.Delta{callDelta(0, "call_txtgfnd9", "get_weather", ""), callDelta(0, "", "", ollamaArgs)},
		},
		{
			name: "ollama/c_tool_result",
			req: &chat.Request{Messages: []chat.Message{ask,
				chat.AssistantMessage("", call("call_lk55ifok", "get_weather", ollamaArgs)),
				chat.ToolMessage(call("call_lk55ifok", "get_weather", ""), "18 degrees, light wind"),
			}, Tools: tools, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("The weather is warm."),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 234, CompletionTokens: 6, TotalTokens: 240},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
		},
		{
			name: "ollama/d_plain_stream", stream: true,
			req: &chat.Request{Messages: []chat.Message{hi}, Options: zero},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 9, CompletionTokens: 9, TotalTokens: 18},
				Model:        "tiny-toolcaller", Attempts: 1,
			},
			deltas: hello,
		},
		{
			name:    "ollama/e_unknown_model",
			req:     &chat.Request{Model: "nope", Messages: []chat.Message{hi}},
			wantErr: chat.ErrModelNotFound, wantMsg: "model 'nope' not found",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.name)
			m := newModel(srv, openairesponses.Config{})
			var resp *chat.Response
			var err error
			var deltas []chat.Delta
			if tc.stream {
				resp, err = m.Stream(context.Background(), tc.req, func(d chat.Delta) bool {
					deltas = append(deltas, d)
					return true
				})
			} else {
				resp, err = m.Chat(context.Background(), tc.req)
			}
			checkRecordedRequest(t, tc.name, got.Get(t, 0).Body)
			if tc.wantErr != nil {
				pe := checkProviderError(t, err, tc.wantErr, 404, "nope")
				assert.Equal(t, tc.wantMsg, pe.Message)
				assert.Equal(t, 1, pe.Attempts)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp)
			switch {
			case tc.pieces > 0:
				// The first delta names the call; then one delta per
				// fragment, which add up to the arguments.
				c := tc.want.Message.ToolCalls[0]
				require.Len(t, deltas, 1+tc.pieces)
				assert.Equal(t, callDelta(0, c.ID, c.Name, ""), deltas[0])
				var args strings.Builder
				for _, d := range deltas[1:] {
					require.NotNil(t, d.ToolCall)
					assert.Equal(t, chat.ToolCallDelta{Index: 0, Arguments: d.ToolCall.Arguments}, *d.ToolCall)
					args.WriteString(d.ToolCall.Arguments)
				}
				assert.Equal(t, string(c.Arguments), args.String())
			case tc.stream:
				assert.Equal(t, tc.deltas, deltas)
			}
		})
	}
}

// checkRecordedRequest compares a request body with the one recorded in
// testdata/NAME.request.json as JSON values, apart from these differences,
// each checked:
//   - "store": false, which the recording client did not send: nothing is
//     kept on the server, every request carries the whole conversation;
//   - "strict": false on each tool: omitted, the Responses API makes the
//     schema strict, which this schema (optional "lang") is not written for;
//   - "type": "message" on an input message the recording sent without a
//     type: the API's item union is told apart by its type (openai-go
//     cannot decode such an item: TestSDKLimitations).
func checkRecordedRequest(t *testing.T, name string, got []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".request.json"))
	require.NoError(t, err)
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(raw, &w))
	require.NoError(t, json.Unmarshal(got, &g))

	assert.NotContains(t, w, "store")
	assert.Equal(t, false, g["store"], "store")
	delete(g, "store")
	assert.NotContains(t, g, "include", "include is sent only with reasoning")
	if tools, ok := g["tools"].([]any); ok {
		for i, tl := range tools {
			tl := tl.(map[string]any)
			assert.NotContains(t, w["tools"].([]any)[i], "strict")
			assert.Equal(t, false, tl["strict"], "tool %d: strict", i)
			delete(tl, "strict")
		}
	}
	if items, ok := g["input"].([]any); ok {
		for i, it := range items {
			it := it.(map[string]any)
			if _, typed := w["input"].([]any)[i].(map[string]any)["type"]; !typed {
				assert.Equal(t, "message", it["type"], "input item %d: type", i)
				delete(it, "type")
			}
		}
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	assert.JSONEq(t, string(wb), string(gb), "request body differs from the recorded %s.request.json", name)
}
