package openai_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// suite is this provider for the tests every provider runs.
func suite(t *testing.T) providertest.Provider {
	reply := func(name string) http.HandlerFunc {
		return providertest.LoadRecording(t, name).ServeHTTP
	}
	return providertest.Provider{
		New: func(root string, s providertest.Settings) chat.StreamingModel {
			m := openai.New(openai.Config{BaseURL: root + "/v1", APIKey: testKey, Model: "tiny", HTTPClient: s.HTTPClient,
				MaxRetries: s.MaxRetries, MaxResponseBytes: s.MaxResponseBytes})
			if s.Sleep != nil {
				openai.SetRetryHooks(m, s.Sleep, s.Jitter)
			}
			return m
		},
		OKChat:       reply("llamacpp/b_plain"),
		OKStream:     reply("llamacpp/d2_plain_stream"),
		StreamType:   "text/event-stream",
		TextReply:    textReply,
		StreamText:   func(text string) string { return sseEvent(map[string]any{"role": "assistant", "content": text}, nil) },
		StreamEnd:    sseEvent(map[string]any{}, "stop") + "data: [DONE]\n\n",
		ToolCall:     chatToolCallReply("call_1", "get_weather", `{"city":"Paris"}`).body,
		Weather:      shortWeatherTool,
		ModelError:   `openai: HTTP 503: model "tiny"`,
		RetryAfterMs: true,
		Unoffered:    reply("k_unoffered_tool_name"),
	}
}

// TestProviderSuite is not parallel: the response limit's test measures
// the process's allocations.
func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }

// textReply is a reply, not streamed, whose text is text.
func textReply(text string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-r2", "object": "chat.completion", "model": "gpt-4o-mini",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text},
		}},
	})
	return string(b)
}
