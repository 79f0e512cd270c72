package openairesponses_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestKeptItemsCountTheirValues: the output items a stream keeps to send
// back count their values as well as their bytes: a message item with
// logprobs is decoded again when the reply is put together, so many such
// items of tiny parts are refused rather than decoded into many times the
// limit.
func TestKeptItemsCountTheirValues(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	var b strings.Builder
	b.WriteString("event: response.output_item.done\ndata: " +
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs","summary":[],"encrypted_content":"xyz"}}` + "\n\n")
	parts := `{"logprobs":[]}` + strings.Repeat(`,{}`, 1000)
	for i := 1; i <= 30; i++ { // 90 KiB of items, 7.5 MiB of values
		fmt.Fprintf(&b, "event: response.output_item.done\ndata: "+
			`{"type":"response.output_item.done","output_index":%d,"item":{"type":"message","id":"m%d","role":"assistant","content":[%s]}}`+"\n\n", i, i, parts)
	}
	b.WriteString("event: response.completed\ndata: " +
		`{"type":"response.completed","response":{"id":"r","status":"completed","model":"tiny","output":[]}}` + "\n\n")
	body := b.String()
	srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	})
	_, err := newModel(srv, openairesponses.Config{MaxResponseBytes: limit}).Stream(context.Background(),
		&chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, nil)
	require.ErrorIs(t, err, chat.ErrBadResponse)
	assert.Contains(t, err.Error(), "streamed reply is larger than the 1 MiB limit")
}
