package anthropic_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

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
	providertest.CheckMetadata(t, "text/event-stream", func(c *http.Client) chat.StreamingModel {
		return anthropic.New(anthropic.Config{BaseURL: "http://anthropic.invalid", APIKey: testKey, Model: "m",
			HTTPClient: c})
	}, []providertest.MetadataCase{
		{Name: "model", Body: body(long, "end_turn"), WantErr: "model is longer than 1 KiB"},
		{Name: "stop_reason", Body: body("m", long), WantErr: "stop_reason is longer than 1 KiB"},
		{Name: "1 KiB", Body: body(most, most), Model: most},
		{Name: "stream model", Body: stream(long, "end_turn"), Stream: true, WantErr: "model is longer than 1 KiB"},
		{Name: "stream stop_reason", Body: stream("m", long), Stream: true, WantErr: "stop_reason is longer than 1 KiB"},
		{Name: "stream 1 KiB", Body: stream(most, most), Stream: true, Model: most},
	})
}
