package ollama_test

import (
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// TestFloodsBounded: a reply or a stream line of many tiny values, within
// the byte limits, cannot make decoding allocate many times the limit.
// Not parallel: it measures the process's allocations.
func TestFloodsBounded(t *testing.T) {
	calls := func(elems string) string {
		return `{"model":"tiny","message":{"role":"assistant","content":"","tool_calls":[` + elems + `]},"done":true,"done_reason":"stop"}`
	}
	args := func(elems string) string {
		return calls(`{"function":{"name":"f","arguments":{` + elems + `}}}`)
	}
	line := func(body func(string) string) func(string) string {
		return func(elems string) string { return body(elems) + "\n" }
	}
	providertest.CheckFloods(t, func(url string, limit int) chat.StreamingModel {
		return ollama.New(ollama.Config{BaseURL: url, Model: "tiny", MaxResponseBytes: limit, MaxRetries: ollama.NoRetries})
	}, []providertest.Flood{
		{Name: "tool_calls", Body: calls},
		{Name: "arguments", Body: args, Members: true},
		{Name: "stream tool_calls", Body: line(calls), Stream: true, ContentType: "application/x-ndjson"},
		{Name: "stream arguments", Body: line(args), Stream: true, ContentType: "application/x-ndjson", Members: true},
	})
}
