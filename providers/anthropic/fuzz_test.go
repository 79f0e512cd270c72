package anthropic_test

import (
	"context"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// fuzzModel returns a model whose every request is answered with body, of
// content type ctype, without a network.
func fuzzModel(ctype string, body []byte) *anthropic.Model {
	hc := providertest.ReplyingClient(ctype, body)
	return anthropic.New(anthropic.Config{BaseURL: "http://fuzz.invalid", APIKey: testKey, Model: "m", HTTPClient: hc,
		MaxRetries: anthropic.NoRetries, MaxResponseBytes: 1 << 20})
}

// checkFuzzed checks what a call made of an untrusted reply
// (providertest.CheckFuzzed); an empty reply adds nothing to send back.
func checkFuzzed(t *testing.T, resp *chat.Response, err error) {
	t.Helper()
	providertest.CheckFuzzed(t, resp, err, testKey, func(history []chat.Message) error {
		if r := history[1]; r.Content == "" && len(r.ToolCalls) == 0 && len(r.ProviderData) == 0 {
			return nil
		}
		_, err := fuzzModel("application/json", []byte(okReply)).Chat(context.Background(), &chat.Request{Messages: history})
		return err
	})
}

// FuzzReply feeds arbitrary bodies to Chat.
func FuzzReply(f *testing.F) {
	providertest.AddSeeds(f, ".response.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		m := fuzzModel("application/json", body)
		resp, err := m.Chat(context.Background(), hiRequest)
		checkFuzzed(t, resp, err)
	})
}

// FuzzStream feeds arbitrary event streams to Stream.
func FuzzStream(f *testing.F) {
	providertest.AddSeeds(f, ".response.sse.txt")
	f.Fuzz(func(t *testing.T, body []byte) {
		m := fuzzModel("text/event-stream", body)
		resp, err := m.Stream(context.Background(), hiRequest, func(chat.Delta) bool { return true })
		checkFuzzed(t, resp, err)
	})
}
