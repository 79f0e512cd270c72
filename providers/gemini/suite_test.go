package gemini_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// suite is this provider for the tests every provider runs. No local
// server speaks the Gemini API: the replies are written in its format.
func suite(t *testing.T) providertest.Provider {
	hello := "Hello! How can I help you?"
	return providertest.Provider{
		New: func(root string, s providertest.Settings) chat.StreamingModel {
			m := gemini.New(gemini.Config{BaseURL: root, APIKey: testKey, Model: "tiny-toolcaller", HTTPClient: genaiChecked(t, s.HTTPClient),
				MaxRetries: s.MaxRetries, MaxResponseBytes: s.MaxResponseBytes})
			if s.Sleep != nil {
				gemini.SetRetryHooks(m, s.Sleep, s.Jitter)
			}
			return m
		},
		OKChat:     reply(textChunk(hello, "STOP")),
		OKStream:   reply(sse(textChunk("Hello!", ""), textChunk(" How can I help you?", ""), textChunk("", "STOP"))),
		StreamType: "text/event-stream",
		TextReply:  func(text string) string { return textChunk(text, "STOP") },
		StreamText: func(text string) string { return sse(textChunk(text, "")) },
		StreamEnd:  sse(textChunk("", "STOP")),
		ToolCall: `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":10,"totalTokenCount":30}}`,
		Weather:    weatherTool,
		ModelError: `gemini: HTTP 503: model "tiny-toolcaller"`,
		// What the API answers when its model writes nothing: a STOP
		// with an empty text part.
		Unoffered: reply(`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":21,"totalTokenCount":61}}`),
	}
}

// TestProviderSuite is not parallel: the response limit's test measures
// the process's allocations.
func TestProviderSuite(t *testing.T) { providertest.Run(t, suite(t)) }

// genaiChecked returns hc (nil stays nil: the provider's own client) with
// a transport that passes every request body through checkGenai first.
func genaiChecked(t *testing.T, hc *http.Client) *http.Client {
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
		checkGenai(t, body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		return next.RoundTrip(r)
	})
	return &c
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
