package openai_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestStreamLimitBoundsAll: the response limit bounds everything a stream
// assembles, not only text and arguments: call ids, names, the
// extra_content kept with a call or a message, a thought signature, and
// the number of calls (each counts 128 bytes besides its own). Each stream
// here is within the limit but for one of them, and is read whole with a
// limit large enough.
func TestStreamLimitBoundsAll(t *testing.T) {
	t.Parallel()
	const limit = 4 << 10
	big := strings.Repeat("x", limit)
	chunk := func(delta string) string {
		return `data: {"choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
	}
	end := `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	var manyCalls strings.Builder
	for i := range 40 { // 40 calls of 1-byte names: 40 bytes, and 40·128 for the calls
		fmt.Fprintf(&manyCalls, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"name":"f"}}]}}]}`+"\n\n", i)
	}
	var earlyExtras strings.Builder
	for i := range 40 { // extra_content alone at 40 indexes, each waiting for its call
		fmt.Fprintf(&earlyExtras, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"extra_content":{"a":1}}]}}]}`+"\n\n", i)
	}
	for _, tc := range []struct {
		name, body string
		calls      int // in the reply read without the limit
	}{
		{name: "id", body: chunk(`{"tool_calls":[{"index":0,"id":"`+big+`","function":{"name":"f","arguments":"{}"}}]}`) + end, calls: 1},
		{name: "name", body: chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"`+big+`","arguments":"{}"}}]}`) + end, calls: 1},
		{name: "call extra_content", body: chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"},"extra_content":{"google":{"thought_signature":"`+big+`"}}}]}`) + end, calls: 1},
		{name: "early call extra_content", body: chunk(`{"tool_calls":[{"index":0,"extra_content":{"s":"`+big+`"}}]}`) + chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]}`) + end, calls: 1},
		{name: "message extra_content", body: chunk(`{"content":"hi","extra_content":{"google":{"thought_signature":"`+big+`"}}}`) + end},
		{name: "message thought_signature", body: chunk(`{"content":"hi","thought_signature":"`+big+`"}`) + end},
		{name: "number of calls", body: manyCalls.String() + end, calls: 40},
		{name: "calls waiting for their first fragment", body: earlyExtras.String() + end},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := func(max int) *openai.Model {
				return openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m", MaxResponseBytes: max,
					HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: "text/event-stream", body: []byte(tc.body)}}})
			}
			_, err := model(limit).Stream(context.Background(), fuzzRequest, nil)
			pe := checkProviderError(t, err, chat.ErrBadResponse, 200, "m")
			assert.Equal(t, "streamed reply is larger than the 4 KiB limit (Config.MaxResponseBytes)", pe.Message)

			resp, err := model(toolcall.NoLimit).Stream(context.Background(), fuzzRequest, nil)
			require.NoError(t, err)
			assert.Len(t, resp.Message.ToolCalls, tc.calls)
		})
	}
}

// TestJSONReplyToStreamBoundedAsBody: a whole JSON reply answering a
// stream is bounded by the limit as Chat bounds a body, not by the line
// bound (eight times the limit); within it, it is read.
func TestJSONReplyToStreamBoundedAsBody(t *testing.T) {
	t.Parallel()
	body := func(n int) string {
		return `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("x", n) + `"},"finish_reason":"stop"}]}`
	}
	model := func(body string) *openai.Model {
		return openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m", MaxResponseBytes: 64 << 10,
			HTTPClient: providertest.ReplyingClient("application/json", []byte(body))})
	}
	_, err := model(body(100<<10)).Stream(context.Background(), fuzzRequest, nil)
	pe := checkProviderError(t, err, chat.ErrBadResponse, 200, "m")
	assert.Equal(t, "response body is larger than the 64 KiB limit (Config.MaxResponseBytes)", pe.Message)

	resp, err := model(body(60<<10)).Stream(context.Background(), fuzzRequest, nil)
	require.NoError(t, err)
	assert.Len(t, resp.Message.Content, 60<<10)
}

// TestHugeLimit: MaxResponseBytes math.MaxInt reads a chunked reply (no
// Content-Length), where the first buffer's size overflowed and panicked.
func TestHugeLimit(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.(http.Flusher).Flush() // chunked
		_, _ = io.WriteString(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	m := newModel(srv, openai.Config{MaxResponseBytes: math.MaxInt})
	var resp *chat.Response
	var err error
	require.NotPanics(t, func() { resp, err = m.Chat(context.Background(), fuzzRequest) })
	require.NoError(t, err)
	assert.Equal(t, "hi", resp.Message.Content)
}
