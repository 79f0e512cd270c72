package openairesponses_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestLongMetadataRefused: a reply's model
// longer than 1 KiB makes it malformed, in a body and in a stream, rather
// than being kept uncounted (a stream line of one, up to eight times the
// limit, was kept whole). One of 1 KiB is read.
func TestLongMetadataRefused(t *testing.T) {
	t.Parallel()
	long, most := strings.Repeat("x", 1<<10+1), strings.Repeat("x", 1<<10)
	response := func(model string) string {
		return `{"id":"r","object":"response","status":"completed","model":"` + model + `","output":[{"type":"message","id":"msg","role":"assistant","status":"completed","content":[{"type":"output_text","text":"hi"}]}]}`
	}
	stream := func(created, completed string) string {
		return sse(`{"type":"response.created","response":{"id":"r","status":"in_progress","model":"`+created+`","output":[]}}`,
			`{"type":"response.completed","response":`+response(completed)+`}`)
	}
	for _, tc := range []struct {
		name, body, wantErr string // wantErr empty: read
		stream              bool
	}{
		{name: "model", body: response(long), wantErr: "model is longer than 1 KiB"},
		{name: "1 KiB", body: response(most)},
		{name: "stream created", body: stream(long, "m"), stream: true, wantErr: "model is longer than 1 KiB"},
		{name: "stream completed", body: stream("m", long), stream: true, wantErr: "model is longer than 1 KiB"},
		{name: "stream 1 KiB", body: stream(most, most), stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctype := "application/json"
			if tc.stream {
				ctype = "text/event-stream"
			}
			m := openairesponses.New(openairesponses.Config{BaseURL: "http://responses.invalid/v1", APIKey: testKey, Model: "m",
				HTTPClient: providertest.ReplyingClient(ctype, []byte(tc.body))})
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
			var resp *chat.Response
			var err error
			if tc.stream {
				resp, err = m.Stream(context.Background(), req, nil)
			} else {
				resp, err = m.Chat(context.Background(), req)
			}
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.Equal(t, most, resp.Model)
				return
			}
			pe := checkProviderError(t, err, chat.ErrBadResponse, 200, "m")
			assert.Equal(t, tc.wantErr, pe.Message)
		})
	}
}
