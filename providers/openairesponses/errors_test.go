package openairesponses_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestErrors runs each failure through Chat and Stream. Bodies may echo
// the key ({{key}}), as some servers and proxies do; no error may show it.
func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		header      map[string]string
		body        string
		wantErr     error
		wantMsg     string // the error's Message, for Chat and Stream
		retryAfter  time.Duration
		requestID   string
	}{
		{
			name: "401 bad key", status: 401, header: map[string]string{"X-Request-Id": "req_401"}, requestID: "req_401",
			body:    `{"error":{"message":"Incorrect API key provided: {{key}}. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			wantErr: chat.ErrUnauthorized, wantMsg: "Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.",
		},
		{
			name: "403 no access", status: 403,
			body:    `{"error":{"message":"Project proj_x does not have access to model gpt-5","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			wantErr: chat.ErrUnauthorized, wantMsg: "Project proj_x does not have access to model gpt-5",
		},
		{
			name: "404 unknown model", status: 404,
			body:    "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
			wantErr: chat.ErrModelNotFound, wantMsg: "The model `gpt-9` does not exist or you do not have access to it.",
		},
		{
			// OpenAI's Responses API answers an unknown model with 400
			// (recorded: error_400_model_not_found).
			name: "400 unknown model", status: 400,
			body:    `{"error":{"code":"model_not_found","message":"The requested model 'gpt-5.2-proo' does not exist.","param":"model","type":"invalid_request_error"}}`,
			wantErr: chat.ErrModelNotFound, wantMsg: "The requested model 'gpt-5.2-proo' does not exist.",
		},
		{
			// A 404 that names no model is a wrong path, whatever JSON.
			name: "404 wrong path, JSON", status: 404,
			body:    `{"error":{"message":"Invalid URL (POST /v1/responses/responses)","type":"invalid_request_error","param":null,"code":null}}`,
			wantErr: chat.ErrBadRequest, wantMsg: "no /responses at {{base}}",
		},
		{
			// The account's credit is used up: not a rate limit, and
			// waiting does not help (TestQuotaNotRetried).
			name: "429 insufficient quota", status: 429,
			body:    `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			wantErr: chat.ErrQuotaExceeded, wantMsg: "You exceeded your current quota, please check your plan and billing details.",
		},
		{
			name: "200 failed: insufficient quota", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"failed","model":"gpt-5-mini","output":[],"error":{"code":"insufficient_quota","message":"You exceeded your current quota."}}`,
			wantErr: chat.ErrQuotaExceeded, wantMsg: "You exceeded your current quota.",
		},
		{
			// BaseURL ends in /v1, so no advice about it.
			name: "404 page", status: 404, contentType: "text/plain; charset=utf-8", body: "404 page not found\n",
			wantErr: chat.ErrBadRequest, wantMsg: "no /responses at {{base}}",
		},
		{
			name: "400 invalid", status: 400,
			body:    `{"error":{"message":"Invalid type for 'input[1].output': expected a string, but got an object instead.","type":"invalid_request_error","param":"input[1].output","code":"invalid_type"}}`,
			wantErr: chat.ErrBadRequest, wantMsg: "Invalid type for 'input[1].output': expected a string, but got an object instead.",
		},
		{
			name: "400 no tools", status: 400,
			body:    `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"invalid_request_error","param":null,"code":null}}`,
			wantErr: chat.ErrToolsNotSupported, wantMsg: "registry.ollama.ai/library/gemma:2b does not support tools",
		},
		{
			name: "429", status: 429, header: map[string]string{"Retry-After-Ms": "1500", "X-Request-Id": "req_429"}, requestID: "req_429",
			body:    `{"error":{"message":"Rate limit reached for gpt-5-mini on tokens per min (TPM): Limit 200000, Used 200000, Requested 420.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			wantErr: chat.ErrRateLimited, wantMsg: "Rate limit reached for gpt-5-mini on tokens per min (TPM): Limit 200000, Used 200000, Requested 420.",
			retryAfter: 1500 * time.Millisecond,
		},
		{
			name: "500 html", status: 500, contentType: "text/html", body: "<html><body>Bearer {{key}} crashed</body></html>",
			wantErr: chat.ErrServer, wantMsg: "Internal Server Error",
		},
		{
			name: "200 error body", status: 200,
			body:    `{"error":{"message":"The server had an error processing your request. Bearer {{key}}","type":"server_error","code":"server_error"}}`,
			wantErr: chat.ErrServer, wantMsg: "The server had an error processing your request. Bearer [redacted]",
		},
		{
			name: "200 error string", status: 200, body: `{"error":"model crashed"}`,
			wantErr: chat.ErrServer, wantMsg: "model crashed",
		},
		{
			name: "200 failed, error string", status: 200, body: `{"status":"failed","output":[],"error":"out of memory"}`,
			wantErr: chat.ErrServer, wantMsg: "out of memory",
		},
		{
			name: "200 failed response", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"failed","model":"gpt-5-mini","output":[],"error":{"code":"server_error","message":"The model failed to generate a response."},"usage":null}`,
			wantErr: chat.ErrServer, wantMsg: "The model failed to generate a response.",
		},
		{
			name: "200 failed: rate limit", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"failed","model":"gpt-5-mini","output":[],"error":{"code":"rate_limit_exceeded","message":"Too many requests."}}`,
			wantErr: chat.ErrRateLimited, wantMsg: "Too many requests.",
		},
		{
			name: "200 failed: invalid prompt", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"failed","model":"gpt-5-mini","output":[],"error":{"code":"invalid_prompt","message":"Invalid prompt: flagged."}}`,
			wantErr: chat.ErrBadRequest, wantMsg: "Invalid prompt: flagged.",
		},
		{
			name: "200 failed without error", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"failed","output":[]}`,
			wantErr: chat.ErrServer, wantMsg: "response failed",
		},
		{
			name: "200 incomplete, unknown reason", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"incomplete","incomplete_details":{"reason":"interrupted"},"output":[{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Pa"}]}`,
			wantErr: chat.ErrBadResponse, wantMsg: `response incomplete, reason "interrupted"`,
		},
		{
			name: "200 queued", status: 200,
			body:    `{"id":"resp_1","object":"response","status":"queued","output":[]}`,
			wantErr: chat.ErrBadResponse, wantMsg: `response status "queued", not a finished response`,
		},
		{
			name: "200 not JSON", status: 200, body: `{"id":"resp_1","output":[`,
			wantErr: chat.ErrBadResponse, wantMsg: "response is not valid JSON: unexpected end of JSON input (at byte 25)",
		},
		{
			name: "200 wrong shape", status: 200, body: `{"id":"resp_1","status":"completed","output":{"type":"message"}}`,
			wantErr: chat.ErrBadResponse, wantMsg: `response does not fit the Responses API format: field "output" is a JSON object`,
		},
		{
			name: "200 bad item", status: 200, body: `{"id":"resp_1","status":"completed","output":[{"type":"function_call","name":7}]}`,
			wantErr: chat.ErrBadResponse, wantMsg: `output item 0 does not fit the Responses API format: field "name" is a JSON number`,
		},
		{
			name: "200 empty object", status: 200, body: `{}`,
			wantErr: chat.ErrBadResponse, wantMsg: "response has no output and no status",
		},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "/chat", true: "/stream"}[stream], func(t *testing.T) {
				t.Parallel()
				srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
					for k, v := range tc.header {
						w.Header().Set(k, v)
					}
					w.Header().Set("Content-Type", cmpOr(tc.contentType, "application/json"))
					w.WriteHeader(tc.status)
					_, _ = io.WriteString(w, strings.ReplaceAll(tc.body, "{{key}}", testKey))
				})
				m := newModel(srv, openairesponses.Config{MaxRetries: openairesponses.NoRetries})
				req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}
				var err error
				if stream {
					_, err = m.Stream(context.Background(), req, nil)
				} else {
					_, err = m.Chat(context.Background(), req)
				}
				pe := checkProviderError(t, err, tc.wantErr, tc.status, "tiny-toolcaller")
				for _, other := range []error{chat.ErrModelNotFound, chat.ErrRateLimited, chat.ErrQuotaExceeded, chat.ErrBadRequest} {
					if other != tc.wantErr {
						assert.NotErrorIs(t, err, other)
					}
				}
				assert.Equal(t, strings.ReplaceAll(tc.wantMsg, "{{base}}", srv.URL+"/v1"), pe.Message)
				assert.Equal(t, tc.retryAfter, pe.RetryAfter)
				assert.Equal(t, tc.requestID, pe.RequestID)
				assert.Equal(t, 1, pe.Attempts)
			})
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestStreamErrors: failures inside a stream that began with status 200.
func TestStreamErrors(t *testing.T) {
	t.Parallel()
	const created = `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-5-mini"}}`
	const hel = `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"Hel"}`
	for _, tc := range []struct {
		name    string
		body    string
		wantErr error
		wantMsg string
		deltas  []chat.Delta
	}{
		{
			name:    "error event",
			body:    sse(created, hel, `{"type":"error","code":"server_error","message":"The server had an error. {{key}}","param":null,"sequence_number":3}`),
			wantErr: chat.ErrServer, wantMsg: "The server had an error. [redacted]", deltas: []chat.Delta{text("Hel")},
		},
		{
			name:    "error event with an error object",
			body:    sse(created, `{"type":"error","error":{"type":"rate_limit_error","code":"rate_limit_exceeded","message":"Slow down."}}`),
			wantErr: chat.ErrRateLimited, wantMsg: "Slow down.",
		},
		{
			name:    "error event with an error string",
			body:    sse(created, `{"type":"error","error":"upstream closed"}`),
			wantErr: chat.ErrServer, wantMsg: "upstream closed",
		},
		{
			name:    "response.failed",
			body:    sse(created, hel, `{"type":"response.failed","response":{"id":"resp_1","status":"failed","output":[],"error":{"code":"server_error","message":"The model failed."}}}`),
			wantErr: chat.ErrServer, wantMsg: "The model failed.", deltas: []chat.Delta{text("Hel")},
		},
		{
			name:    "no response.completed",
			body:    sse(created, hel),
			wantErr: chat.ErrBadResponse, wantMsg: "stream ended before the response was complete (no response.completed)", deltas: []chat.Delta{text("Hel")},
		},
		{
			name:    "[DONE] before response.completed",
			body:    sse(created, hel) + "data: [DONE]\n\n",
			wantErr: chat.ErrBadResponse, wantMsg: "stream ended before the response was complete (no response.completed)", deltas: []chat.Delta{text("Hel")},
		},
		{
			name:    "cut in the middle of an event",
			body:    sse(created, hel) + `data: {"type":"response.output_text.delta","del`,
			wantErr: chat.ErrBadResponse, wantMsg: "stream ended in the middle of an event", deltas: []chat.Delta{text("Hel")},
		},
		{
			name:    "event not JSON",
			body:    sse(created) + "data: {nope}\n\n",
			wantErr: chat.ErrBadResponse, wantMsg: "stream event is not valid JSON: invalid character 'n' looking for beginning of object key string (at byte 2)",
		},
		{
			name:    "delta not a string",
			body:    sse(created, `{"type":"response.output_text.delta","item_id":"msg_1","delta":{"text":"Hel"}}`),
			wantErr: chat.ErrBadResponse, wantMsg: "response.output_text.delta event does not fit the Responses API format: \"delta\" is a JSON object, want a string",
		},
		{
			name:    "completed without a response",
			body:    sse(created, `{"type":"response.completed"}`),
			wantErr: chat.ErrBadResponse, wantMsg: "response.completed event without a response",
		},
		{
			name:    "incomplete, unknown reason",
			body:    sse(created, hel, `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"interrupted"}}}`),
			wantErr: chat.ErrBadResponse, wantMsg: `response incomplete, reason "interrupted"`, deltas: []chat.Delta{text("Hel")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, strings.ReplaceAll(tc.body, "{{key}}", testKey))
			})
			m := newModel(srv, openairesponses.Config{})
			var deltas []chat.Delta
			resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}, func(d chat.Delta) bool {
				deltas = append(deltas, d)
				return true
			})
			assert.Nil(t, resp)
			pe := checkProviderError(t, err, tc.wantErr, 200, "tiny-toolcaller")
			assert.Equal(t, tc.wantMsg, pe.Message)
			assert.Equal(t, tc.deltas, deltas)
		})
	}
}

// TestConnectionRefused: nothing listens at BaseURL.
func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	m := openairesponses.New(openairesponses.Config{BaseURL: "http://" + addr + "/v1", APIKey: testKey, Model: "m",
		MaxRetries: openairesponses.NoRetries, HTTPClient: &http.Client{Transport: &http.Transport{}}})
	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "cannot connect to http://"+addr+"/v1; is the server running?", pe.Message)
	providertest.CheckNoKey(t, err, testKey)
}

// TestKeyInURL: a key that shows in the URL of a transport error is
// removed from every error in the chain, which still reaches the net error.
func TestKeyInURL(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	m := openairesponses.New(openairesponses.Config{BaseURL: "http://" + addr + "/" + testKey + "/v1", APIKey: testKey, Model: "m",
		MaxRetries: openairesponses.NoRetries, HTTPClient: &http.Client{Transport: &http.Transport{}}})
	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	providertest.CheckNoKey(t, err, testKey)
	assert.Contains(t, err.Error(), "[redacted]")
	assert.NotContains(t, m.String(), testKey)
	assert.NotContains(t, m.GoString(), testKey)
}

// TestUnauthorizedWithoutKey: a 401 when no key is set says so.
func TestUnauthorizedWithoutKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	m := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client()})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	pe := checkProviderError(t, err, chat.ErrUnauthorized, 401, "m")
	assert.Equal(t, "no API key is set (Config.APIKey or OPENAI_API_KEY)", pe.Message)
}

// TestQuotaNotRetried: a 429 for a used-up quota is sent once, with the
// default retries, where a rate limit is sent again.
func TestQuotaNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code, typ string
		want      error
		requests  int
	}{
		{code: "insufficient_quota", typ: "insufficient_quota", want: chat.ErrQuotaExceeded, requests: 1},
		{code: "rate_limit_exceeded", typ: "requests", want: chat.ErrRateLimited, requests: 1 + openairesponses.DefaultMaxRetries},
	} {
		t.Run(tc.code, func(t *testing.T) {
			t.Parallel()
			srv, got := serve(t, func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, `{"error":{"message":"no","type":"`+tc.typ+`","param":null,"code":"`+tc.code+`"}}`)
			})
			m := newModel(srv, openairesponses.Config{})
			openairesponses.SetRetryHooks(m, func(context.Context, time.Duration) error { return nil }, nil)
			_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
			pe := checkProviderError(t, err, tc.want, 429, "tiny-toolcaller")
			assert.Equal(t, tc.requests, pe.Attempts)
			assert.Equal(t, tc.requests, got.Count())
		})
	}
}

// TestNotFoundHint: a 404 page at a BaseURL that does not end in /v1
// suggests it.
func TestNotFoundHint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	m := openairesponses.New(openairesponses.Config{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client()})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	pe := checkProviderError(t, err, chat.ErrBadRequest, 404, "m")
	assert.Equal(t, "no /responses at "+srv.URL+"; BaseURL usually ends in /v1", pe.Message)
	assert.NotErrorIs(t, err, chat.ErrModelNotFound)
}

// TestCancel: a cancelled context ends a call, before or during the
// stream, with an error that wraps context.Canceled.
func TestCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sse(`{"type":"response.output_text.delta","item_id":"m","delta":"Hel"}`))
		w.(http.Flusher).Flush()
		<-release
	})
	defer close(release)
	m := newModel(srv, openairesponses.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := m.Stream(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}, func(d chat.Delta) bool {
		cancel()
		return true
	})
	require.ErrorIs(t, err, context.Canceled)
	providertest.CheckNoKey(t, err, testKey)

	_, err = m.Chat(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	require.ErrorIs(t, err, context.Canceled)
	var pe *chat.ProviderError
	require.True(t, errors.As(err, &pe))
}
