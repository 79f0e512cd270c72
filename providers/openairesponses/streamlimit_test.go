package openairesponses_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
