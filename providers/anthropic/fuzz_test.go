package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// fuzzModel returns a model whose every request is answered with body, of
// content type ctype, without a network.
func fuzzModel(ctype string, body []byte) *anthropic.Model {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		return &http.Response{
			StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Content-Type": {ctype}},
			Body:    io.NopCloser(strings.NewReader(string(body))),
			Request: r,
		}, nil
	})}
	return anthropic.New(anthropic.Config{BaseURL: "http://fuzz.invalid", APIKey: testKey, Model: "m", HTTPClient: hc,
		MaxRetries: anthropic.NoRetries, MaxResponseBytes: 1 << 20})
}

// seedFuzz adds every recorded body whose name ends in suffix: those of
// the local servers and of the cloud API (testdata/cloud).
func seedFuzz(f *testing.F, suffix string) {
	var files []string
	for _, pattern := range []string{"*", "*/*", "cloud/*/*/*"} {
		more, err := filepath.Glob(filepath.Join("testdata", pattern+suffix))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, more...)
	}
	if !slices.ContainsFunc(files, func(name string) bool { return strings.Contains(name, filepath.Join("cloud", "anthropic-messages")) }) {
		f.Fatalf("no recording of the cloud API ends in %s", suffix)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkFuzzed checks what a call made of an untrusted reply: an error is a
// *chat.ProviderError that never shows the key; a reply has unique call
// ids and goes back in the next request without an error.
func checkFuzzed(t *testing.T, m *anthropic.Model, resp *chat.Response, err error) {
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
	// The reply goes back, with a result for each call.
	history := []chat.Message{chat.UserMessage("hi"), resp.Message}
	for _, c := range resp.Message.ToolCalls {
		history = append(history, chat.ToolMessage(c, "ok"))
	}
	if resp.Message.Content == "" && len(resp.Message.ToolCalls) == 0 && len(resp.Message.ProviderData) == 0 {
		return // an empty reply adds nothing to send back
	}
	back := fuzzModel("application/json", []byte(okReply))
	if _, err := back.Chat(context.Background(), &chat.Request{Messages: history}); err != nil {
		t.Fatalf("the reply cannot be sent back: %v", err)
	}
}

// FuzzReply feeds arbitrary bodies to Chat.
func FuzzReply(f *testing.F) {
	seedFuzz(f, ".response.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		m := fuzzModel("application/json", body)
		resp, err := m.Chat(context.Background(), hiRequest)
		checkFuzzed(t, m, resp, err)
	})
}

// FuzzStream feeds arbitrary event streams to Stream.
func FuzzStream(f *testing.F) {
	seedFuzz(f, ".response.sse.txt")
	f.Fuzz(func(t *testing.T, body []byte) {
		m := fuzzModel("text/event-stream", body)
		resp, err := m.Stream(context.Background(), hiRequest, func(chat.Delta) bool { return true })
		checkFuzzed(t, m, resp, err)
	})
}
