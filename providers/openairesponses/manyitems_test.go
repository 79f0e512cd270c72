package openairesponses_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestManyTinyItemsBounded: a reply within the byte limit that holds
// thousands of tiny items is refused as too large, as a stream of them is.
func TestManyTinyItemsBounded(t *testing.T) {
	t.Parallel()
	const limit = 128 << 10
	one := `{"type":"function_call","name":"f","call_id":"c"},`
	items := strings.TrimSuffix(strings.Repeat(one, 2500), ",")
	body := `{"id":"resp_1","object":"response","status":"completed","model":"tiny-toolcaller","output":[` + items + `]}`
	if len(body) >= limit {
		t.Fatalf("the body (%d bytes) must be within the limit", len(body))
	}
	srv, _ := serve(t, func(w http.ResponseWriter, i int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	})
	m := newModel(srv, openairesponses.Config{MaxResponseBytes: limit})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("error %v, want the reply refused as too large", err)
	}
}
