package ollama_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestStreamCallsCount: a stream's calls count against the limit, each
// with its id and name and about what it keeps in memory, so that lines
// of empty calls, or of calls with long names, do not pile up past it.
func TestStreamCallsCount(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	done := `{"model":"tiny","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}` + "\n"
	empty := `{"model":"tiny","message":{"role":"assistant","content":"","tool_calls":[` + strings.Repeat(`{},`, 99) + `{}]},"done":false}` + "\n"
	long := `{"model":"tiny","message":{"role":"assistant","content":"","tool_calls":[{"id":"` + strings.Repeat("i", 20<<10) +
		`","function":{"name":"` + strings.Repeat("n", 20<<10) + `"}}]},"done":false}` + "\n"
	for name, body := range map[string]string{
		"empty calls": strings.Repeat(empty, 10) + done, // 1,000 calls in 3 KiB of lines
		"long names":  strings.Repeat(long, 2) + done,   // 80 KiB of ids and names
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _ := providertest.Serve(t, chatPath, func(w http.ResponseWriter, r *http.Request, _ int) {
				providertest.Reply("application/x-ndjson", body)(w, r)
			})
			_, err := newModel(srv, ollama.Config{MaxResponseBytes: limit}).Stream(context.Background(),
				&chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, nil)
			require.ErrorIs(t, err, chat.ErrBadResponse)
			assert.Contains(t, err.Error(), "streamed reply is larger than the 64 KiB limit")
		})
	}
}

// TestJSONReplyToStreamBoundedAsBody: a whole JSON reply answering a
// stream is bounded by the limit as Chat bounds a body, not by the line
// bound (eight times the limit); within it, it is read.
func TestJSONReplyToStreamBoundedAsBody(t *testing.T) {
	t.Parallel()
	body := func(n int) string {
		return `{"model":"m","message":{"role":"assistant","content":"` + strings.Repeat("x", n) + `"},"done":true,"done_reason":"stop"}`
	}
	model := func(body string) *ollama.Model {
		return ollama.New(ollama.Config{BaseURL: "http://ollama.invalid", Model: "m", MaxResponseBytes: 64 << 10,
			HTTPClient: providertest.ReplyingClient("application/json", []byte(body))})
	}
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
	_, err := model(body(100<<10)).Stream(context.Background(), req, nil)
	pe := checkProviderError(t, err, chat.ErrBadResponse, 200, "m")
	assert.Equal(t, "response body is larger than the 64 KiB limit (Config.MaxResponseBytes)", pe.Message)

	resp, err := model(body(60<<10)).Stream(context.Background(), req, nil)
	require.NoError(t, err)
	assert.Len(t, resp.Message.Content, 60<<10)
}
