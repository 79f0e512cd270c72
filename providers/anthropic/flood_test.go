package anthropic_test

import (
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestFloodsBounded: a reply or a stream line of many tiny values, within
// the byte limits, cannot make decoding allocate many times the limit.
// Not parallel: it measures the process's allocations.
func TestFloodsBounded(t *testing.T) {
	content := func(elems string) string {
		return `{"type":"message","role":"assistant","model":"claude","content":[` + elems + `],"stop_reason":"end_turn"}`
	}
	block := func(elems string) string { return content(`{"type":"text","text":"a",` + elems + `}`) }
	input := func(elems string) string {
		return content(`{"type":"tool_use","id":"t","name":"f","input":{` + elems + `}}`)
	}
	event := func(name string, data func(string) string) func(string) string {
		return func(elems string) string { return "event: " + name + "\ndata: " + data(elems) + "\n\n" }
	}
	start := func(elems string) string { return `{"type":"message_start","message":` + content(elems) + `}` }
	blockStart := func(elems string) string {
		return `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{` + elems + `}}}`
	}
	providertest.CheckFloods(t, func(url string, limit int) chat.StreamingModel {
		return anthropic.New(anthropic.Config{BaseURL: url, APIKey: testKey, Model: "claude", MaxResponseBytes: limit, MaxRetries: anthropic.NoRetries})
	}, []providertest.Flood{
		{Name: "content", Body: content},
		{Name: "block", Body: block, Members: true},
		{Name: "input", Body: input, Members: true},
		{Name: "stream message_start", Body: event("message_start", start), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream content_block_start", Body: event("content_block_start", blockStart), Stream: true, ContentType: "text/event-stream", Members: true},
	})
}
