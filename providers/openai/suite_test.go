package openai_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// suite is this provider for the tests every provider runs.
func suite(t *testing.T) providertest.Provider {
	reply := func(name string) http.HandlerFunc {
		rec := loadRecording(t, name)
		return providertest.Reply(rec.contentType, string(rec.body))
	}
	return providertest.Provider{
		New: func(root string, maxRetries int, hc *http.Client, sleep func(context.Context, time.Duration) error, jitter func() float64) chat.StreamingModel {
			m := openai.New(openai.Config{BaseURL: root + "/v1", APIKey: testKey, Model: "tiny", HTTPClient: hc, MaxRetries: maxRetries})
			if sleep != nil {
				openai.SetRetryHooks(m, sleep, jitter)
			}
			return m
		},
		OKChat:       reply("llamacpp/b_plain"),
		OKStream:     reply("llamacpp/d2_plain_stream"),
		StreamType:   "text/event-stream",
		StreamHel:    sseEvent(map[string]any{"role": "assistant", "content": "Hel"}, nil),
		ToolCall:     chatToolCallReply("call_1", "get_weather", `{"city":"Paris"}`).body,
		Weather:      shortWeatherTool,
		ModelError:   `openai: HTTP 503: model "tiny"`,
		RetryAfterMs: true,
		Unoffered:    reply("k_unoffered_tool_name"),
	}
}

func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }
