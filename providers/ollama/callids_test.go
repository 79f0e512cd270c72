package ollama_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		start := time.Now()
		resp, err := send()
		require.NoError(t, err, name)
		assert.Less(t, time.Since(start), 30*time.Second, name)
		require.Len(t, resp.Message.ToolCalls, n, name)
		seen := map[string]bool{}
		for _, c := range resp.Message.ToolCalls {
			seen[c.ID] = true
		}
		assert.Len(t, seen, n, name)
		assert.Equal(t, "call_1", resp.Message.ToolCalls[0].ID, name)
		assert.Equal(t, "call_1_1", resp.Message.ToolCalls[1].ID, name)
		assert.Equal(t, "call_1_4999", resp.Message.ToolCalls[n-1].ID, name)
	}
}
