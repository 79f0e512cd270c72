package openairesponses_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

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
	providertest.CheckMetadata(t, "text/event-stream", func(c *http.Client) chat.StreamingModel {
		return openairesponses.New(openairesponses.Config{BaseURL: "http://responses.invalid/v1", APIKey: testKey, Model: "m",
			HTTPClient: c})
	}, []providertest.MetadataCase{
		{Name: "model", Body: response(long), WantErr: "model is longer than 1 KiB"},
		{Name: "1 KiB", Body: response(most), Model: most},
		{Name: "stream created", Body: stream(long, "m"), Stream: true, WantErr: "model is longer than 1 KiB"},
		{Name: "stream completed", Body: stream("m", long), Stream: true, WantErr: "model is longer than 1 KiB"},
		{Name: "stream 1 KiB", Body: stream(most, most), Stream: true, Model: most},
	})
}
