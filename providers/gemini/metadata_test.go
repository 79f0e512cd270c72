package gemini_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

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
	providertest.CheckMetadata(t, "text/event-stream", func(c *http.Client) chat.StreamingModel {
		return gemini.New(gemini.Config{BaseURL: "http://gemini.invalid", APIKey: testKey, Model: "gemini-test",
			HTTPClient: c})
	}, []providertest.MetadataCase{
		{Name: "modelVersion", Body: body(long, "STOP"), WantErr: "modelVersion is longer than 1 KiB"},
		{Name: "finishReason", Body: body("m", long), WantErr: "finishReason is longer than 1 KiB"},
		{Name: "1 KiB", Body: body(most, most), Model: most},
		{Name: "stream modelVersion", Body: sse(body(long, "STOP")), Stream: true, WantErr: "modelVersion is longer than 1 KiB"},
		{Name: "stream finishReason", Body: sse(body("m", long)), Stream: true, WantErr: "finishReason is longer than 1 KiB"},
		{Name: "stream 1 KiB", Body: sse(body(most, most)), Stream: true, Model: most},
	})
}
