package anthropic_test

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

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// The calls the two servers made in the recorded a_tools case, and sent
// back in c_tool_result and f_tool_error.
var recordedCalls = map[string]chat.ToolCall{
	"llamacpp": call("y1PWTlKRbrx9ens8dCyInvWrom281EF3", "get_weather", `{"city": "Paris", "unit": "celsius", "days": 1, "options": {"wind": true}}`),
	"ollama":   call("call_ia1o3ji6", "get_weather", `{"city": "Paris"}`),
}

const askWeather = "What is the weather in Paris?"

// recordedRequest is the chat.Request that stands for the recorded request
// of a case, from server.
func recordedRequest(server, name string) *chat.Request {
	tools := &chat.Request{
		Messages: []chat.Message{chat.UserMessage(askWeather)},
		Tools:    []chat.ToolDefinition{weatherTool},
		Options:  chat.Options{MaxTokens: ptr(200), Temperature: ptr(0.0)},
	}
	result := func(content string, isError bool) *chat.Request {
		c := recordedCalls[server]
		res := chat.ToolMessage(c, content)
		res.IsError = isError
		tools.Messages = append(tools.Messages, chat.AssistantMessage("", c), res)
		return tools
	}
	switch name {
	case "a_tools", "b_tools_stream":
		return tools
	case "c_tool_result":
		return result("18 degrees, light wind", false)
	case "d_plain_stream":
		return &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Options: chat.Options{MaxTokens: ptr(50), Temperature: ptr(0.0)}}
	case "e_unknown_model":
		return &chat.Request{Model: "nope", Messages: []chat.Message{chat.UserMessage("Hi")}, Options: chat.Options{MaxTokens: ptr(50)}}
	case "f_tool_error":
		return result("weather service unavailable", true)
	}
	panic("no request for case " + name)
}

// TestRecordedCases replays every recorded case of both servers, through
// Chat for the JSON replies and Stream for the streamed ones, and checks
// the reply (text, calls, arguments, finish reason, usage), the deltas,
// and that the request sent is the recorded one (see checkRecorded).
func TestRecordedCases(t *testing.T) {
	t.Parallel()
	hello := "Hello! How can I help you?"
	warm := "The weather is warm."
	type want struct {
		resp   *chat.Response
		deltas []chat.Delta
		err    error // the sentinel of a failed call
	}
	cases := map[string]map[string]want{
		"llamacpp": {
			"a_tools": {resp: &chat.Response{
				Message:      chat.AssistantMessage("", call("y1PWTlKRbrx9ens8dCyInvWrom281EF3", "get_weather", `{"city":"Paris","unit":"celsius","days":1,"options":{"wind":true}}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 267, CompletionTokens: 47, TotalTokens: 314, CacheReadTokens: 266},
			}},
			"b_tools_stream": {resp: &chat.Response{
				Message:      chat.AssistantMessage("", call("au5xqIema2wFZyboRU2geBfH4mUgbguI", "get_weather", `{"city": "Paris", "unit": "celsius", "days":1, "options": {"wind": true}}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 267, CompletionTokens: 47, TotalTokens: 314, CacheReadTokens: 266},
			}, deltas: llamacppToolDeltas()},
			"c_tool_result": {resp: &chat.Response{
				Message:      chat.AssistantMessage(warm),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 333, CompletionTokens: 6, TotalTokens: 339, CacheReadTokens: 271},
			}},
			"d_plain_stream": {resp: &chat.Response{
				Message:      chat.AssistantMessage(hello),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 30, CompletionTokens: 9, TotalTokens: 39, CacheReadTokens: 24},
			}, deltas: textDeltas("Hello", "!", " How", " can", " I", " help", " you", "?")},
			// llama-server has one model and ignores the name.
			"e_unknown_model": {resp: &chat.Response{
				Message:      chat.AssistantMessage(hello),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 30, CompletionTokens: 9, TotalTokens: 39, CacheReadTokens: 29},
			}},
			"f_tool_error": {resp: &chat.Response{
				Message:      chat.AssistantMessage(warm),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 330, CompletionTokens: 6, TotalTokens: 336, CacheReadTokens: 271},
			}},
		},
		"ollama": {
			"a_tools": {resp: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_ia1o3ji6", "get_weather", `{"city":"Paris"}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 191, CompletionTokens: 21, TotalTokens: 212},
			}},
			// message_delta's counts replace message_start's.
			"b_tools_stream": {resp: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_g11jp21j", "get_weather", `{"city":"Paris"}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 191, CompletionTokens: 21, TotalTokens: 212},
			}, deltas: []chat.Delta{
				callDelta(0, "call_g11jp21j", "get_weather", ""),
				callDelta(0, "", "", `{"city":"Paris"}`),
			}},
			"c_tool_result": {resp: &chat.Response{
				Message:      chat.AssistantMessage(warm),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 234, CompletionTokens: 6, TotalTokens: 240},
			}},
			"d_plain_stream": {resp: &chat.Response{
				Message:      chat.AssistantMessage(hello),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 9, CompletionTokens: 9, TotalTokens: 18},
			}, deltas: textDeltas("Hello", "!", " How", " can", " I", " help", " you", "?")},
			"e_unknown_model": {err: chat.ErrModelNotFound},
			"f_tool_error": {resp: &chat.Response{
				Message:      chat.AssistantMessage(warm),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 231, CompletionTokens: 6, TotalTokens: 237},
			}},
		},
	}
	for server, byCase := range cases {
		files, err := filepath.Glob(filepath.Join("testdata", server, "*.meta.json"))
		require.NoError(t, err)
		require.Len(t, byCase, len(files), "every recorded case of %s is checked", server)
		for name, w := range byCase {
			t.Run(server+"/"+name, func(t *testing.T) {
				t.Parallel()
				rec := server + "/" + name
				srv, c := replay(t, rec)
				m := newModel(srv, anthropic.Config{Version: anthropic.Version20230601})
				req := recordedRequest(server, name)
				var (
					resp   *chat.Response
					deltas []chat.Delta
					err    error
				)
				if strings.Contains(name, "stream") {
					resp, err = m.Stream(context.Background(), req, collect(&deltas))
				} else {
					resp, err = m.Chat(context.Background(), req)
				}
				sent := c.Get(t, 0)
				checkRecorded(t, rec, sent.Body)
				assert.Equal(t, []string{anthropic.Version20230601}, sent.Header.Values("Anthropic-Version"))
				assert.Equal(t, []string{testKey}, sent.Header.Values("X-Api-Key"))
				assert.Empty(t, sent.Header.Values("Authorization"))
				if w.err != nil {
					assert.Nil(t, resp)
					checkProviderError(t, err, w.err, 404, "nope")
					return
				}
				require.NoError(t, err)
				w.resp.Model = "tiny-toolcaller"
				w.resp.Attempts = 1
				assert.Equal(t, w.resp, resp)
				assert.Equal(t, w.deltas, deltas)
			})
		}
	}
}

// llamacppToolDeltas are the deltas of llamacpp/b_tools_stream: the
// call's id and name, then one fragment of its arguments per token.
func llamacppToolDeltas() []chat.Delta {
	ds := []chat.Delta{callDelta(0, "au5xqIema2wFZyboRU2geBfH4mUgbguI", "get_weather", "")}
	for _, f := range []string{`{`, `"`, `city`, `":`, ` "`, `Paris`, `",`, ` "`, `uni`, `t`, `":`, ` "`, `cel`, `si`, `us`, `"`, `,`, ` "`, `days`, `":`, `1`, `,`, ` "`, `op`, `tion`, `s`, `":`, ` {"`, `wind`, `":`, ` true`, `}}`} {
		ds = append(ds, callDelta(0, "", "", f))
	}
	return ds
}

func textDeltas(pieces ...string) []chat.Delta {
	ds := make([]chat.Delta, len(pieces))
	for i, p := range pieces {
		ds[i] = text(p)
	}
	return ds
}

// checkRecorded compares a request body with the one recorded in
// testdata/NAME.request.json, as JSON values. One difference is allowed:
// this package always sends a message's content as a list of blocks,
// which the recording clients sent as a string, the API's shorthand for
// one text block. The string is turned into that block before comparing.
func checkRecorded(t *testing.T, name string, got []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".request.json"))
	require.NoError(t, err)
	var want map[string]any
	require.NoError(t, json.Unmarshal(raw, &want))
	msgs, _ := want["messages"].([]any)
	for _, m := range msgs {
		m := m.(map[string]any)
		if s, ok := m["content"].(string); ok {
			m["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
	}
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), string(got), "request body differs from the recorded %s.request.json", name)
}

// TestErrorOfUnknownModel: Ollama's 404 names the model and carries the
// request id in its body; the error keeps both.
func TestErrorOfUnknownModel(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "ollama/e_unknown_model")
	m := newModel(srv, anthropic.Config{Version: anthropic.Version20230601})
	_, err := m.Chat(context.Background(), recordedRequest("ollama", "e_unknown_model"))
	pe := checkProviderError(t, err, chat.ErrModelNotFound, 404, "nope")
	assert.Equal(t, "model 'nope' not found", pe.Message)
	assert.Equal(t, "req_6b3554c3582fd94b5fce73a3", pe.RequestID)
	assert.EqualError(t, err, `anthropic: HTTP 404: model "nope": model not found: model 'nope' not found`)
}
