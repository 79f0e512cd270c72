package gemini_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// rpcError is a google.rpc status body.
func rpcError(code int, status, msg string, details ...string) string {
	d := strings.Join(details, ",")
	return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `","details":[` + d + `]}}`
}

const (
	keyInvalid  = `{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"}}`
	perMinute   = `{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaValue":"10"}]}`
	perDay      = `{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaValue":"250"}]}`
	retryIn37s  = `{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}`
	retryIn1500 = `{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}`
)

// TestStatusErrors: the status and details of the API's error body give
// the sentinel, the message is the body's, RetryInfo's delay is the
// Retry-After unless a header gave one.
func TestStatusErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		status     int
		body       string
		header     []string
		want       error
		msg        string
		retryAfter time.Duration
	}{
		{name: "invalid argument", status: 400, body: rpcError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."),
			want: chat.ErrBadRequest, msg: "Invalid JSON payload received."},
		{name: "invalid key", status: 400, body: rpcError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", keyInvalid),
			want: chat.ErrUnauthorized, msg: "API key not valid. Please pass a valid API key."},
		{name: "key echoed", status: 400, body: rpcError(400, "INVALID_ARGUMENT", "API key "+testKey+" not valid.", keyInvalid),
			want: chat.ErrUnauthorized, msg: "API key [redacted] not valid."},
		{name: "no free tier here", status: 400, body: rpcError(400, "FAILED_PRECONDITION", "User location is not supported for the API use."),
			want: chat.ErrBadRequest, msg: "User location is not supported for the API use."},
		{name: "permission denied", status: 403, body: rpcError(403, "PERMISSION_DENIED", "Permission denied on resource project x."),
			want: chat.ErrUnauthorized, msg: "Permission denied on resource project x."},
		{name: "no tools for the model", status: 400, body: rpcError(400, "INVALID_ARGUMENT", "Function calling is not enabled for models/gemma-3-27b-it"),
			want: chat.ErrToolsNotSupported, msg: "Function calling is not enabled for models/gemma-3-27b-it"},
		{name: "unknown model", status: 404, body: rpcError(404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta"),
			want: chat.ErrModelNotFound, msg: "models/gemini-9 is not found for API version v1beta"},
		{name: "rate limited", status: 429, body: rpcError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.", perMinute, retryIn37s),
			want: chat.ErrRateLimited, msg: "You exceeded your current quota.", retryAfter: 37 * time.Second},
		{name: "header wins", status: 429, body: rpcError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.", retryIn37s), header: []string{"Retry-After", "2"},
			want: chat.ErrRateLimited, msg: "You exceeded your current quota.", retryAfter: 2 * time.Second},
		{name: "daily quota", status: 429, body: rpcError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.", perDay, retryIn37s),
			want: chat.ErrQuotaExceeded, msg: "You exceeded your current quota.", retryAfter: 37 * time.Second},
		{name: "internal", status: 500, body: rpcError(500, "INTERNAL", "An internal error has occurred."), want: chat.ErrServer, msg: "An internal error has occurred."},
		{name: "overloaded", status: 503, body: rpcError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
			want: chat.ErrServer, msg: "The model is overloaded. Please try again later."},
		{name: "a list of one", status: 400, body: `[` + rpcError(400, "INVALID_ARGUMENT", "Bad.", keyInvalid) + `]`, want: chat.ErrUnauthorized, msg: "Bad."},
		{name: "unknown status by HTTP status", status: 409, body: rpcError(409, "ABORTED", "Aborted."), want: chat.ErrBadRequest, msg: "Aborted."},
		{name: "a proxy's page", status: 502, body: "<html>Bad Gateway</html>", want: chat.ErrServer, msg: "Bad Gateway"},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				srv, _ := serve(t, status(tc.status, tc.body, tc.header...))
				m := newModel(srv, gemini.Config{MaxRetries: gemini.NoRetries})
				var err error
				if stream {
					_, err = m.Stream(context.Background(), hiRequest, nil)
				} else {
					_, err = m.Chat(context.Background(), hiRequest)
				}
				pe := checkProviderError(t, err, tc.want, tc.status, testModel)
				assert.Equal(t, tc.msg, pe.Message)
				assert.Equal(t, tc.retryAfter, pe.RetryAfter)
			})
		}
	}
}

// TestRetryDelayHonoured: a 429's retryDelay is the wait before the retry;
// a daily quota used up is not retried.
func TestRetryDelayHonoured(t *testing.T) {
	t.Parallel()
	srv := providertest.NewFlaky(t, 1, status(429, rpcError(429, "RESOURCE_EXHAUSTED", "Slow down.", perMinute, retryIn1500)), reply(okText))
	sleeper := &providertest.Sleeper{}
	m := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: testKey, Model: testModel, HTTPClient: srv.Client()})
	gemini.SetRetryHooks(m, sleeper.Sleep, providertest.NoJitter)
	resp, err := m.Chat(context.Background(), hiRequest)
	require.NoError(t, err)
	assert.Equal(t, 2, resp.Attempts)
	assert.Equal(t, []time.Duration{1500 * time.Millisecond}, sleeper.Waits())

	srv = providertest.NewFlaky(t, 5, status(429, rpcError(429, "RESOURCE_EXHAUSTED", "Daily quota.", perDay, retryIn1500)), reply(okText))
	sleeper = &providertest.Sleeper{}
	m = gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: testKey, Model: testModel, HTTPClient: srv.Client()})
	gemini.SetRetryHooks(m, sleeper.Sleep, providertest.NoJitter)
	_, err = m.Chat(context.Background(), hiRequest)
	providertest.CheckAttempts(t, err, 429, 1)
	assert.ErrorIs(t, err, chat.ErrQuotaExceeded)
	assert.Equal(t, 1, srv.Requests())
	assert.Empty(t, sleeper.Waits())
}

// TestReplyErrors: replies with a 200 status that are errors, or that
// cannot be used, end the call with a typed error naming why.
func TestReplyErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body string // a reply; as a stream, its one chunk
		want error
		msg  string
	}{
		{name: "error body", body: rpcError(503, "UNAVAILABLE", "Overloaded."), want: chat.ErrServer, msg: "Overloaded."},
		{name: "error of unknown status", body: `{"error":{"code":500,"message":"Odd."}}`, want: chat.ErrServer, msg: "Odd."},
		{name: "malformed call", body: `{"candidates":[{"content":{},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(default_api.get_weather(city=Paris))","index":0}]}`,
			want: chat.ErrBadResponse, msg: "finishReason MALFORMED_FUNCTION_CALL: the model's function call could not be used: Malformed function call: print(default_api.get_weather(city=Paris))"},
		{name: "unexpected call", body: `{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"UNEXPECTED_TOOL_CALL","index":0}]}`,
			want: chat.ErrBadResponse, msg: "finishReason UNEXPECTED_TOOL_CALL: the model's function call could not be used"},
		{name: "prompt blocked", body: `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":7}}`,
			want: chat.ErrBadRequest, msg: "the prompt was blocked (promptFeedback.blockReason PROHIBITED_CONTENT)"},
		{name: "no candidate", body: `{"usageMetadata":{"promptTokenCount":7},"modelVersion":"gemini-test"}`, want: chat.ErrBadResponse, msg: "the reply has no candidate"},
		{name: "unknown reason with a call", body: `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{}}}]},"finishReason":"OTHER","index":0}]}`,
			want: chat.ErrBadResponse, msg: `finishReason "OTHER" is unknown and the reply has function calls: they are not run`},
		{name: "call without a name", body: `{"candidates":[{"content":{"parts":[{"functionCall":{"args":{}}}]},"finishReason":"STOP","index":0}]}`,
			want: chat.ErrBadResponse, msg: "part 0 is a function call without a name"},
		{name: "parts not a list", body: `{"candidates":[{"content":{"parts":{}},"finishReason":"STOP","index":0}]}`,
			want: chat.ErrBadResponse, msg: `response does not fit the Gemini API format: field "candidates.content.parts" is a JSON object`},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				body := tc.body
				if stream {
					body = sse(body)
				}
				srv, _ := serve(t, reply(body))
				m := newModel(srv, gemini.Config{})
				var err error
				if stream {
					_, err = m.Stream(context.Background(), hiRequest, nil)
				} else {
					_, err = m.Chat(context.Background(), hiRequest)
				}
				pe := checkProviderError(t, err, tc.want, 200, testModel)
				msg := tc.msg
				switch {
				case tc.name == "parts not a list":
					// What follows is encoding/json's account of the field.
					what := map[bool]string{false: "response", true: "stream chunk"}[stream]
					assert.True(t, strings.HasPrefix(pe.Message, what+" does not fit the Gemini API format: "), pe.Message)
					return
				case stream && tc.name == "no candidate":
					// A stream that ends without a finishReason was cut off.
					assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
					msg = ""
				}
				assert.Equal(t, msg, pe.Message)
			})
		}
	}
}

// TestFinishReasons: how each finishReason finishes a reply without calls.
func TestFinishReasons(t *testing.T) {
	t.Parallel()
	for reason, want := range map[string]chat.FinishReason{
		"STOP": chat.FinishStop, "MAX_TOKENS": chat.FinishLength, "SAFETY": chat.FinishFiltered, "RECITATION": chat.FinishFiltered,
		"BLOCKLIST": chat.FinishFiltered, "PROHIBITED_CONTENT": chat.FinishFiltered, "SPII": chat.FinishFiltered,
		"LANGUAGE": "LANGUAGE", "OTHER": "OTHER",
	} {
		t.Run(reason, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, reply(textChunk("partial", reason)))
			resp, err := newModel(srv, gemini.Config{}).Chat(context.Background(), hiRequest)
			require.NoError(t, err)
			assert.Equal(t, want, resp.FinishReason)
			assert.Equal(t, "partial", resp.Message.Content)
		})
	}
}

// TestStreamErrors: a stream cut before its finishReason, an error chunk
// after text, and a consumer that stops.
func TestStreamErrors(t *testing.T) {
	t.Parallel()
	t.Run("cut before the finishReason", func(t *testing.T) {
		t.Parallel()
		srv, _ := serve(t, reply(sse(textChunk("Hel", ""), textChunk("lo", ""))))
		var deltas []chat.Delta
		resp, err := newModel(srv, gemini.Config{}).Stream(context.Background(), hiRequest, collect(&deltas))
		assert.Nil(t, resp)
		checkProviderError(t, err, chat.ErrBadResponse, 200, testModel)
		assert.Len(t, deltas, 2)
	})
	t.Run("error chunk", func(t *testing.T) {
		t.Parallel()
		srv, _ := serve(t, reply(sse(textChunk("Hel", ""), rpcError(500, "INTERNAL", "Stream broke."))))
		_, err := newModel(srv, gemini.Config{}).Stream(context.Background(), hiRequest, nil)
		pe := checkProviderError(t, err, chat.ErrServer, 200, testModel)
		assert.Equal(t, "Stream broke.", pe.Message)
	})
	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		srv, _ := serve(t, reply(sse(textChunk("Hel", ""), textChunk("lo", "STOP"))))
		n := 0
		_, err := newModel(srv, gemini.Config{}).Stream(context.Background(), hiRequest, func(chat.Delta) bool { n++; return false })
		assert.ErrorIs(t, err, chat.ErrStreamStopped)
		assert.Equal(t, 1, n)
	})
	t.Run("a whole reply instead of a stream", func(t *testing.T) {
		t.Parallel()
		srv, c := serve(t, reply(textChunk("Hello", "STOP")))
		var deltas []chat.Delta
		resp, err := newModel(srv, gemini.Config{}).Stream(context.Background(), hiRequest, collect(&deltas))
		require.NoError(t, err)
		assert.Equal(t, "Hello", resp.Message.Content)
		assert.Equal(t, []chat.Delta{{Content: "Hello"}}, deltas)
		assert.Equal(t, streamPath, c.Get(t, 0).Path)
	})
	t.Run("blocked prompt", func(t *testing.T) {
		t.Parallel()
		srv, _ := serve(t, reply(sse(`{"promptFeedback":{"blockReason":"SAFETY"}}`)))
		_, err := newModel(srv, gemini.Config{}).Stream(context.Background(), hiRequest, nil)
		pe := checkProviderError(t, err, chat.ErrBadRequest, 200, testModel)
		assert.Equal(t, "the prompt was blocked (promptFeedback.blockReason SAFETY)", pe.Message)
	})
}

// A 404 without a model's name is a wrong BaseURL.
func TestNotFoundPath(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, status(http.StatusNotFound, `{"error":{"code":404,"message":"Not Found","status":"NOT_FOUND"}}`))
	_, err := newModel(srv, gemini.Config{}).Chat(context.Background(), hiRequest)
	pe := checkProviderError(t, err, chat.ErrBadRequest, 404, testModel)
	assert.Equal(t, `no Gemini API at `+srv.URL+generatePath+` (the server said "Not Found"); Config.BaseURL is the server's root, such as https://generativelanguage.googleapis.com`, pe.Message)
}

// TestManySmallParts: each part counts 256 bytes against the response
// limit besides its own, so a reply of many tiny calls is bounded too,
// streamed or not.
func TestManySmallParts(t *testing.T) {
	t.Parallel()
	const part = `{"functionCall":{"name":"f","args":{}}}`
	var chunks []string
	parts := make([]string, 40)
	for i := range parts {
		parts[i] = part
		chunks = append(chunks, `{"candidates":[{"content":{"parts":[`+part+`]},"index":0}]}`)
	}
	whole := `{"candidates":[{"content":{"parts":[` + strings.Join(parts, ",") + `]},"finishReason":"STOP","index":0}]}`
	for _, stream := range []bool{false, true} {
		body := whole
		if stream {
			body = sse(chunks...)
		}
		require.Less(t, len(body), 4096)
		srv, _ := serve(t, reply(body))
		m := newModel(srv, gemini.Config{MaxResponseBytes: 4096})
		var err error
		if stream {
			_, err = m.Stream(context.Background(), hiRequest, nil)
		} else {
			_, err = m.Chat(context.Background(), hiRequest)
		}
		pe := checkProviderError(t, err, chat.ErrBadResponse, 200, testModel)
		assert.Contains(t, pe.Message, "larger than the 4 KiB limit (Config.MaxResponseBytes)")
	}
}
