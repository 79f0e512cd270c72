package ollama_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

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
	providertest.CheckMetadata(t, "application/x-ndjson", func(c *http.Client) chat.StreamingModel {
		return ollama.New(ollama.Config{BaseURL: "http://ollama.invalid", Model: "m",
			HTTPClient: c})
	}, []providertest.MetadataCase{
		{Name: "model", Body: body(long, "assistant", "stop"), WantErr: "model is longer than 1 KiB"},
		{Name: "role", Body: body("m", long, "stop"), WantErr: "role is longer than 1 KiB"},
		{Name: "done_reason", Body: body("m", "assistant", long), WantErr: "done_reason is longer than 1 KiB"},
		{Name: "1 KiB", Body: body(most, most, most), Model: most},
		{Name: "stream model", Body: body(long, "assistant", "stop") + "\n", Stream: true, WantErr: "model is longer than 1 KiB"},
		{Name: "stream role", Body: body("m", long, "stop") + "\n", Stream: true, WantErr: "role is longer than 1 KiB"},
		{Name: "stream done_reason", Body: body("m", "assistant", long) + "\n", Stream: true, WantErr: "done_reason is longer than 1 KiB"},
		{Name: "stream 1 KiB", Body: body(most, most, most) + "\n", Stream: true, Model: most},
	})
}
