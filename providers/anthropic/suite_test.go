package anthropic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// suite is this provider for the tests every provider runs.
func suite(t *testing.T) providertest.Provider {
	replay := func(name string) http.HandlerFunc {
		return providertest.LoadRecording(t, name).ServeHTTP
	}
	return providertest.Provider{
		New: func(root string, s providertest.Settings) chat.StreamingModel {
			m := anthropic.New(anthropic.Config{BaseURL: root, APIKey: testKey, Model: "tiny-toolcaller", HTTPClient: sdkChecked(t, s.HTTPClient),
				MaxRetries: s.MaxRetries, MaxResponseBytes: s.MaxResponseBytes})
			if s.Sleep != nil {
				anthropic.SetRetryHooks(m, s.Sleep, s.Jitter)
			}
			return m
		},
		OKChat:     replay("llamacpp/e_unknown_model"),
		OKStream:   replay("llamacpp/d_plain_stream"),
		StreamType: "text/event-stream",
		TextReply: func(text string) string {
			b, _ := json.Marshal(map[string]any{"type": "message", "role": "assistant", "model": "claude-test",
				"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn"})
			return string(b)
		},
		StreamText: func(text string) string {
			b, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
			return sse(string(b))
		},
		StreamEnd: sse(msgDelta("end_turn"), msgStop),
		ToolCall: `{"type":"message","role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}],` +
			`"stop_reason":"tool_use","usage":{"input_tokens":20,"output_tokens":10}}`,
		Weather:    shortTool,
		ModelError: `anthropic: HTTP 503: model "tiny-toolcaller"`,
		Unoffered:  replay("h_empty_answer"),
	}
}

// TestProviderSuite is not parallel: the response limit's test measures
// the process's allocations.
func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }

// sdkChecked returns hc (nil stays nil: the provider's own client) with a
// transport that passes every request body through checkSDK first.
func sdkChecked(t *testing.T, hc *http.Client) *http.Client {
	if hc == nil {
		return nil
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c := *hc
	c.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		checkSDK(t, body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		return next.RoundTrip(r)
	})
	return &c
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
