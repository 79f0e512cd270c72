package ollama_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// suite is this provider for the tests every provider runs.
func suite(t *testing.T) providertest.Provider {
	reply := func(name string) http.HandlerFunc {
		return providertest.LoadRecording(t, name).ServeHTTP
	}
	return providertest.Provider{
		New: func(root string, s providertest.Settings) chat.StreamingModel {
			m := ollama.New(ollama.Config{BaseURL: root, Model: "tiny-toolcaller", HTTPClient: s.HTTPClient,
				MaxRetries: s.MaxRetries, MaxResponseBytes: s.MaxResponseBytes})
			if s.Sleep != nil {
				ollama.SetRetryHooks(m, s.Sleep, s.Jitter)
			}
			return m
		},
		OKChat:     reply("b_plain"),
		OKStream:   reply("d_plain_stream"),
		StreamType: "application/x-ndjson",
		TextReply:  textReply,
		StreamText: textLine,
		StreamEnd:  doneLine,
		ToolCall:   toolCallLine("call_1", "get_weather", `{"city":"Paris"}`, true),
		Weather:    weatherTool,
		ModelError: `ollama: HTTP 503: model "tiny-toolcaller"`,

		Unoffered: reply("k_unoffered_tool_name"),
	}
}

// TestProviderSuite is not parallel: the response limit's test measures
// the process's allocations.
func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }

// textReply is a reply, not streamed, whose text is text.
func textReply(text string) string {
	b, _ := json.Marshal(map[string]any{
		"model": "tiny-toolcaller", "created_at": "2026-11-22T11:42:05Z", "done": true, "done_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": text},
	})
	return string(b)
}
