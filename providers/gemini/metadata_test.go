package gemini_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// TestLongMetadataRefused: a reply's modelVersion or finishReason
// longer than 1 KiB makes it malformed, in a body and in a stream, rather
// than being kept uncounted (a stream line of one, up to eight times the
// limit, was kept whole). One of 1 KiB is read.
func TestLongMetadataRefused(t *testing.T) {
	t.Parallel()
	long, most := strings.Repeat("x", 1<<10+1), strings.Repeat("x", 1<<10)
	body := func(model, finish string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"` + finish + `","index":0}],"modelVersion":"` + model + `"}`
	}
	for _, tc := range []struct {
		name, body, wantErr string // wantErr empty: read
		stream              bool
	}{
		{name: "modelVersion", body: body(long, "STOP"), wantErr: "modelVersion is longer than 1 KiB"},
		{name: "finishReason", body: body("m", long), wantErr: "finishReason is longer than 1 KiB"},
		{name: "1 KiB", body: body(most, most)},
		{name: "stream modelVersion", body: sse(body(long, "STOP")), stream: true, wantErr: "modelVersion is longer than 1 KiB"},
		{name: "stream finishReason", body: sse(body("m", long)), stream: true, wantErr: "finishReason is longer than 1 KiB"},
		{name: "stream 1 KiB", body: sse(body(most, most)), stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctype := "application/json"
			if tc.stream {
				ctype = "text/event-stream"
			}
			m := gemini.New(gemini.Config{BaseURL: "http://gemini.invalid", APIKey: testKey, Model: "gemini-test",
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
			pe := checkProviderError(t, err, chat.ErrBadResponse, 200, "gemini-test")
			assert.Equal(t, tc.wantErr, pe.Message)
		})
	}
}
