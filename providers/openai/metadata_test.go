package openai_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestLongMetadataRefused: a reply's model or finish_reason
// longer than 1 KiB makes it malformed, in a body and in a stream, rather
// than being kept uncounted (a stream line of one, up to eight times the
// limit, was kept whole). One of 1 KiB is read.
func TestLongMetadataRefused(t *testing.T) {
	t.Parallel()
	long, most := strings.Repeat("x", 1<<10+1), strings.Repeat("x", 1<<10)
	body := func(model, finish string) string {
		return `{"model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"` + finish + `"}]}`
	}
	stream := func(model, finish string) string {
		return `data: {"model":"` + model + `","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"` + finish + `"}]}` + "\n\ndata: [DONE]\n\n"
	}
	for _, tc := range []struct {
		name, body, wantErr string // wantErr empty: read
		stream              bool
	}{
		{name: "model", body: body(long, "stop"), wantErr: "model is longer than 1 KiB"},
		{name: "finish_reason", body: body("m", long), wantErr: "finish_reason is longer than 1 KiB"},
		{name: "1 KiB", body: body(most, most)},
		{name: "stream model", body: stream(long, "stop"), stream: true, wantErr: "model is longer than 1 KiB"},
		{name: "stream finish_reason", body: stream("m", long), stream: true, wantErr: "finish_reason is longer than 1 KiB"},
		{name: "stream 1 KiB", body: stream(most, most), stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctype := "application/json"
			if tc.stream {
				ctype = "text/event-stream"
			}
			m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m",
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
