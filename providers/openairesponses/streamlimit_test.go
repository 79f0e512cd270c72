package openairesponses_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestStreamLimit: Config.MaxResponseBytes bounds everything a stream
// assembles, not only text and arguments: a call's name, id and item id,
// reasoning summaries and encrypted content, message items kept to be
// sent back, the output of a final event, and the number of calls and
// items, each of which counts for a share even when empty. Each stream
// fails under a 4 KiB limit with the too-large error, and is read whole
// under the default limit.
func TestStreamLimit(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 8<<10)
	completed := `{"type":"response.completed","response":{"status":"completed","output":[]}}`
	many := func(n int, event func(i int) string) []string {
		var evs []string
		for i := range n {
			evs = append(evs, event(i))
		}
		return append(evs, completed)
	}
	for _, tc := range []struct {
		name   string
		events []string
	}{
		{name: "call name", events: []string{
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"` + big + `","arguments":""}}`,
			completed}},
		{name: "call id", events: []string{
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"` + big + `","name":"f","arguments":""}}`,
			completed}},
		{name: "item id", events: []string{
			`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"` + big + `","call_id":"call_1","name":"f","arguments":""}}`,
			completed}},
		{name: "call name at done", events: []string{
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"` + big + `","arguments":"{}"}}`,
			completed}},
		{name: "arguments", events: []string{
			`{"type":"response.function_call_arguments.done","output_index":0,"item_id":"fc_1","arguments":"` + big + `"}`,
			completed}},
		{name: "reasoning summary", events: []string{
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"` + big + `"}]}}`,
			completed}},
		{name: "encrypted content", events: []string{
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"` + big + `"}}`,
			completed}},
		{name: "message item", events: []string{
			`{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"` + big + `"}]}}`,
			completed}},
		{name: "final output", events: []string{
			`{"type":"response.completed","response":{"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + big + `"}]}]}}`}},
		{name: "many empty calls", events: many(200, func(i int) string {
			return fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"type":"function_call","arguments":""}}`, i)
		})},
		{name: "many argument deltas of new calls", events: many(200, func(i int) string {
			return fmt.Sprintf(`{"type":"response.function_call_arguments.delta","output_index":%d,"delta":""}`, i)
		})},
		{name: "many empty items", events: many(200, func(i int) string {
			return fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"type":"reasoning","id":"rs_%d","summary":[]}}`, i, i)
		})},
		{name: "many text items", events: many(200, func(i int) string {
			return fmt.Sprintf(`{"type":"response.output_text.delta","output_index":%d,"item_id":"msg_%d","delta":"a"}`, i, i)
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := sse(tc.events...)
			srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, body)
			})
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}

			m := newModel(srv, openairesponses.Config{MaxResponseBytes: 4 << 10})
			_, err := m.Stream(context.Background(), req, nil)
			pe := checkProviderError(t, err, chat.ErrBadResponse, 200, "tiny-toolcaller")
			assert.Equal(t, "streamed reply is larger than the 4 KiB limit (Config.MaxResponseBytes)", pe.Message)

			m = newModel(srv, openairesponses.Config{})
			_, err = m.Stream(context.Background(), req, nil)
			require.NoError(t, err, "under the default limit")
		})
	}
}

// TestShorterDoneArgumentsKeepNoMore: arguments a done event makes
// shorter than the deltas brought keep no more memory than they count:
// the call's Arguments do not share the buffer the deltas grew (each call
// kept 1 MiB while counting 2 bytes).
func TestShorterDoneArgumentsKeepNoMore(t *testing.T) {
	t.Parallel()
	piece := strings.Repeat("a", 4<<10)
	for name, done := range map[string]string{
		"function_call_arguments.done": `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{}"}`,
		"output_item.done":             `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			events := []string{`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}`}
			for range 16 { // 64 KiB of arguments
				events = append(events, `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"`+piece+`"}`)
			}
			events = append(events, done, `{"type":"response.completed","response":{"id":"r","status":"completed","model":"m","output":[]}}`)
			srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, sse(events...))
			})
			resp, err := newModel(srv, openairesponses.Config{}).Stream(context.Background(),
				&chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, nil)
			require.NoError(t, err)
			require.Len(t, resp.Message.ToolCalls, 1)
			args := resp.Message.ToolCalls[0].Arguments
			assert.Equal(t, "{}", string(args))
			assert.Less(t, cap(args), 64, "the arguments' buffer")
		})
	}
}

// TestTinyDeltasKeepTheirBytes: text that comes in many one-byte deltas
// is held in one buffer within the limit, not as a string and its header
// for each delta (seventeen times the bytes counted) until the end.
// Not parallel: it measures the live heap.
func TestTinyDeltasKeepTheirBytes(t *testing.T) {
	const limit = 256 << 10
	const n = limit - 4<<10
	var b strings.Builder
	b.WriteString(sse(`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m","role":"assistant","content":[]}}`))
	b.WriteString(strings.Repeat(sse(`{"type":"response.output_text.delta","item_id":"m","output_index":0,"delta":"a"}`), n))
	b.WriteString(sse(`{"type":"response.completed","response":{"id":"r","status":"completed","model":"m","output":[]}}`))
	body := b.String()
	srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	})
	m := newModel(srv, openairesponses.Config{MaxResponseBytes: limit})
	var before, now runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	k := 0
	resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, func(chat.Delta) bool {
		if k++; k == n { // the last delta: all the text is held, not yet returned
			runtime.GC()
			runtime.ReadMemStats(&now)
		}
		return true
	})
	require.NoError(t, err)
	assert.Len(t, resp.Message.Content, n)
	live := int64(now.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d one-byte deltas under a %d KiB limit: %d KiB live", n, limit>>10, live>>10)
	assert.Less(t, live, int64(4*limit))
}
