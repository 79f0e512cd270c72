package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

var hiRequest = &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}

// apiErrorBody is the API's error body.
func apiErrorBody(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_body"}`, typ, msg)
}

// status answers with an HTTP status, a body and the headers given in
// pairs.
func status(code int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// TestErrorTypes: each error type of the API maps to a chat sentinel,
// whatever the status; an unknown type goes by the status. The error
// carries the status, the server's message and the request-id header
// (else the body's request_id), for Chat and Stream alike.
func TestErrorTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ    string
		status int
		want   error
	}{
		{"invalid_request_error", 400, chat.ErrBadRequest},
		{"authentication_error", 401, chat.ErrUnauthorized},
		{"billing_error", 402, chat.ErrQuotaExceeded},
		{"permission_error", 403, chat.ErrUnauthorized},
		{"request_too_large", 413, chat.ErrBadRequest},
		{"rate_limit_error", 429, chat.ErrRateLimited},
		{"api_error", 500, chat.ErrServer},
		{"timeout_error", 504, chat.ErrServer},
		{"overloaded_error", 529, chat.ErrServer},
		// The type wins over the status.
		{"overloaded_error", 400, chat.ErrServer},
		// Types may be added: an unknown one goes by its status.
		{"quota_error", 400, chat.ErrBadRequest},
		{"quota_error", 403, chat.ErrUnauthorized},
		{"quota_error", 429, chat.ErrRateLimited},
		{"quota_error", 503, chat.ErrServer},
		// A 404 names a model (see TestNotFound).
		{"quota_error", 404, chat.ErrModelNotFound},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%d/stream=%v", tc.typ, tc.status, stream), func(t *testing.T) {
				t.Parallel()
				header := []string{"Request-Id", "req_header"}
				if tc.status == 413 {
					header = nil // the body's request_id then
				}
				msg := "it failed"
				if tc.status == 404 {
					msg = "model: it failed"
				}
				srv, c := serve(t, status(tc.status, apiErrorBody(tc.typ, msg), header...))
				m := newModel(srv, anthropic.Config{MaxRetries: anthropic.NoRetries})
				var err error
				if stream {
					_, err = m.Stream(context.Background(), hiRequest, nil)
				} else {
					_, err = m.Chat(context.Background(), hiRequest)
				}
				pe := checkProviderError(t, err, tc.want, tc.status, "tiny-toolcaller")
				assert.Equal(t, msg, pe.Message)
				assert.Equal(t, 1, pe.Attempts)
				if header != nil {
					assert.Equal(t, "req_header", pe.RequestID)
				} else {
					assert.Equal(t, "req_body", pe.RequestID)
				}
				assert.Equal(t, 1, c.Count())
			})
		}
	}
}

// TestNoToolSupport: a 400 saying the model takes no tools wraps
// ErrToolsNotSupported.
func TestNoToolSupport(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, status(400, apiErrorBody("invalid_request_error", "registry.ollama.ai/library/gemma:2b does not support tools")))
	_, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
	checkProviderError(t, err, chat.ErrToolsNotSupported, 400, "tiny-toolcaller")
}

// TestOverloadedRetried: 529 (overloaded) is retried like a 5xx, after the
// wait retry-after asks for.
func TestOverloadedRetried(t *testing.T) {
	t.Parallel()
	srv, c := serve(t,
		status(529, apiErrorBody("overloaded_error", "Overloaded"), "Retry-After", "2"),
		reply(`{"type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`))
	m := newModel(srv, anthropic.Config{})
	var waits []time.Duration
	anthropic.SetRetryHooks(m, func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}, nil)
	resp, err := m.Chat(context.Background(), hiRequest)
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Message.Content)
	assert.Equal(t, 2, resp.Attempts)
	assert.Equal(t, 2, c.Count())
	assert.Equal(t, []time.Duration{2 * time.Second}, waits)
}

// TestInBandErrors: an error body with status 200, and a stream's error
// event after some text, end the call with the error's sentinel; the
// stream's text was yielded first.
func TestInBandErrors(t *testing.T) {
	t.Parallel()
	t.Run("body", func(t *testing.T) {
		t.Parallel()
		srv, _ := serve(t, reply(apiErrorBody("api_error", "Internal server error"), "Request-Id", "req_1"))
		_, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
		pe := checkProviderError(t, err, chat.ErrServer, 200, "tiny-toolcaller")
		assert.Equal(t, "Internal server error", pe.Message)
		assert.Equal(t, "req_1", pe.RequestID)
	})
	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		srv, _ := serve(t, reply(sse(
			`{"type":"message_start","message":{"type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":3,"output_tokens":0}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		), "Request-Id", "req_2"))
		var deltas []chat.Delta
		resp, err := newModel(srv, anthropic.Config{}).Stream(context.Background(), hiRequest, collect(&deltas))
		assert.Nil(t, resp)
		pe := checkProviderError(t, err, chat.ErrServer, 200, "tiny-toolcaller")
		assert.Equal(t, "Overloaded", pe.Message)
		assert.Equal(t, "req_2", pe.RequestID)
		assert.Equal(t, 1, pe.Attempts, "not retried once the stream began")
		assert.Equal(t, []chat.Delta{text("Hel")}, deltas)
	})
}

// TestKeyNeverInErrors: a server that echoes the key, and a key in the
// URL of a transport error, never show it.
func TestKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	t.Run("echoed", func(t *testing.T) {
		t.Parallel()
		srv, c := serve(t, status(401, apiErrorBody("authentication_error", "invalid x-api-key: "+testKey)))
		_, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
		pe := checkProviderError(t, err, chat.ErrUnauthorized, 401, "tiny-toolcaller")
		assert.Equal(t, "invalid x-api-key: [redacted]", pe.Message)
		assert.Equal(t, testKey, c.Get(t, 0).Header.Get("X-Api-Key"), "the key is sent")
	})
	t.Run("transport", func(t *testing.T) {
		t.Parallel()
		m := anthropic.New(anthropic.Config{BaseURL: "http://127.0.0.1:1/" + testKey, APIKey: testKey, Model: "m", MaxRetries: anthropic.NoRetries})
		_, err := m.Chat(context.Background(), hiRequest)
		checkProviderError(t, err, syscall.ECONNREFUSED, 0, "m")
		assert.NotContains(t, fmt.Sprint(m), testKey)
		assert.NotContains(t, fmt.Sprintf("%#v", m), testKey)
	})
}

// TestNoKey: with no key at all, no x-api-key header is sent, and a 401
// says that no key is set.
func TestNoKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	srv, c := serve(t, status(401, apiErrorBody("authentication_error", "x-api-key header is required")))
	m := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Model: "m"})
	_, err := m.Chat(context.Background(), hiRequest)
	pe := checkProviderError(t, err, chat.ErrUnauthorized, 401, "m")
	assert.Equal(t, "x-api-key header is required; no API key is set (Config.APIKey or ANTHROPIC_API_KEY)", pe.Message)
	assert.Empty(t, c.Get(t, 0).Header.Values("X-Api-Key"))
}

// TestEnvironment: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY fill the
// fields Config leaves empty; a BaseURL ending in /v1 is taken as is.
func TestEnvironment(t *testing.T) {
	srv, c := serve(t, reply(`{"type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`))
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL+"/v1/")
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	m := anthropic.New(anthropic.Config{Model: "m", HTTPClient: srv.Client()})
	_, err := m.Chat(context.Background(), hiRequest)
	require.NoError(t, err)
	h := c.Get(t, 0).Header
	assert.Equal(t, "sk-from-env", h.Get("X-Api-Key"))
	assert.Equal(t, anthropic.DefaultVersion, h.Get("Anthropic-Version"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
}

// TestBadResponses: a reply that is not the Messages API's format is an
// error wrapping ErrBadResponse that does not quote it.
func TestBadResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, want string }{
		{"not JSON", `<html>oops</html>`, "response is not valid JSON"},
		{"content not a list", `{"type":"message","content":"hi","stop_reason":"end_turn"}`, `field "content" is a JSON string`},
		{"block without type", `{"type":"message","content":[{"text":"hi"}],"stop_reason":"end_turn"}`, "content block 0 has no type"},
		{"not a message", `{"type":"completion","content":[]}`, `response is of type "completion", not a message`},
		{"pause_turn", `{"type":"message","content":[{"type":"text","text":"wait"}],"stop_reason":"pause_turn"}`, `stop_reason "pause_turn": the server paused a turn of its own tools`},
		{"unknown stop reason with calls", `{"type":"message","content":[{"type":"tool_use","id":"t1","name":"get_weather","input":{}}],"stop_reason":"compaction"}`, `stop_reason "compaction" is unknown and the reply has tool calls: they are not run`},
		{"no stop reason with calls", `{"type":"message","content":[{"type":"tool_use","id":"t1","name":"get_weather","input":{}}]}`, "the reply has tool calls and no stop_reason"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, status(200, tc.body))
			resp, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
			assert.Nil(t, resp)
			checkProviderError(t, err, chat.ErrBadResponse, 200, "tiny-toolcaller")
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "oops")
		})
	}
}

// TestCancelled: a cancelled context ends a call with an error wrapping
// ctx.Err().
func TestCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	})
	_, err := newModel(srv, anthropic.Config{}).Chat(ctx, hiRequest)
	require.True(t, errors.Is(err, context.Canceled), "got %v", err)
}

// TestNoCredit: an account without credit is billing_error (HTTP 402), or
// a 400 invalid_request_error that says the credit balance is too low;
// both wrap ErrQuotaExceeded, not ErrUnauthorized nor ErrRateLimited, and
// are not retried, for Chat and Stream, even in a stream's error event.
func TestNoCredit(t *testing.T) {
	t.Parallel()
	const low = "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"billing_error", 402, apiErrorBody("billing_error", "This organization has no credit")},
		{"credit balance too low", 400, apiErrorBody("invalid_request_error", low)},
		{"in band", 200, apiErrorBody("invalid_request_error", low)},
		// A status that is retried otherwise.
		{"billing_error with 429", 429, apiErrorBody("billing_error", "This organization has no credit")},
		{"credit balance too low with 503", 503, apiErrorBody("api_error", low)},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tc.name, stream), func(t *testing.T) {
				t.Parallel()
				srv, c := serve(t, status(tc.status, tc.body))
				m := newModel(srv, anthropic.Config{})
				anthropic.SetRetryHooks(m, func(context.Context, time.Duration) error { return nil }, nil)
				var err error
				if stream {
					_, err = m.Stream(context.Background(), hiRequest, nil)
				} else {
					_, err = m.Chat(context.Background(), hiRequest)
				}
				pe := checkProviderError(t, err, chat.ErrQuotaExceeded, tc.status, "tiny-toolcaller")
				assert.NotErrorIs(t, err, chat.ErrUnauthorized)
				assert.NotErrorIs(t, err, chat.ErrRateLimited)
				assert.Equal(t, "req_body", pe.RequestID)
				assert.Equal(t, 1, c.Count(), "not retried")
			})
		}
	}
}

// TestNotFound: a 404 is a missing model only when its message names one,
// as the API's does ("model: claude-sonet-4-5", recorded); a 404 that
// names none, the API's "Not Found" for a wrong path or a web server's
// page, means the URL is wrong: ErrBadRequest, saying what to set.
func TestNotFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		want       error
		msg        string
	}{
		{"names the model", apiErrorBody("not_found_error", "model: claude-sonet-4-5"), chat.ErrModelNotFound, "model: claude-sonet-4-5"},
		{"Ollama's", `{"type":"error","error":{"type":"not_found_error","message":"model 'nope' not found"}}`, chat.ErrModelNotFound, "model 'nope' not found"},
		{"wrong path", apiErrorBody("not_found_error", "Not Found"), chat.ErrBadRequest, `(the server said "Not Found"); Config.BaseURL is the server's root, such as https://api.anthropic.com`},
		{"web page", `<html><body>404 page not found</body></html>`, chat.ErrBadRequest, "; Config.BaseURL is the server's root, such as https://api.anthropic.com"},
		{"empty", ``, chat.ErrBadRequest, "; Config.BaseURL is the server's root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, status(404, tc.body))
			_, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
			pe := checkProviderError(t, err, tc.want, 404, "tiny-toolcaller")
			assert.Contains(t, pe.Message, tc.msg)
			if tc.want == chat.ErrBadRequest {
				assert.NotErrorIs(t, err, chat.ErrModelNotFound)
				assert.Contains(t, pe.Message, "no Messages API at "+srv.URL+"/v1/messages")
				assert.NotContains(t, pe.Message, "<html>")
			}
		})
	}
}
