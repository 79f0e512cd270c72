package httpline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/retry"
)

const secret = "sk-long-secret"

// server starts a test server that answers with handler and sends each
// request's headers to the channel it returns.
func server(t *testing.T, handler http.HandlerFunc) (*httptest.Server, <-chan http.Header) {
	t.Helper()
	got := make(chan http.Header, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func endpoint(srv *httptest.Server) *Endpoint {
	return &Endpoint{
		Provider: "test",
		URL:      srv.URL + "/chat",
		Header:   http.Header{"Authorization": {"Bearer " + secret}},
		Secret:   secret,
		Client:   srv.Client(),
		Retry:    retry.Policy{MaxRetries: -1},
		Limit:    1 << 20,
	}
}

// checkNoSecret fails if the key shows in err or in any error it wraps.
func checkNoSecret(t *testing.T, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, s := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
			assert.NotContains(t, s, secret, "%T", e)
		}
	}
}

func TestPostSendsHeaders(t *testing.T) {
	srv, headers := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_1")
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	var pe *chat.ProviderError
	resp, err := endpoint(srv).Call(context.Background(), "m", "text/event-stream", []byte(`{}`), func(ctx context.Context, rep *Reply) (*chat.Response, error) {
		assert.Equal(t, 1, rep.Attempts)
		assert.Equal(t, "req_1", rep.RequestID)
		data, err := rep.ReadAll(ctx)
		require.NoError(t, err)
		assert.Equal(t, `{"ok":true}`, string(data))
		pe = rep.BadResponse("no choices")
		return &chat.Response{}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 1, resp.Attempts)
	got := <-headers
	assert.Equal(t, "Bearer "+secret, got.Get("Authorization"))
	assert.Equal(t, "application/json", got.Get("Content-Type"))
	assert.Equal(t, "text/event-stream", got.Get("Accept"))
	assert.Equal(t, &chat.ProviderError{Provider: "test", StatusCode: 200, Model: "m", Message: "no choices",
		Attempts: 1, RequestID: "req_1", Err: chat.ErrBadResponse}, pe)
}

// noRead is a Call's read for a request that must fail.
func noRead(t *testing.T) func(context.Context, *Reply) (*chat.Response, error) {
	return func(context.Context, *Reply) (*chat.Response, error) {
		t.Error("a reply was read")
		return nil, nil
	}
}

// TestStatusError: a failed status is a ProviderError with the sentinel of
// the status, Retry-After, the request id and the message ParseError read,
// the key removed; without a message, the status text.
func TestStatusError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   string
		parse  bool
		want   chat.ProviderError
	}{
		{name: "parsed message, key echoed", status: 401, body: "bad key " + secret, parse: true,
			header: http.Header{"Request-Id": {"req_a"}, "X-Request-Id": {"req_b"}},
			want:   chat.ProviderError{StatusCode: 401, Message: "bad key [redacted]", RequestID: "req_a", Err: chat.ErrUnauthorized}},
		{name: "no message", status: 503, body: "<html>busy</html>", header: http.Header{"Retry-After": {"3"}, "X-Request-Id": {"req_b"}},
			want: chat.ProviderError{StatusCode: 503, Message: "Service Unavailable", RetryAfter: 3 * time.Second, RequestID: "req_b", Err: chat.ErrServer}},
		{name: "retry-after-ms wins", status: 429, header: http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"3"}},
			want: chat.ProviderError{StatusCode: 429, Message: "Too Many Requests", RetryAfter: 250 * time.Millisecond, Err: chat.ErrRateLimited}},
		{name: "redirect not followed", status: 304,
			want: chat.ProviderError{StatusCode: 304, Message: "Not Modified", Err: chat.ErrBadResponse}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			e := endpoint(srv)
			if tc.parse {
				e.ParseError = func(pe *chat.ProviderError, resp *http.Response, body []byte) {
					// The key is out of the body before ParseError sees it.
					assert.Equal(t, strings.ReplaceAll(tc.body, secret, "[redacted]"), string(body))
					pe.Message = string(body)
				}
			}
			_, err := e.Call(context.Background(), "m", "application/json", nil, noRead(t))
			var pe *chat.ProviderError
			require.ErrorAs(t, err, &pe)
			want := tc.want
			want.Provider, want.Model, want.Attempts = "test", "m", 1
			assert.Equal(t, &want, pe)
			checkNoSecret(t, err)
		})
	}
}

// TestNoKey: a 401 to an Endpoint without a key says so, and names the
// variable the key is read from; with a key, or with no KeyEnv, the
// message is the server's.
func TestNoKey(t *testing.T) {
	for _, tc := range []struct {
		name, secret, keyEnv, body, want string
	}{
		{name: "message", keyEnv: "X_API_KEY", body: "You didn't provide an API key.", want: "You didn't provide an API key.; no API key is set (Config.APIKey or X_API_KEY)"},
		{name: "no message", keyEnv: "X_API_KEY", want: "no API key is set (Config.APIKey or X_API_KEY)"},
		{name: "a key", secret: secret, keyEnv: "X_API_KEY", body: "bad key", want: "bad key"},
		{name: "no KeyEnv", body: "bad key", want: "bad key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, tc.body)
			})
			e := endpoint(srv)
			e.Secret, e.KeyEnv = tc.secret, tc.keyEnv
			e.ParseError = func(pe *chat.ProviderError, _ *http.Response, body []byte) { pe.Message = string(body) }
			_, err := e.Call(context.Background(), "m", "application/json", nil, noRead(t))
			var pe *chat.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.want, pe.Message)
			assert.ErrorIs(t, err, chat.ErrUnauthorized)
		})
	}
}

// TestPostRetries: a retried failure is sent again; the reply counts the
// requests.
func TestPostRetries(t *testing.T) {
	var n atomic.Int32
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	e := endpoint(srv)
	e.Retry = retry.Policy{Sleep: func(context.Context, time.Duration) error { return nil }}
	resp, err := e.Call(context.Background(), "m", "application/json", []byte(`{}`), func(context.Context, *Reply) (*chat.Response, error) {
		return &chat.Response{}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, resp.Attempts)
}

// TestTransportErrors: a URL that cannot be used is sent no request; a
// refused connection gets the Unreachable message; the key, in the URL
// here, shows in neither.
func TestTransportErrors(t *testing.T) {
	e := &Endpoint{Provider: "test", URL: "http://bad host/" + secret, Secret: secret}
	_, err := e.Call(context.Background(), "m", "application/json", nil, noRead(t))
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, chat.ErrBadRequest)
	assert.Contains(t, pe.Message, "invalid BaseURL")
	assert.Zero(t, pe.Attempts, "nothing was sent")
	checkNoSecret(t, err)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	e = &Endpoint{Provider: "test", URL: "http://" + addr + "/" + secret, Secret: secret, Client: &http.Client{Transport: tr},
		Retry: retry.Policy{MaxRetries: -1}, Unreachable: "cannot connect to http://" + addr + "/" + secret}
	_, err = e.Call(context.Background(), "m", "application/json", nil, noRead(t))
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Equal(t, "cannot connect to http://"+addr+"/[redacted]", pe.Message)
	assert.Equal(t, 1, pe.Attempts)
	checkNoSecret(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Call(ctx, "m", "application/json", nil, noRead(t))
	assert.ErrorIs(t, err, context.Canceled)
}

// TestReadError: what goes wrong reading a reply's body.
func TestReadError(t *testing.T) {
	r := &Reply{Response: &http.Response{StatusCode: 200}, Attempts: 2, RequestID: "req_1", e: &Endpoint{Provider: "test", Secret: secret, Limit: 1 << 20}, model: "m"}
	cut := r.ReadError(context.Background(), "stream", &url.Error{Op: "Post", URL: "http://x/" + secret, Err: io.ErrUnexpectedEOF})
	assert.ErrorIs(t, cut, chat.ErrBadResponse)
	assert.ErrorIs(t, cut, io.ErrUnexpectedEOF)
	assert.Equal(t, `test: HTTP 200: model "m": malformed response: stream cut off: Post "http://x/[redacted]": unexpected EOF (2 attempts)`, cut.Error())
	assert.Equal(t, "req_1", cut.RequestID)
	checkNoSecret(t, cut)

	long := r.ReadError(context.Background(), "stream", ErrTooLong)
	assert.Equal(t, `test: HTTP 200: model "m": malformed response: stream line longer than 8 MiB (2 attempts)`, long.Error(), "eight times the 1 MiB limit")

	large := r.TooLarge("streamed reply")
	assert.ErrorIs(t, large, chat.ErrBadResponse)
	assert.Equal(t, "streamed reply is larger than the 1 MiB limit (Config.MaxResponseBytes)", large.Message)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, r.ReadError(ctx, "stream", io.ErrUnexpectedEOF), context.Canceled)
}

func TestRedact(t *testing.T) {
	e := &Endpoint{Secret: secret}
	assert.Equal(t, "key [redacted] rejected", e.Redact("key "+secret+" rejected"))
	err := e.redactErr(&url.Error{Op: "Post", URL: "http://x/" + secret + "/v1", Err: syscall.ECONNREFUSED})
	assert.Equal(t, `Post "http://x/[redacted]/v1": connection refused`, err.Error())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	other := e.redactErr(errors.Join(errors.New(secret), syscall.EPIPE))
	assert.Equal(t, "[redacted]\nbroken pipe", other.Error())
	assert.ErrorIs(t, other, syscall.EPIPE)

	// Placeholder keys for local servers are not secrets.
	short := &Endpoint{Secret: "ollama"}
	assert.Equal(t, "try ollama pull", short.Redact("try ollama pull"))
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{name: "none", want: 0},
		{name: "seconds", header: http.Header{"Retry-After": {"30"}}, want: 30 * time.Second},
		{name: "date", header: http.Header{"Retry-After": {"Sun, 22 Nov 2026 12:01:30 GMT"}}, want: 90 * time.Second},
		{name: "milliseconds win", header: http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, want: 250 * time.Millisecond},
		{name: "bad milliseconds fall back", header: http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"1"}}, want: time.Second},
		{name: "absurd milliseconds fall back", header: http.Header{"Retry-After-Ms": {"1e300"}}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, retryAfter(tc.header, now))
		})
	}
}

func TestModelOf(t *testing.T) {
	e := &Endpoint{Provider: "test", Secret: secret}
	model, err := e.ModelOf(&chat.Request{Model: "b"}, "a")
	require.NoError(t, err)
	assert.Equal(t, "b", model, "the request's model wins")
	model, err = e.ModelOf(&chat.Request{}, "a")
	require.NoError(t, err)
	assert.Equal(t, "a", model)

	_, err = e.ModelOf(&chat.Request{}, "")
	assert.ErrorIs(t, err, chat.ErrBadRequest)
	assert.EqualError(t, err, "test: bad request: no model: set Config.Model or Request.Model")
	_, err = e.ModelOf(nil, "a")
	assert.EqualError(t, err, `test: model "a": bad request: nil request`)

	assert.EqualError(t, e.BadRequest("a", "tool "+secret+" has no name"), `test: model "a": bad request: tool [redacted] has no name`)
}
