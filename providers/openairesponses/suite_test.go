package openairesponses_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// suite is this provider for the tests every provider runs.
func suite(t *testing.T) providertest.Provider {
	reply := func(name string) http.HandlerFunc {
		return providertest.LoadRecording(t, name).ServeHTTP
	}
	return providertest.Provider{
		New: func(root string, s providertest.Settings) chat.StreamingModel {
			m := openairesponses.New(openairesponses.Config{BaseURL: root + "/v1", APIKey: testKey, Model: "tiny", HTTPClient: s.HTTPClient,
				MaxRetries: s.MaxRetries, MaxResponseBytes: s.MaxResponseBytes})
			if s.Sleep != nil {
				openairesponses.SetRetryHooks(m, s.Sleep, s.Jitter)
			}
			return m
		},
		// llama-server's answer to a model it does not have is its model's.
		OKChat:     reply("llamacpp/e_unknown_model"),
		OKStream:   reply("llamacpp/d_plain_stream"),
		StreamType: "text/event-stream",
		TextReply:  textReply,
		StreamText: func(text string) string {
			return sse(mustJSON(map[string]any{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "delta": text}))
		},
		StreamEnd: sse(mustJSON(map[string]any{"type": "response.completed", "response": map[string]any{
			"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini", "output": []any{}}})),
		ToolCall:     string(providertest.LoadRecording(t, "ollama/a_tools").Body),
		Weather:      chat.ToolDefinition{Name: "get_weather", Description: "Get weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		ModelError:   `openairesponses: HTTP 503: model "tiny"`,
		RetryAfterMs: true,
		Unoffered:    reply("h_unoffered_tool_name"),
	}
}

// TestProviderSuite is not parallel: the response limit's test measures
// the process's allocations.
func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }

// textReply is a reply, not streamed, whose text is text.
func textReply(text string) string {
	return mustJSON(map[string]any{
		"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
		"output": []any{map[string]any{
			"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
		}},
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
