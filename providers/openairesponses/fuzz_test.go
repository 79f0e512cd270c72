package openairesponses_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// cannedBody answers every request with the same response, without a
// network.
type cannedBody struct {
	status      int
	contentType string
	body        []byte
}

func (c cannedBody) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: c.status, Status: http.StatusText(c.status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {c.contentType}}, Body: io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: r,
	}, nil
}

func fuzzModel(contentType string, body []byte) *openairesponses.Model {
	return openairesponses.New(openairesponses.Config{
		BaseURL:    "http://responses.invalid/v1",
		APIKey:     testKey,
		Model:      "fuzz",
		HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: contentType, body: body}},
		MaxRetries: openairesponses.NoRetries,
	})
}

var fuzzRequest = &chat.Request{
	Messages: []chat.Message{chat.UserMessage("hi")},
	Tools:    []chat.ToolDefinition{weatherTool, nowTool},
}

// checkReply holds for every reply, whatever the server sent: an error is
// a ProviderError of this package without the key; a reply's calls have
// unique ids and arguments, its finish reason agrees with its calls, and
// the reply can be sent back: its ProviderData and calls make a valid
// next request.
func checkReply(t *testing.T, m *openairesponses.Model, resp *chat.Response, err error) {
	t.Helper()
	if err != nil {
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.Provider != "openairesponses" {
			t.Fatalf("error is not a *chat.ProviderError of this package: %T %v", err, err)
		}
		if resp != nil {
			t.Fatalf("both a reply and an error: %v", err)
		}
		providertest.CheckNoKey(t, err, testKey)
		return
	}
	if resp == nil || resp.Message.Role != chat.RoleAssistant {
		t.Fatalf("reply %+v", resp)
	}
	seen := map[string]bool{}
	for i, c := range resp.Message.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("call %d: id %q is empty or repeated", i, c.ID)
		}
		seen[c.ID] = true
		if s := strings.TrimSpace(string(c.Arguments)); s == "" || s == "null" {
			t.Fatalf("call %d: arguments %q not normalised to {}", i, c.Arguments)
		}
	}
	switch {
	case resp.FinishReason == chat.FinishLength || resp.FinishReason == chat.FinishFiltered:
	case len(resp.Message.ToolCalls) > 0 && resp.FinishReason != chat.FinishToolCalls:
		t.Fatalf("reply with tool calls finished with %q", resp.FinishReason)
	case len(resp.Message.ToolCalls) == 0 && resp.FinishReason != chat.FinishStop:
		t.Fatalf("reply without tool calls finished with %q", resp.FinishReason)
	}
	next := &chat.Request{Messages: append([]chat.Message{chat.UserMessage("hi")}, resp.Message)}
	for _, c := range resp.Message.ToolCalls {
		next.Messages = append(next.Messages, chat.ToolMessage(c, "ok"))
	}
	if _, err := m.Chat(context.Background(), next); errors.Is(err, chat.ErrBadRequest) {
		t.Fatalf("the reply cannot be sent back: %v", err)
	}
}

// FuzzStream reads any body as a stream: no panic, and checkReply; the
// text yielded is the reply's text.
func FuzzStream(f *testing.F) {
	providertest.AddSeeds(f, ".sse.txt")
	f.Add([]byte("data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\"}}\n\ndata: {\"type\":\"response.completed\",\"response\":{}}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		m := fuzzModel("text/event-stream", body)
		var text strings.Builder
		resp, err := m.Stream(context.Background(), fuzzRequest, func(d chat.Delta) bool {
			text.WriteString(d.Content)
			return true
		})
		checkReply(t, m, resp, err)
		if err == nil && text.String() != resp.Message.Content {
			t.Fatalf("yielded text %q, reply text %q", text.String(), resp.Message.Content)
		}
	})
}

// FuzzReply reads any body as a JSON reply: no panic, and checkReply.
func FuzzReply(f *testing.F) {
	providertest.AddSeeds(f, ".response.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		m := fuzzModel("application/json", body)
		resp, err := m.Chat(context.Background(), fuzzRequest)
		checkReply(t, m, resp, err)
	})
}
