package gemini_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// TestFloodsBounded: a reply or a stream line of many tiny values, within
// the byte limits, cannot make decoding allocate many times the limit.
// Not parallel: it measures the process's allocations.
func TestFloodsBounded(t *testing.T) {
	parts := func(elems string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[` + elems + `]},"finishReason":"STOP","index":0}]}`
	}
	candidates := func(elems string) string { return `{"candidates":[` + elems + `]}` }
	inPart := func(elems string) string { return parts(`{"text":"a",` + elems + `}`) }
	call := func(elems string) string { return parts(`{"functionCall":{"name":"f","args":{` + elems + `}}}`) }
	sse := func(body func(string) string) func(string) string {
		return func(elems string) string { return "data: " + body(elems) + "\r\n\r\n" }
	}
	providertest.CheckFloods(t, func(url string, limit int) chat.StreamingModel {
		return gemini.New(gemini.Config{BaseURL: url, APIKey: testKey, Model: testModel, MaxResponseBytes: limit, MaxRetries: gemini.NoRetries})
	}, []providertest.Flood{
		{Name: "parts", Body: parts},
		{Name: "candidates", Body: candidates},
		{Name: "part", Body: inPart, Members: true},
		{Name: "args", Body: call, Members: true},
		{Name: "stream parts", Body: sse(parts), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream candidates", Body: sse(candidates), Stream: true, ContentType: "text/event-stream"},
		{Name: "stream args", Body: sse(call), Stream: true, ContentType: "text/event-stream", Members: true},
	})
}

// TestStreamedCallsCountDecodedIDs: a streamed call counts its id and name
// as kept decoded, besides its part: bytes that are not UTF-8 decode to
// three each, so two calls within the limit as sent are past it decoded.
func TestStreamedCallsCountDecodedIDs(t *testing.T) {
	t.Parallel()
	id := strings.Repeat("\xff", 20<<10)
	callChunk := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"` + id + `","name":"f","args":{}}}]},"index":0}]}`
	body := sse(callChunk, callChunk, textChunk("", "STOP"))
	srv, _ := serve(t, reply(body))
	_, err := newModel(srv, gemini.Config{MaxResponseBytes: 64 << 10}).Stream(context.Background(),
		&chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, nil)
	pe := checkProviderError(t, err, chat.ErrBadResponse, 200, testModel)
	assert.Equal(t, "streamed reply is larger than the 64 KiB limit (Config.MaxResponseBytes)", pe.Message)
}
