package openai_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

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
	providertest.CheckMetadata(t, "text/event-stream", func(c *http.Client) chat.StreamingModel {
		return openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m",
			HTTPClient: c})
	}, []providertest.MetadataCase{
		{Name: "model", Body: body(long, "stop"), WantErr: "model is longer than 1 KiB"},
		{Name: "finish_reason", Body: body("m", long), WantErr: "finish_reason is longer than 1 KiB"},
		{Name: "1 KiB", Body: body(most, most), Model: most},
		{Name: "stream model", Body: stream(long, "stop"), Stream: true, WantErr: "model is longer than 1 KiB"},
		{Name: "stream finish_reason", Body: stream("m", long), Stream: true, WantErr: "finish_reason is longer than 1 KiB"},
		{Name: "stream 1 KiB", Body: stream(most, most), Stream: true, Model: most},
	})
}
