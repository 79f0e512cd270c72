package openai_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestManyTinyCallsBounded: a reply within the byte limit that holds
// thousands of tiny calls is refused as too large, as a stream of them is:
// each call counts for more than its bytes.
func TestManyTinyCallsBounded(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	one := `{"function":{"name":"f"}},`
	calls := strings.TrimSuffix(strings.Repeat(one, 2000), ",")
	body := `{"model":"tiny","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[` + calls + `]},"finish_reason":"tool_calls"}]}`
	if len(body) >= limit {
		t.Fatalf("the body (%d bytes) must be within the limit", len(body))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	m := newModel(srv, openai.Config{MaxResponseBytes: limit})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
	if err == nil || !strings.Contains(err.Error(), "larger than") && !strings.Contains(err.Error(), "limit") {
		t.Fatalf("error %v, want the reply refused as too large", err)
	}
}
