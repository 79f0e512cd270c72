package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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

// checkFuzzed checks what a call made of an untrusted reply: an error is a
// *chat.ProviderError that never shows the key; a reply has unique call
// ids and goes back in the next request, with a result for each call,
// without an error.
func checkFuzzed(t *testing.T, resp *chat.Response, err error) {
	t.Helper()
	if err != nil {
		var pe *chat.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T is not a *chat.ProviderError: %v", err, err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Fatalf("the key shows in %v", err)
		}
		return
	}
	if resp == nil || resp.FinishReason == "" {
		t.Fatalf("a reply without a finish reason: %+v", resp)
	}
	seen := map[string]bool{}
	for _, c := range resp.Message.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("call id %q is empty or repeated in %+v", c.ID, resp.Message.ToolCalls)
		}
		seen[c.ID] = true
	}
	if len(resp.Message.ProviderData) > 0 && !json.Valid(resp.Message.ProviderData) {
		t.Fatalf("ProviderData is not JSON: %s", resp.Message.ProviderData)
	}
	history := []chat.Message{chat.UserMessage("hi"), resp.Message}
	for _, c := range resp.Message.ToolCalls {
		history = append(history, chat.ToolMessage(c, "ok"))
	}
	back := fuzzModel("application/json", []byte(okText))
	if _, err := back.Chat(context.Background(), &chat.Request{Messages: history}); err != nil {
		t.Fatalf("the reply cannot be sent back: %v", err)
	}
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
