package openai_test

import (
	"cmp"
	"context"
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
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestErrors runs each failure through Chat and Stream. Bodies may echo
// the request's key ({{key}}) or Authorization header ({{auth}}), as some
// servers and proxies do; no error may show it.
func TestErrors(t *testing.T) {
	t.Parallel()
	future := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		header      map[string]string
		body        string
		wantErr     error
		wantMsg     string // in the error's Message, for Chat and Stream
		streamMsg   string // for Stream, when it differs
		// The server's Retry-After, within [retryMin, retryMax].
		retryMin, retryMax time.Duration
	}{
		{
			name: "401 bad key", status: 401,
			body:    `{"error":{"message":"Incorrect API key provided: {{key}}. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			wantErr: chat.ErrUnauthorized, wantMsg: "Incorrect API key provided: [redacted]. You can find",
		},
		{
			name: "403 no access", status: 403,
			body:    `{"error":{"message":"Project proj_x does not have access to model gpt-4o","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			wantErr: chat.ErrUnauthorized, wantMsg: "does not have access to model gpt-4o",
		},
		{
			name: "404 unknown model", status: 404,
			body:    "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
			wantErr: chat.ErrModelNotFound, wantMsg: "The model `gpt-9` does not exist",
		},
		{
			// BaseURL ends in /v1 here, so no advice about /v1 is added;
			// TestNotFound checks the whole messages.
			name: "404 wrong path", status: 404, contentType: "text/plain; charset=utf-8", body: "404 page not found\n",
			wantErr: chat.ErrBadRequest, wantMsg: "no /chat/completions at http://127.0.0.1:",
		},
		{
			name: "429 with Retry-After in seconds", status: 429, header: map[string]string{"Retry-After": "20"},
			body:    `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			wantErr: chat.ErrRateLimited, wantMsg: "Rate limit reached", retryMin: 20 * time.Second, retryMax: 20 * time.Second,
		},
		{
			name: "429 with Retry-After as a date", status: 429, header: map[string]string{"Retry-After": future},
			body:    `{"error":{"message":"Too many requests","type":"rate_limit_error"}}`,
			wantErr: chat.ErrRateLimited, wantMsg: "Too many requests", retryMin: 60 * time.Second, retryMax: 90 * time.Second,
		},
		{
			name: "429 with retry-after-ms", status: 429, header: map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"},
			body:    `{"error":{"message":"Too many requests","type":"rate_limit_error"}}`,
			wantErr: chat.ErrRateLimited, wantMsg: "Too many requests", retryMin: 1500 * time.Millisecond, retryMax: 1500 * time.Millisecond,
		},
		{
			name: "500", status: 500,
			body:    `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			wantErr: chat.ErrServer, wantMsg: "The server had an error while processing your request.",
		},
		{
			name: "502 HTML page echoing the header", status: 502, contentType: "text/html",
			body:    "<html><body><h1>Bad gateway</h1><p>{{auth}}</p></body></html>",
			wantErr: chat.ErrServer, wantMsg: "Bad Gateway",
		},
		{
			name: "503 busy", status: 503, header: map[string]string{"Retry-After": "7"},
			body:    `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`,
			wantErr: chat.ErrServer, wantMsg: "overloaded", retryMin: 7 * time.Second, retryMax: 7 * time.Second,
		},
		{
			name: "400 model without tool support", status: 400,
			body:    `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error","param":null,"code":null}}`,
			wantErr: chat.ErrToolsNotSupported, wantMsg: "gemma:2b does not support tools",
		},
		{
			name: "400 vLLM without a tool parser", status: 400,
			body:    `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`,
			wantErr: chat.ErrToolsNotSupported, wantMsg: "--enable-auto-tool-choice",
		},
		{
			name: "400 llama.cpp without --jinja", status: 400,
			body:    `{"error":{"code":400,"message":"tools param requires --jinja flag","type":"invalid_request_error"}}`,
			wantErr: chat.ErrToolsNotSupported, wantMsg: "requires --jinja",
		},
		{
			name: "400 other", status: 400,
			body:    `{"error":{"message":"'messages' must contain at least one message","type":"invalid_request_error","param":"messages","code":null}}`,
			wantErr: chat.ErrBadRequest, wantMsg: "'messages' must contain at least one message",
		},
		{
			name: "200 malformed JSON", status: 200, body: `{"choices":[{"message":`,
			wantErr: chat.ErrBadResponse, wantMsg: "response is not valid JSON", streamMsg: "stream ended in the middle of an event",
		},
		{
			name: "200 wrong shape", status: 200, body: `{"choices":[{"message":{"content":5}}]}` + "\n",
			wantErr: chat.ErrBadResponse, wantMsg: "response does not fit the Chat Completions format",
			streamMsg: "stream event does not fit the Chat Completions format",
		},
		{
			name: "200 error object", status: 200, body: `{"error":{"message":"upstream timed out for {{auth}}","type":"server_error"}}`,
			wantErr: chat.ErrServer, wantMsg: "upstream timed out for Bearer [redacted]",
		},
		{
			name: "200 error saying the model cannot take tools", status: 200,
			body:    `{"error":{"message":"this model does not support tools","type":"invalid_request_error"}}`,
			wantErr: chat.ErrToolsNotSupported, wantMsg: "this model does not support tools",
		},
		{
			name: "200 choices of the wrong type", status: 200, body: `{"choices":{"index":0}}` + "\n",
			wantErr: chat.ErrBadResponse, wantMsg: `does not fit the Chat Completions format: field "choices" is a JSON object`,
		},
		{
			name: "302 not followed", status: 302, body: "",
			wantErr: chat.ErrBadResponse, wantMsg: "Found",
		},
		{
			name: "200 without choices", status: 200, body: `{"id":"chatcmpl-x","object":"chat.completion","choices":[]}` + "\n",
			wantErr: chat.ErrBadResponse, wantMsg: "response has no choices",
			streamMsg: "stream ended before the reply was complete",
		},
		{
			name: "200 stream cut between events", status: 200, contentType: "text/event-stream",
			body:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n",
			wantErr: chat.ErrBadResponse, wantMsg: "response is not valid JSON",
			streamMsg: "stream ended before the reply was complete",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				ct := tc.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(tc.status)
				auth := r.Header.Get("Authorization")
				body := strings.ReplaceAll(tc.body, "{{auth}}", auth)
				body = strings.ReplaceAll(body, "{{key}}", strings.TrimPrefix(auth, "Bearer "))
				_, _ = w.Write([]byte(body))
			}))
			t.Cleanup(srv.Close)
			m := newModel(srv, openai.Config{Model: "gpt-4o-mini", MaxRetries: openai.NoRetries}) // retry_test.go retries
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

			resp, chatErr := m.Chat(context.Background(), req)
			assert.Nil(t, resp)
			var deltas []chat.Delta
			resp, streamErr := m.Stream(context.Background(), req, func(d chat.Delta) bool {
				deltas = append(deltas, d)
				return true
			})
			assert.Nil(t, resp)

			for _, c := range []struct {
				mode string
				err  error
				msg  string
			}{{"Chat", chatErr, tc.wantMsg}, {"Stream", streamErr, cmp.Or(tc.streamMsg, tc.wantMsg)}} {
				pe := checkProviderError(t, c.err, tc.wantErr, tc.status, "gpt-4o-mini")
				assert.Contains(t, pe.Message, c.msg, c.mode)
				assert.GreaterOrEqual(t, pe.RetryAfter, tc.retryMin, c.mode)
				assert.LessOrEqual(t, pe.RetryAfter, tc.retryMax, c.mode)
				assert.NotContains(t, c.err.Error(), "<html>", c.mode)
				assert.NotContains(t, c.err.Error(), `"type"`, "%s: no raw JSON in the error", c.mode)
			}
		})
	}
}

// TestConnectionRefused: nothing listens at the address. The key is also
// part of the URL path, as some proxies want it, and must not show in the
// transport error that quotes the URL.
func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m := openai.New(openai.Config{BaseURL: "http://" + addr + "/" + testKey + "/v1", APIKey: testKey, Model: "gpt-4o-mini",
		HTTPClient: &http.Client{Transport: tr}, MaxRetries: openai.NoRetries}) // retry_test.go retries refused connections
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

	_, chatErr := m.Chat(context.Background(), req)
	_, streamErr := m.Stream(context.Background(), req, nil)

	for _, err := range []error{chatErr, streamErr} {
		pe := checkProviderError(t, err, syscall.ECONNREFUSED, 0, "gpt-4o-mini")
		assert.Contains(t, pe.Message, "cannot connect to http://"+addr+"/[redacted]/v1")
		assert.Contains(t, err.Error(), "connection refused")
		var opErr *net.OpError
		assert.ErrorAs(t, err, &opErr, "the net error is wrapped")
	}
}

func TestContextAlreadyCancelled(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "llamacpp/b_plain")
	m := newModel(srv, openai.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
	_, err := m.Chat(ctx, req)
	checkProviderError(t, err, context.Canceled, 0, "tiny")
	_, err = m.Stream(ctx, req, nil)
	checkProviderError(t, err, context.Canceled, 0, "tiny")
	assert.Zero(t, got.Count())
}

func TestDeadline(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "llamacpp/b_plain")
	m := newModel(srv, openai.Config{})
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := m.Chat(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
	checkProviderError(t, err, context.DeadlineExceeded, 0, "tiny")
}

// TestUnauthorizedWithoutKey: a 401 with no key configured says so. It
// cannot run in parallel: it clears OPENAI_API_KEY, which New reads.
func TestUnauthorizedWithoutKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: "", Model: "gpt-4o-mini",
		HTTPClient: &http.Client{Transport: cannedBody{status: 401, contentType: "application/json",
			body: []byte(`{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error"}}`)}}})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
	pe := checkProviderError(t, err, chat.ErrUnauthorized, 401, "gpt-4o-mini")
	assert.Equal(t, "You didn't provide an API key.; no API key is set (Config.APIKey or OPENAI_API_KEY)", pe.Message)
}

// failingBody fails after some bytes, as a connection cut mid-response.
type failingBody struct {
	data []byte
	err  error
}

func (b *failingBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func (b *failingBody) Close() error { return nil }

type failingTransport struct{ body string }

func (f failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Request: req,
		Body: &failingBody{data: []byte(f.body), err: syscall.ECONNRESET}}, nil
}

func TestBodyReadFails(t *testing.T) {
	t.Parallel()
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choi"
	m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "gpt-4o-mini",
		HTTPClient: &http.Client{Transport: failingTransport{body: body}}})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

	_, err := m.Chat(context.Background(), req)
	checkProviderError(t, err, syscall.ECONNRESET, 200, "gpt-4o-mini")

	var deltas []string
	_, err = m.Stream(context.Background(), req, func(d chat.Delta) bool { deltas = append(deltas, d.Content); return true })
	checkProviderError(t, err, syscall.ECONNRESET, 200, "gpt-4o-mini")
	assert.Equal(t, []string{"Hel"}, deltas, "the partial event is dropped, not reported as malformed")
}

// TestNotFound: a 404 whose message names a model is a missing model; a
// 404 page, or a message about something else, is a wrong URL (a bad
// request); an empty 404 could be either, and wraps no sentinel. Only a BaseURL that does not end in /v1 gets the advice that it
// usually does. The key, here also in the URL path, never shows.
func TestNotFound(t *testing.T) {
	t.Parallel()
	const page = "404 page not found\n"
	for _, tc := range []struct {
		name    string
		baseURL string
		body    string
		wantErr error // nil: no sentinel
		want    string
	}{
		{
			name: "JSON message", baseURL: "http://compat.invalid/v1",
			body:    `{"error":{"message":"The model gpt-9 does not exist","type":"invalid_request_error","code":"model_not_found"}}`,
			wantErr: chat.ErrModelNotFound,
			want:    `openai: HTTP 404: model "gpt-4o-mini": model not found: The model gpt-9 does not exist`,
		},
		{
			name: "page, BaseURL ends in /v1", baseURL: "http://compat.invalid/v1", body: page,
			wantErr: chat.ErrBadRequest,
			want:    `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid/v1`,
		},
		{
			name: "page, BaseURL without /v1", baseURL: "http://compat.invalid", body: page,
			wantErr: chat.ErrBadRequest,
			want:    `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid; BaseURL usually ends in /v1`,
		},
		{
			name: "page, key in the path", baseURL: "http://compat.invalid/" + testKey, body: page,
			wantErr: chat.ErrBadRequest,
			want:    `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid/[redacted]; BaseURL usually ends in /v1`,
		},
		{
			name: "JSON message about the path", baseURL: "http://compat.invalid/v1",
			body:    `{"error":{"message":"Invalid URL (POST /v1/chat/completions)","type":"invalid_request_error","code":null}}`,
			wantErr: chat.ErrBadRequest,
			want:    `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid/v1`,
		},
		{
			name: "HTML page", baseURL: "http://compat.invalid", body: "<html><body><h1>404 Not Found</h1><hr><center>nginx</center></body></html>",
			wantErr: chat.ErrBadRequest,
			want:    `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid; BaseURL usually ends in /v1`,
		},
		{
			name: "empty, BaseURL ends in /v1", baseURL: "http://compat.invalid/v1",
			want: `openai: HTTP 404: model "gpt-4o-mini": endpoint or model not found at /v1/chat/completions`,
		},
		{
			name: "blank, BaseURL ends in /v1", baseURL: "http://compat.invalid/v1", body: " \n",
			want: `openai: HTTP 404: model "gpt-4o-mini": endpoint or model not found at /v1/chat/completions`,
		},
		{
			name: "empty, BaseURL without /v1", baseURL: "http://compat.invalid/api",
			want: `openai: HTTP 404: model "gpt-4o-mini": endpoint or model not found at /api/chat/completions; BaseURL usually ends in /v1`,
		},
		{
			name: "empty, key in the path", baseURL: "http://compat.invalid/" + testKey + "/v1",
			want: `openai: HTTP 404: model "gpt-4o-mini": endpoint or model not found at /[redacted]/v1/chat/completions`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := openai.New(openai.Config{BaseURL: tc.baseURL, APIKey: testKey, Model: "gpt-4o-mini",
				HTTPClient: &http.Client{Transport: cannedBody{status: 404, contentType: "text/plain; charset=utf-8", body: []byte(tc.body)}}})
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
			_, chatErr := m.Chat(context.Background(), req)
			_, streamErr := m.Stream(context.Background(), req, nil)
			for mode, err := range map[string]error{"Chat": chatErr, "Stream": streamErr} {
				require.EqualError(t, err, tc.want, mode)
				var pe *chat.ProviderError
				require.ErrorAs(t, err, &pe, mode)
				assert.Equal(t, 404, pe.StatusCode, mode)
				if tc.wantErr != nil {
					assert.ErrorIs(t, err, tc.wantErr, mode)
				} else {
					assert.NoError(t, pe.Err, mode)
					assert.NotErrorIs(t, err, chat.ErrModelNotFound, mode)
				}
				providertest.CheckNoKey(t, err, testKey)
			}
		})
	}
}
