package gemini_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// A 404 whose message names no model is quoted cut to 64 bytes before
// the key is removed, so a key that straddles the cut is left in part.
func TestNotFoundMessageShowsNoPartOfTheKey(t *testing.T) {
	msg := "Requested entity was not found; request key was: " + testKey + " (sent from 10.0.0.1)"
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 404, "message": msg, "status": "NOT_FOUND"}})
	srv, _ := serve(t, status(404, string(body)))
	m := newModel(srv, gemini.Config{MaxRetries: gemini.NoRetries})
	_, err := m.Chat(context.Background(), hiRequest)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), testKey[:12]) {
		t.Errorf("error shows the first 12 bytes of the key: %v", err)
	}
}

// The key goes in x-goog-api-key, which net/http copies onto a redirect
// to another host (it strips only Authorization, Cookie and
// WWW-Authenticate), so a 307 from the server, a proxy or an open
// redirect hands the key and the conversation to whoever it names.
func TestRedirectElsewhereGetsNoKey(t *testing.T) {
	var got string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("X-Goog-Api-Key")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(textChunk("hi", "STOP")))
	}))
	defer evil.Close()
	// Another host: 127.0.0.1 vs localhost.
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evilURL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	m := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: testKey, Model: testModel})
	m.Chat(context.Background(), hiRequest)
	if got != "" {
		t.Errorf("the redirect's target at another host received x-goog-api-key %q", got)
	}
}

// A server's error message goes into the error whole: 64 KiB of it, with
// newlines and terminal escapes, into every log line that prints err.
func TestErrorMessageBoundedAndPrintable(t *testing.T) {
	msg := "bad request\n2026-11-28 INFO payment approved\x1b[2J" + strings.Repeat("A", 60<<10)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}})
	srv, _ := serve(t, status(400, string(body)))
	m := newModel(srv, gemini.Config{MaxRetries: gemini.NoRetries})
	_, err := m.Chat(context.Background(), hiRequest)
	s := err.Error()
	if len(s) > 4<<10 || strings.ContainsAny(s, "\n\x1b") {
		t.Errorf("error is %d bytes and has control characters: %q...", len(s), s[:80])
	}
}

// A BaseURL with a proxy's credentials (https://user:pass@proxy) shows
// the password in the message of a refused connection and in String;
// net/http itself redacts it from its own errors.
func TestBaseURLPasswordNotShown(t *testing.T) {
	l := httptest.NewServer(http.NotFoundHandler())
	addr := l.Listener.Addr().String()
	l.Close() // nothing listens there now
	m := gemini.New(gemini.Config{BaseURL: "http://proxyuser:proxy-SECRET-pw@" + addr, APIKey: testKey, Model: testModel, MaxRetries: gemini.NoRetries})
	_, err := m.Chat(context.Background(), hiRequest)
	for _, s := range []string{err.Error(), m.String()} {
		if strings.Contains(s, "proxy-SECRET-pw") {
			t.Errorf("shows the BaseURL's password: %s", s)
		}
	}
}

// TestDuplicateCallIDsAnsweredAsSent: two calls the API gave one id go
// back with that id, and so do their results, never with the id the reply
// made up for the second.
func TestDuplicateCallIDsAnsweredAsSent(t *testing.T) {
	first := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"x","name":"get_weather","args":{"city":"A"}},"thoughtSignature":"c2ln"},{"functionCall":{"id":"x","name":"get_weather","args":{"city":"B"}}}]},"finishReason":"STOP","index":0}]}`
	srv, capt := serve(t, reply(first), reply(textChunk("ok", "STOP")))
	m := newModel(srv, gemini.Config{})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}, Tools: []chat.ToolDefinition{weatherTool}}
	resp, err := m.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, resp.Message)
	for _, c := range resp.Message.ToolCalls {
		req.Messages = append(req.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "sunny"})
	}
	if _, err := m.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := string(capt.Get(t, 1).Body)
	if strings.Contains(body, `"id":"x_1"`) {
		t.Errorf("the request answers a call by an id the server never gave (x_1):\n%s", body)
	}
}
