package ollama_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/internal/retry"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// The tests of the retries run Chat and Stream against a providertest.Flaky
// server; the model's waits go to a providertest.Sleeper, so no test
// sleeps, and there is no jitter, so each wait is known.

var retryReq = &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

// okChat and okStream are the answers after the failures.
func okChat(t *testing.T) http.HandlerFunc {
	rec := loadRecording(t, "b_plain")
	return providertest.Reply(rec.contentType, string(rec.body))
}

func okStream(t *testing.T) http.HandlerFunc {
	rec := loadRecording(t, "d_plain_stream")
	return providertest.Reply(rec.contentType, string(rec.body))
}

// retryModel returns a model of srv with cfg whose waits go to the
// returned Sleeper.
func retryModel(srv *providertest.Flaky, cfg ollama.Config) (*ollama.Model, *providertest.Sleeper) {
	m := newModel(srv.Server, cfg)
	s := &providertest.Sleeper{}
	ollama.SetRetryHooks(m, s.Sleep, providertest.NoJitter)
	return m, s
}

// send runs Chat, or Stream when stream is set, and returns the reply, the
// text deltas of a Stream, and the error.
func send(ctx context.Context, m *ollama.Model, stream bool) (*chat.Response, []string, error) {
	if !stream {
		resp, err := m.Chat(ctx, retryReq)
		return resp, nil, err
	}
	var deltas []string
	resp, err := m.Stream(ctx, retryReq, func(d chat.Delta) bool {
		deltas = append(deltas, d.Content)
		return true
	})
	return resp, deltas, err
}

var modes = []struct {
	name   string
	stream bool
}{{"chat", false}, {"stream", true}}

func okFor(t *testing.T, stream bool) http.HandlerFunc {
	if stream {
		return okStream(t)
	}
	return okChat(t)
}

// TestRetryStatuses: each retried status fails twice, then the third
// request succeeds after waits of 0.5 s and 1 s; failing three times, the
// call ends with the third failure.
func TestRetryStatuses(t *testing.T) {
	t.Parallel()
	for _, status := range providertest.RetriedStatuses {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%d/%s", status, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := providertest.NewFlaky(t, 2, providertest.Status(status), okFor(t, mode.stream))
				m, sleeper := retryModel(srv, ollama.Config{})
				resp, _, err := send(context.Background(), m, mode.stream)
				require.NoError(t, err)
				assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
				assert.Equal(t, 3, resp.Attempts)
				assert.Equal(t, 3, srv.Requests())
				assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, sleeper.Waits())

				srv = providertest.NewFlaky(t, 3, providertest.Status(status), okFor(t, mode.stream))
				m, sleeper = retryModel(srv, ollama.Config{})
				resp, _, err = send(context.Background(), m, mode.stream)
				assert.Nil(t, resp)
				pe := providertest.CheckAttempts(t, err, status, 3)
				assert.Equal(t, fmt.Sprintf("failure %d", status), pe.Message)
				assert.Equal(t, 3, srv.Requests())
				assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, sleeper.Waits())
			})
		}
	}
}

// TestRetryResetConnection: a server that closes the connection before a
// byte of response is retried like a 5xx.
func TestRetryResetConnection(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewFlaky(t, 2, providertest.Reset, okFor(t, mode.stream))
			m, sleeper := retryModel(srv, ollama.Config{})
			resp, _, err := send(context.Background(), m, mode.stream)
			require.NoError(t, err)
			assert.Equal(t, 3, resp.Attempts)
			assert.Equal(t, 3, srv.Requests())
			assert.Len(t, sleeper.Waits(), 2)

			srv = providertest.NewFlaky(t, 3, providertest.Reset, okFor(t, mode.stream))
			m, _ = retryModel(srv, ollama.Config{})
			_, _, err = send(context.Background(), m, mode.stream)
			providertest.CheckAttempts(t, err, 0, 3)
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, 3, srv.Requests())
		})
	}
}

// TestRetryRefusedConnection: nothing listens; every attempt is refused.
func TestRetryRefusedConnection(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m := ollama.New(ollama.Config{BaseURL: "http://" + addr, Model: "tiny",
		HTTPClient: &http.Client{Transport: tr}, MaxRetries: 1})
	sleeper := &providertest.Sleeper{}
	ollama.SetRetryHooks(m, sleeper.Sleep, providertest.NoJitter)
	_, err = m.Chat(context.Background(), retryReq)
	providertest.CheckAttempts(t, err, 0, 2)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Equal(t, []time.Duration{500 * time.Millisecond}, sleeper.Waits())
}

// TestNoRetryOtherClientErrors: other 4xx will fail again: one request.
func TestNoRetryOtherClientErrors(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 422} {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%d/%s", status, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := providertest.NewFlaky(t, 1, providertest.Status(status), okFor(t, mode.stream))
				m, sleeper := retryModel(srv, ollama.Config{})
				_, _, err := send(context.Background(), m, mode.stream)
				providertest.CheckAttempts(t, err, status, 1)
				assert.Equal(t, 1, srv.Requests())
				assert.Empty(t, sleeper.Waits())
			})
		}
	}
}

// TestRetriesConfigured: NoRetries (or any negative value) sends once;
// MaxRetries 4 allows five requests.
func TestRetriesConfigured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		maxRetries int
		fails      int
		attempts   int // the requests made
		ok         bool
		waits      []time.Duration
	}{
		{name: "off", maxRetries: ollama.NoRetries, fails: 1, attempts: 1},
		{name: "negative", maxRetries: -7, fails: 1, attempts: 1},
		{name: "default", maxRetries: 0, fails: 2, attempts: 3, ok: true,
			waits: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "one", maxRetries: 1, fails: 2, attempts: 2,
			waits: []time.Duration{500 * time.Millisecond}},
		{name: "five", maxRetries: 5, fails: 4, attempts: 5, ok: true,
			waits: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}},
	} {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := providertest.NewFlaky(t, tc.fails, providertest.Status(503), okFor(t, mode.stream))
				m, sleeper := retryModel(srv, ollama.Config{MaxRetries: tc.maxRetries})
				resp, _, err := send(context.Background(), m, mode.stream)
				if tc.ok {
					require.NoError(t, err)
					assert.Equal(t, tc.attempts, resp.Attempts)
				} else {
					providertest.CheckAttempts(t, err, 503, tc.attempts)
				}
				assert.Equal(t, tc.attempts, srv.Requests())
				assert.Equal(t, tc.waits, sleeper.Waits())
			})
		}
	}
}

// TestRetryAfterHonoured: the server's Retry-After, in seconds or as a
// date, is the wait, up to retry.MaxRetryAfter.
func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		header []string
		wait   time.Duration
	}{
		{name: "seconds", header: []string{"Retry-After", "3"}, wait: 3 * time.Second},
		{name: "fraction", header: []string{"Retry-After", "0.25"}, wait: 250 * time.Millisecond},
		{name: "capped", header: []string{"Retry-After", "3600"}, wait: retry.MaxRetryAfter},
		{name: "unreadable: backoff", header: []string{"Retry-After", "soon"}, wait: 500 * time.Millisecond},
	} {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := providertest.NewFlaky(t, 1, providertest.Status(429, tc.header...), okFor(t, mode.stream))
				m, sleeper := retryModel(srv, ollama.Config{})
				resp, _, err := send(context.Background(), m, mode.stream)
				require.NoError(t, err)
				assert.Equal(t, 2, resp.Attempts)
				assert.Equal(t, []time.Duration{tc.wait}, sleeper.Waits())
			})
		}
	}
	t.Run("date", func(t *testing.T) {
		t.Parallel()
		date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		srv := providertest.NewFlaky(t, 1, providertest.Status(503, "Retry-After", date), okChat(t))
		m, sleeper := retryModel(srv, ollama.Config{})
		resp, err := m.Chat(context.Background(), retryReq)
		require.NoError(t, err)
		assert.Equal(t, 2, resp.Attempts)
		assert.Equal(t, []time.Duration{retry.MaxRetryAfter}, sleeper.Waits())
	})
}

// TestRetryAfterBeyondDeadline: a wait that would outlast the context's
// deadline is not begun; the call ends with the server's error at once.
func TestRetryAfterBeyondDeadline(t *testing.T) {
	t.Parallel()
	srv := providertest.NewFlaky(t, 1, providertest.Status(429, "Retry-After", "20"), okChat(t))
	m, sleeper := retryModel(srv, ollama.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := m.Chat(ctx, retryReq)
	pe := providertest.CheckAttempts(t, err, 429, 1)
	assert.ErrorIs(t, err, chat.ErrRateLimited)
	assert.Equal(t, 20*time.Second, pe.RetryAfter)
	assert.Empty(t, sleeper.Waits())
	assert.Equal(t, 1, srv.Requests())
}

// TestNoRetryAfterStreamBegan: a stream cut after its first delta is not
// sent again: the caller has the delta, then the error, after one request.
func TestNoRetryAfterStreamBegan(t *testing.T) {
	t.Parallel()
	first := textLine("Hel")
	srv := providertest.NewFlaky(t, 1, providertest.CutAfter("application/x-ndjson", first), okStream(t))
	m, sleeper := retryModel(srv, ollama.Config{})
	resp, deltas, err := send(context.Background(), m, true)
	assert.Nil(t, resp)
	assert.Equal(t, []string{"Hel"}, deltas)
	providertest.CheckAttempts(t, err, 200, 1)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, 1, srv.Requests())
	assert.Empty(t, sleeper.Waits())

	// The same when earlier requests failed: the count includes them.
	srv = providertest.NewFlaky(t, 1, providertest.Status(502), providertest.CutAfter("application/x-ndjson", first))
	m, sleeper = retryModel(srv, ollama.Config{})
	_, deltas, err = send(context.Background(), m, true)
	assert.Equal(t, []string{"Hel"}, deltas)
	providertest.CheckAttempts(t, err, 200, 2)
	assert.Equal(t, 2, srv.Requests())
	assert.Len(t, sleeper.Waits(), 1)
}

// TestCancelDuringRetryWait: cancelling the context during the wait ends
// the call at once; the error wraps context.Canceled and the last
// failure's sentinel, after one request.
func TestCancelDuringRetryWait(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewFlaky(t, 1, providertest.Status(503, "Retry-After", "7"), okFor(t, mode.stream))
			m := newModel(srv.Server, ollama.Config{})
			entered := make(chan time.Duration, 1)
			ollama.SetRetryHooks(m, providertest.BlockingSleep(entered), nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, _, err := send(ctx, m, mode.stream)
				done <- err
			}()
			assert.Equal(t, 7*time.Second, <-entered)
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second): // a hang, not a timing: the call returns as soon as it runs
				t.Fatal("the call did not return when its context was cancelled")
			}
			pe := providertest.CheckAttempts(t, err, 503, 1)
			assert.ErrorIs(t, err, context.Canceled)
			assert.ErrorIs(t, err, chat.ErrServer)
			assert.Equal(t, "failure 503", pe.Message)
			assert.EqualError(t, err, `ollama: HTTP 503: model "tiny-toolcaller": context canceled while waiting to retry after server error: failure 503 (retry after 7s)`)
			assert.Equal(t, 1, srv.Requests())
		})
	}
}

// TestAttemptsInHooks: the loop's AfterModel hook sees the number of
// requests in ModelCall.Response and in the ModelCall.Err.
func TestAttemptsInHooks(t *testing.T) {
	t.Parallel()
	// The first model request fails once; the second, after the tool ran,
	// fails until the retries run out.
	calls := toolCallLine("call_1", "get_weather", `{"city":"Paris"}`, true)
	var n atomic.Int32
	srv := providertest.NewFlaky(t, 0, nil, func(w http.ResponseWriter, r *http.Request) {
		switch n := n.Add(1); {
		case n == 1 || n >= 3:
			providertest.Status(500)(w, r)
		default:
			providertest.Reply("application/json", calls)(w, r)
		}
	})
	m, _ := retryModel(srv, ollama.Config{})
	weather, err := toolcall.NewTool(weatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
		return "sunny", nil
	})
	require.NoError(t, err)
	var log providertest.HookLog
	_, err = toolcall.NewClient(m, toolcall.WithHooks(log.Hooks())).Prompt("Weather in Paris?").Tools(weather).Call(context.Background())
	providertest.CheckAttempts(t, err, 500, 3)
	mcs := log.ModelCalls()
	require.Len(t, mcs, 2)
	require.NotNil(t, mcs[0].Response)
	assert.Equal(t, 2, mcs[0].Response.Attempts, "the first reply came with the second request")
	var pe *chat.ProviderError
	require.ErrorAs(t, mcs[1].Err, &pe)
	assert.Equal(t, 3, pe.Attempts, "the hook saw the attempts of the failure")
	assert.Equal(t, 5, srv.Requests())
	assert.Contains(t, log.String(), `"attempts":2`)
	assert.Contains(t, log.String(), "Attempts:3")
}
