package gemini_test

import (
	"context"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"

	"github.com/toolcall-go/toolcall/providers/gemini"
)

// fuzzModel returns a model whose every request is answered with body, of
// content type ctype, without a network.
func fuzzModel(ctype string, body []byte) *gemini.Model {
	hc := providertest.ReplyingClient(ctype, body)
	return gemini.New(gemini.Config{BaseURL: "http://fuzz.invalid", APIKey: testKey, Model: "m", HTTPClient: hc,
		MaxRetries: gemini.NoRetries, MaxResponseBytes: 1 << 20})
}

// checkFuzzed checks what a call made of an untrusted reply
// (providertest.CheckFuzzed).
func checkFuzzed(t *testing.T, resp *chat.Response, err error) {
	t.Helper()
	providertest.CheckFuzzed(t, resp, err, testKey, func(history []chat.Message) error {
		_, err := fuzzModel("application/json", []byte(okText)).Chat(context.Background(), &chat.Request{Messages: history})
		return err
	})
}

// FuzzReply feeds arbitrary bodies to Chat.
func FuzzReply(f *testing.F) {
	providertest.AddSeeds(f, ".response.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := fuzzModel("application/json", body).Chat(context.Background(), hiRequest)
		checkFuzzed(t, resp, err)
	})
}

// FuzzStream feeds arbitrary event streams to Stream.
func FuzzStream(f *testing.F) {
	providertest.AddSeeds(f, ".response.sse.txt")
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := fuzzModel("text/event-stream", body).Stream(context.Background(), hiRequest, func(chat.Delta) bool { return true })
		checkFuzzed(t, resp, err)
	})
}
