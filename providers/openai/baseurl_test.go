package openai_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestBaseURLWithEndpoint: a BaseURL copied with the endpoint's path is
// taken as meant when it is this API's (/chat/completions), and refused
// before anything is sent, with what to set instead, when it is another
// API's (/responses, /messages); never a 404 read as a missing model.
func TestBaseURLWithEndpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, suffix string
		wantPath     string // where the request goes; "" when refused
		wantMsg      []string
	}{
		{name: "chat completions", suffix: "/v1/chat/completions", wantPath: "/v1/chat/completions"},
		{name: "chat completions with slash", suffix: "/v1/chat/completions/", wantPath: "/v1/chat/completions"},
		{name: "gemini root", suffix: "/v1beta/openai/chat/completions", wantPath: "/v1beta/openai/chat/completions"},
		{name: "v1", suffix: "/v1", wantPath: "/v1/chat/completions"},
		{name: "responses", suffix: "/v1/responses",
			wantMsg: []string{"ends in /responses, the endpoint of OpenAI's Responses API", "set BaseURL to the API root, http://127.0.0.1:", "/v1, to which it adds /chat/completions", "providers/openairesponses"}},
		{name: "messages", suffix: "/v1/messages",
			wantMsg: []string{"ends in /messages, the endpoint of Anthropic's Messages API", "/v1, to which it adds /chat/completions", "providers/anthropic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := providertest.LoadRecording(t, "cloud/openai-chat/reasoning_tokens_gpt_5/01")
			path := tc.wantPath
			if path == "" {
				path = "/v1/chat/completions" // never reached
			}
			srv, got := providertest.Serve(t, path, func(w http.ResponseWriter, r *http.Request, _ int) { rec.ServeHTTP(w, r) })
			m := openai.New(openai.Config{BaseURL: srv.URL + tc.suffix, APIKey: testKey, Model: "gpt-5", HTTPClient: srv.Client()})
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Capital of France?")}}
			for _, stream := range []bool{false, true} {
				var resp *chat.Response
				var err error
				if stream {
					resp, err = m.Stream(context.Background(), req, nil)
				} else {
					resp, err = m.Chat(context.Background(), req)
				}
				if tc.wantPath != "" {
					require.NoError(t, err)
					assert.Equal(t, "Paris.", resp.Message.Content)
					continue
				}
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, "gpt-5")
				assert.False(t, errors.Is(err, chat.ErrModelNotFound))
				for _, s := range tc.wantMsg {
					assert.Contains(t, pe.Message, s, "stream %v", stream)
				}
				assert.Zero(t, pe.Attempts, "nothing is sent")
			}
			if tc.wantPath != "" {
				require.Equal(t, 2, got.Count())
				assert.Equal(t, tc.wantPath, got.Get(t, 0).Path)
				assert.False(t, strings.Contains(m.String(), "/chat/completions/chat/completions"), m.String())
			} else {
				assert.Equal(t, 0, got.Count())
			}
		})
	}
}
