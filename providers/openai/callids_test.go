package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestRepeatedCallIDs: a reply of 5,000 calls with one id, whole or
// streamed, gets 5,000 ids, in time in proportion to the calls (trying
// every suffix from 1 for each call took minutes).
func TestRepeatedCallIDs(t *testing.T) {
	t.Parallel()
	const n = 5000
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"index":%d,"id":"call_1","type":"function","function":{"name":"now","arguments":"{}"}}`, i)
	}
	whole := `{"model":"tiny","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[` + strings.Join(calls, ",") + `]},"finish_reason":"tool_calls"}]}`
	stream := "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[" + strings.Join(calls, ",") + "]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "event-stream") {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(stream))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(whole))
	}))
	t.Cleanup(srv.Close)
	m := newModel(srv, openai.Config{})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}
	for name, send := range map[string]func() (*chat.Response, error){
		"chat":   func() (*chat.Response, error) { return m.Chat(context.Background(), req) },
		"stream": func() (*chat.Response, error) { return m.Stream(context.Background(), req, nil) },
	} {
		providertest.CheckRepeatedIDs(t, name, "call_1", n, send)
	}
}
