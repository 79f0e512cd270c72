package openairesponses_test

import (
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestFloodsBounded: a reply or a stream line of many tiny values, within
// the byte limits, cannot make decoding allocate many times the limit.
// Not parallel: it measures the process's allocations.
func TestFloodsBounded(t *testing.T) {
	response := func(elems string) string {
		return `{"id":"resp_1","object":"response","status":"completed","model":"tiny","output":[` + elems + `]}`
	}
	content := func(elems string) string {
		return response(`{"type":"message","id":"m","role":"assistant","status":"completed","content":[` + elems + `]}`)
	}
	item := func(elems string) string { return response(`{"type":"message","id":"m",` + elems + `}`) }
	summary := func(elems string) string { return response(`{"type":"reasoning","id":"r","summary":[` + elems + `]}`) }
	completed := func(body func(string) string) func(string) string {
		return func(elems string) string {
			return "event: response.completed\ndata: " + `{"type":"response.completed","response":` + body(elems) + `}` + "\n\n"
		}
	}
	added := func(elems string) string {
		return "event: response.output_item.added\ndata: " + `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m",` + elems + `}}` + "\n\n"
	}
	providertest.CheckFloods(t, func(url string, limit int) chat.StreamingModel {
		return openairesponses.New(openairesponses.Config{BaseURL: url + "/v1", APIKey: testKey, Model: "tiny", MaxResponseBytes: limit, MaxRetries: openairesponses.NoRetries})
	}, []providertest.Flood{
		{Name: "output", Body: response},
		{Name: "content", Body: content},
		{Name: "item", Body: item, Members: true},
		{Name: "summary", Body: summary},
		{Name: "stream output", Body: completed(response), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream content", Body: completed(content), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream item", Body: added, Stream: true, ContentType: "text/event-stream", Members: true},
	})
}
