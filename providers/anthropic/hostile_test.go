package anthropic_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// A 404 whose message names no model is quoted cut to 64 bytes before
// the Endpoint removes the key, so a key that straddles the cut stays in
// part.
func TestNotFoundMessageShowsNoPartOfTheKey(t *testing.T) {
	msg := "Not Found; the request came with x-api-key header: " + testKey + " from 10.0.0.1"
	body, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": msg}})
	srv, _ := serve(t, status(404, string(body)))
	m := newModel(srv, anthropic.Config{MaxRetries: anthropic.NoRetries})
	_, err := m.Chat(context.Background(), hiRequest)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), testKey[:10]) {
		t.Errorf("error shows the first 10 bytes of the key: %v", err)
	}
}

// The key goes in x-api-key, which net/http copies onto a redirect to
// another host (it strips only Authorization, Cookie and WWW-Authenticate).
func TestRedirectElsewhereGetsNoKey(t *testing.T) {
	var got string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("X-Api-Key")
		http.Error(w, "{}", http.StatusBadRequest)
	}))
	defer evil.Close()
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evilURL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	m := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: testKey, Model: "tiny-toolcaller", MaxRetries: anthropic.NoRetries})
	m.Chat(context.Background(), hiRequest)
	if got != "" {
		t.Errorf("the redirect's target at another host received x-api-key %q", got)
	}
}
