package ollama_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// TestRepeatedCallIDs: a reply of 5,000 calls with one id, whole or
// streamed, gets 5,000 ids, in time in proportion to the calls (trying
// every suffix from 1 for each call took minutes).
func TestRepeatedCallIDs(t *testing.T) {
	t.Parallel()
	const n = 5000
	calls := strings.Repeat(`{"id":"call_1","function":{"name":"now","arguments":{}}},`, n)
	body := `{"model":"tiny-toolcaller","message":{"role":"assistant","content":"","tool_calls":[` + strings.TrimSuffix(calls, ",") + `]},"done":true}` + "\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	m := newModel(srv, ollama.Config{})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}
	for name, send := range map[string]func() (*chat.Response, error){
		"chat":   func() (*chat.Response, error) { return m.Chat(context.Background(), req) },
		"stream": func() (*chat.Response, error) { return m.Stream(context.Background(), req, nil) },
	} {
		providertest.CheckRepeatedIDs(t, name, "call_1", n, send)
	}
}
