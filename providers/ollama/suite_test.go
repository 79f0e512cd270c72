package ollama_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// suite is this provider for the tests every provider runs.
func suite(t *testing.T) providertest.Provider {
	reply := func(name string) http.HandlerFunc {
		rec := loadRecording(t, name)
		return providertest.Reply(rec.contentType, string(rec.body))
	}
	return providertest.Provider{
		New: func(root string, maxRetries int, hc *http.Client, sleep func(context.Context, time.Duration) error, jitter func() float64) chat.StreamingModel {
			m := ollama.New(ollama.Config{BaseURL: root, Model: "tiny-toolcaller", HTTPClient: hc, MaxRetries: maxRetries})
			if sleep != nil {
				ollama.SetRetryHooks(m, sleep, jitter)
			}
			return m
		},
		OKChat:     reply("b_plain"),
		OKStream:   reply("d_plain_stream"),
		StreamType: "application/x-ndjson",
		StreamHel:  textLine("Hel"),
		ToolCall:   toolCallLine("call_1", "get_weather", `{"city":"Paris"}`, true),
		Weather:    weatherTool,
		ModelError: `ollama: HTTP 503: model "tiny-toolcaller"`,

		Unoffered: reply("k_unoffered_tool_name"),
	}
}

func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }
