package gemini_test

import (
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// TestFloodsBounded: a reply or a stream line of many tiny values, within
// the byte limits, cannot make decoding allocate many times the limit.
// Not parallel: it measures the process's allocations.
func TestFloodsBounded(t *testing.T) {
	parts := func(elems string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[` + elems + `]},"finishReason":"STOP","index":0}]}`
	}
	candidates := func(elems string) string { return `{"candidates":[` + elems + `]}` }
	inPart := func(elems string) string { return parts(`{"text":"a",` + elems + `}`) }
	call := func(elems string) string { return parts(`{"functionCall":{"name":"f","args":{` + elems + `}}}`) }
	sse := func(body func(string) string) func(string) string {
		return func(elems string) string { return "data: " + body(elems) + "\r\n\r\n" }
	}
	providertest.CheckFloods(t, func(url string, limit int) chat.StreamingModel {
		return gemini.New(gemini.Config{BaseURL: url, APIKey: testKey, Model: testModel, MaxResponseBytes: limit, MaxRetries: gemini.NoRetries})
	}, []providertest.Flood{
		{Name: "parts", Body: parts},
		{Name: "candidates", Body: candidates},
		{Name: "part", Body: inPart, Members: true},
		{Name: "args", Body: call, Members: true},
		{Name: "stream parts", Body: sse(parts), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream candidates", Body: sse(candidates), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream args", Body: sse(call), Stream: true, ContentType: "text/event-stream", Members: true},
	})
}
