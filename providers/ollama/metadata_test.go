package ollama_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// TestLongMetadataRefused: a reply's model, role or done_reason
// longer than 1 KiB makes it malformed, in a body and in a stream, rather
// than being kept uncounted (a stream line of one, up to eight times the
// limit, was kept whole). One of 1 KiB is read.
func TestLongMetadataRefused(t *testing.T) {
	t.Parallel()
	long, most := strings.Repeat("x", 1<<10+1), strings.Repeat("x", 1<<10)
	body := func(model, role, reason string) string {
		return `{"model":"` + model + `","message":{"role":"` + role + `","content":"hi"},"done":true,"done_reason":"` + reason + `"}`
	}
	for _, tc := range []struct {
		name, body, wantErr string // wantErr empty: read
		stream              bool
	}{
		{name: "model", body: body(long, "assistant", "stop"), wantErr: "model is longer than 1 KiB"},
		{name: "role", body: body("m", long, "stop"), wantErr: "role is longer than 1 KiB"},
		{name: "done_reason", body: body("m", "assistant", long), wantErr: "done_reason is longer than 1 KiB"},
		{name: "1 KiB", body: body(most, most, most)},
		{name: "stream model", body: body(long, "assistant", "stop") + "\n", stream: true, wantErr: "model is longer than 1 KiB"},
		{name: "stream role", body: body("m", long, "stop") + "\n", stream: true, wantErr: "role is longer than 1 KiB"},
		{name: "stream done_reason", body: body("m", "assistant", long) + "\n", stream: true, wantErr: "done_reason is longer than 1 KiB"},
		{name: "stream 1 KiB", body: body(most, most, most) + "\n", stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctype := "application/json"
			if tc.stream {
				ctype = "application/x-ndjson"
			}
			m := ollama.New(ollama.Config{BaseURL: "http://ollama.invalid", Model: "m",
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
