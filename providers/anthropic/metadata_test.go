package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestLongMetadataRefused: a reply's model or stop_reason
// longer than 1 KiB makes it malformed, in a body and in a stream, rather
// than being kept uncounted (a stream line of one, up to eight times the
// limit, was kept whole). One of 1 KiB is read.
func TestLongMetadataRefused(t *testing.T) {
	t.Parallel()
	long, most := strings.Repeat("x", 1<<10+1), strings.Repeat("x", 1<<10)
	body := func(model, stop string) string {
		return `{"type":"message","role":"assistant","model":"` + model + `","content":[{"type":"text","text":"hi"}],"stop_reason":"` + stop + `","usage":{"input_tokens":1,"output_tokens":1}}`
	}
	stream := func(model, stop string) string {
		return sse(`{"type":"message_start","message":{"type":"message","role":"assistant","model":"`+model+`","content":[],"usage":{"input_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"hi"}}`,
			`{"type":"message_delta","delta":{"stop_reason":"`+stop+`"},"usage":{"output_tokens":1}}`,
			`{"type":"message_stop"}`)
	}
	for _, tc := range []struct {
		name, body, wantErr string // wantErr empty: read
		stream              bool
	}{
		{name: "model", body: body(long, "end_turn"), wantErr: "model is longer than 1 KiB"},
		{name: "stop_reason", body: body("m", long), wantErr: "stop_reason is longer than 1 KiB"},
		{name: "1 KiB", body: body(most, most)},
		{name: "stream model", body: stream(long, "end_turn"), stream: true, wantErr: "model is longer than 1 KiB"},
		{name: "stream stop_reason", body: stream("m", long), stream: true, wantErr: "stop_reason is longer than 1 KiB"},
		{name: "stream 1 KiB", body: stream(most, most), stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctype := "application/json"
			if tc.stream {
				ctype = "text/event-stream"
			}
			m := anthropic.New(anthropic.Config{BaseURL: "http://anthropic.invalid", APIKey: testKey, Model: "m",
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
