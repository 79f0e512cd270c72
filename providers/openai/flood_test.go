package openai_test

import (
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestFloodsBounded: a reply or a stream line of many tiny values, within
// the byte limits, cannot make decoding allocate many times the limit.
// Not parallel: it measures the process's allocations.
func TestFloodsBounded(t *testing.T) {
	calls := func(elems string) string {
		return `{"model":"tiny","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[` + elems + `]},"finish_reason":"tool_calls"}]}`
	}
	choices := func(elems string) string { return `{"model":"tiny","choices":[` + elems + `]}` }
	message := func(elems string) string {
		return `{"model":"tiny","choices":[{"index":0,"message":{"role":"assistant",` + elems + `},"finish_reason":"stop"}]}`
	}
	deltas := func(elems string) string {
		return "data: " + `{"model":"tiny","choices":[{"index":0,"delta":{"tool_calls":[` + elems + `]}}]}` + "\n\ndata: [DONE]\n\n"
	}
	streamChoices := func(elems string) string {
		return "data: " + choices(elems) + "\n\ndata: [DONE]\n\n"
	}
	providertest.CheckFloods(t, func(url string, limit int) chat.StreamingModel {
		return openai.New(openai.Config{BaseURL: url + "/v1", APIKey: testKey, Model: "tiny", MaxResponseBytes: limit, MaxRetries: openai.NoRetries})
	}, []providertest.Flood{
		{Name: "tool_calls", Body: calls},
		{Name: "choices", Body: choices},
		{Name: "message", Body: message, Members: true},
		{Name: "stream tool_calls", Body: deltas, Stream: true, ContentType: "text/event-stream"},
		{Name: "stream choices", Body: streamChoices, Stream: true, ContentType: "text/event-stream"},
	})
}
