package anthropic_test

import (
	"context"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestBaseURL: Config.BaseURL is the server's root, to which the package
// adds /v1/messages. A BaseURL that already ends in /v1 or /v1/messages
// (with or without a slash) is taken as meant; one that ends in another
// API's path is refused by the first request, before anything is sent,
// with an error that says what to set, never "model not found". The same
// goes for ANTHROPIC_BASE_URL.
func TestBaseURL(t *testing.T) {
	srv, c := serve(t, reply(okReplyBody))
	for _, suffix := range []string{"", "/", "/v1", "/v1/", "/v1/messages", "/v1/messages/"} {
		t.Run("root"+suffix, func(t *testing.T) {
			n := c.Count()
			m := anthropic.New(anthropic.Config{BaseURL: srv.URL + suffix, HTTPClient: srv.Client(), APIKey: testKey, Model: "m"})
			_, err := m.Chat(context.Background(), hiRequest)
			require.NoError(t, err)
			assert.Equal(t, messagesPath, c.Get(t, n).Path)
		})
	}
	for _, suffix := range []string{"/v1/chat/completions", "/chat/completions", "/v1/responses", "/v1/completions", "/api/chat"} {
		t.Run("refused"+suffix, func(t *testing.T) {
			n := c.Count()
			m := anthropic.New(anthropic.Config{BaseURL: srv.URL + suffix, HTTPClient: srv.Client(), APIKey: testKey, Model: "m"})
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					_, err = m.Stream(context.Background(), hiRequest, nil)
				} else {
					_, err = m.Chat(context.Background(), hiRequest)
				}
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, "m")
				assert.NotErrorIs(t, err, chat.ErrModelNotFound)
				assert.Equal(t, 0, pe.Attempts)
				assert.Contains(t, pe.Message, `BaseURL "`+srv.URL+suffix+`" ends in `)
				assert.Contains(t, pe.Message, "set Config.BaseURL (or ANTHROPIC_BASE_URL) to the server's root, such as https://api.anthropic.com")
			}
			assert.Equal(t, n, c.Count(), "nothing sent")
		})
	}
	t.Run("query", func(t *testing.T) {
		m := anthropic.New(anthropic.Config{BaseURL: srv.URL + "/v1/messages?beta=true", HTTPClient: srv.Client(), APIKey: testKey, Model: "m"})
		_, err := m.Chat(context.Background(), hiRequest)
		pe := checkProviderError(t, err, chat.ErrBadRequest, 0, "m")
		assert.Contains(t, pe.Message, "has a query or fragment")
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("ANTHROPIC_BASE_URL", srv.URL+"/v1/chat/completions")
		m := anthropic.New(anthropic.Config{HTTPClient: srv.Client(), APIKey: testKey, Model: "m"})
		_, err := m.Chat(context.Background(), hiRequest)
		checkProviderError(t, err, chat.ErrBadRequest, 0, "m")
	})
}
