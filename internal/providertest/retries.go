package providertest

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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/retry"
)

// retries runs the tests of a provider's retries.
func (p Provider) retries(t *testing.T) {
	t.Run("Statuses", p.retryStatuses)
	t.Run("ResetConnection", p.retryResetConnection)
	t.Run("RefusedConnection", p.retryRefusedConnection)
	t.Run("NoRetryOtherClientErrors", p.noRetryOtherClientErrors)
	t.Run("ShouldRetryHeader", p.shouldRetryHeader)
	t.Run("Configured", p.retriesConfigured)
	t.Run("RetryAfterHonoured", p.retryAfterHonoured)
	t.Run("RetryAfterBeyondDeadline", p.retryAfterBeyondDeadline)
	t.Run("NoRetryAfterStreamBegan", p.noRetryAfterStreamBegan)
	t.Run("CancelDuringWait", p.cancelDuringRetryWait)
	t.Run("AttemptsInHooks", p.attemptsInHooks)
}

// retryStatuses: each retried status fails twice, then the third request
// succeeds after waits of 0.5 s and 1 s; failing three times, the call
// ends with the third failure.
func (p Provider) retryStatuses(t *testing.T) {
	t.Parallel()
	for _, status := range RetriedStatuses {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%d/%s", status, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := NewFlaky(t, 2, Status(status), p.ok(mode.stream))
				m, sleeper := p.model(srv, 0)
				resp, _, err := send(context.Background(), m, mode.stream)
				require.NoError(t, err)
				assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
				assert.Equal(t, 3, resp.Attempts)
				assert.Equal(t, 3, srv.Requests())
				assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, sleeper.Waits())

				srv = NewFlaky(t, 3, Status(status), p.ok(mode.stream))
				m, sleeper = p.model(srv, 0)
				resp, _, err = send(context.Background(), m, mode.stream)
				assert.Nil(t, resp)
				pe := CheckAttempts(t, err, status, 3)
				assert.Equal(t, fmt.Sprintf("failure %d", status), pe.Message)
				assert.Equal(t, 3, srv.Requests())
				assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, sleeper.Waits())
			})
		}
	}
}

// retryResetConnection: a server that closes the connection before a byte
// of response is retried like a 5xx.
func (p Provider) retryResetConnection(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := NewFlaky(t, 2, Reset, p.ok(mode.stream))
			m, sleeper := p.model(srv, 0)
			resp, _, err := send(context.Background(), m, mode.stream)
			require.NoError(t, err)
			assert.Equal(t, 3, resp.Attempts)
			assert.Equal(t, 3, srv.Requests())
			assert.Len(t, sleeper.Waits(), 2)

			srv = NewFlaky(t, 3, Reset, p.ok(mode.stream))
			m, _ = p.model(srv, 0)
			_, _, err = send(context.Background(), m, mode.stream)
			CheckAttempts(t, err, 0, 3)
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, 3, srv.Requests())
		})
	}
}

// retryRefusedConnection: nothing listens; every attempt is refused.
func (p Provider) retryRefusedConnection(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	sleeper := &Sleeper{}
	m := p.New("http://"+addr, Settings{MaxRetries: 1, HTTPClient: &http.Client{Transport: tr}, Sleep: sleeper.Sleep, Jitter: NoJitter})
	_, err = m.Chat(context.Background(), retryReq)
	CheckAttempts(t, err, 0, 2)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.Equal(t, []time.Duration{500 * time.Millisecond}, sleeper.Waits())
}

// noRetryOtherClientErrors: other 4xx will fail again: one request.
func (p Provider) noRetryOtherClientErrors(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 422} {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%d/%s", status, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := NewFlaky(t, 1, Status(status), p.ok(mode.stream))
				m, sleeper := p.model(srv, 0)
				_, _, err := send(context.Background(), m, mode.stream)
				CheckAttempts(t, err, status, 1)
				assert.Equal(t, 1, srv.Requests())
				assert.Empty(t, sleeper.Waits())
			})
		}
	}
}

// shouldRetryHeader: a server's x-should-retry overrules the status, as
// in OpenAI's and Anthropic's SDKs: "false" stops the retry of a 503,
// "true" retries a 400; within MaxRetries either way.
func (p Provider) shouldRetryHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status, requests int
		value            string
	}{{503, 1, "false"}, {400, 3, "true"}, {503, 3, "maybe"}, {400, 1, "TRUE"}} {
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%d/%s/%s", tc.status, tc.value, mode.name), func(t *testing.T) {
				t.Parallel()
				srv := NewFlaky(t, 5, Status(tc.status, "X-Should-Retry", tc.value), p.ok(mode.stream))
				m, sleeper := p.model(srv, 0)
				_, _, err := send(context.Background(), m, mode.stream)
				pe := CheckAttempts(t, err, tc.status, tc.requests)
				assert.Equal(t, fmt.Sprintf("failure %d", tc.status), pe.Message)
				assert.Equal(t, tc.requests, srv.Requests())
				assert.Len(t, sleeper.Waits(), tc.requests-1)
			})
		}
	}
}

// retriesConfigured: NoRetries (or any negative value) sends once;
// MaxRetries 4 allows five requests.
func (p Provider) retriesConfigured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		maxRetries int
		fails      int
		attempts   int // the requests made
		ok         bool
		waits      []time.Duration
	}{
		{name: "off", maxRetries: -1, fails: 1, attempts: 1},
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
				srv := NewFlaky(t, tc.fails, Status(503), p.ok(mode.stream))
				m, sleeper := p.model(srv, tc.maxRetries)
				resp, _, err := send(context.Background(), m, mode.stream)
				if tc.ok {
					require.NoError(t, err)
					assert.Equal(t, tc.attempts, resp.Attempts)
				} else {
					CheckAttempts(t, err, 503, tc.attempts)
				}
				assert.Equal(t, tc.attempts, srv.Requests())
				assert.Equal(t, tc.waits, sleeper.Waits())
			})
		}
	}
}

// retryAfterHonoured: the server's Retry-After, in seconds or as a date
// (and OpenAI's retry-after-ms where the provider reads it), is the wait,
// up to retry.MaxRetryAfter.
func (p Provider) retryAfterHonoured(t *testing.T) {
	t.Parallel()
	type retryAfter struct {
		name   string
		header []string
		wait   time.Duration
	}
	cases := []retryAfter{
		{name: "seconds", header: []string{"Retry-After", "3"}, wait: 3 * time.Second},
		{name: "fraction", header: []string{"Retry-After", "0.25"}, wait: 250 * time.Millisecond},
		{name: "capped", header: []string{"Retry-After", "3600"}, wait: retry.MaxRetryAfter},
		{name: "unreadable: backoff", header: []string{"Retry-After", "soon"}, wait: 500 * time.Millisecond},
	}
	if p.RetryAfterMs {
		cases = append(cases,
			retryAfter{name: "milliseconds win", header: []string{"Retry-After-Ms", "1200", "Retry-After", "2"}, wait: 1200 * time.Millisecond},
			retryAfter{name: "capped milliseconds", header: []string{"Retry-After-Ms", "600000"}, wait: retry.MaxRetryAfter})
	}
	for _, tc := range cases {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := NewFlaky(t, 1, Status(429, tc.header...), p.ok(mode.stream))
				m, sleeper := p.model(srv, 0)
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
		srv := NewFlaky(t, 1, Status(503, "Retry-After", date), p.OKChat)
		m, sleeper := p.model(srv, 0)
		resp, err := m.Chat(context.Background(), retryReq)
		require.NoError(t, err)
		assert.Equal(t, 2, resp.Attempts)
		assert.Equal(t, []time.Duration{retry.MaxRetryAfter}, sleeper.Waits())
	})
}

// retryAfterBeyondDeadline: a wait that would outlast the context's
// deadline is not begun; the call ends with the server's error at once.
func (p Provider) retryAfterBeyondDeadline(t *testing.T) {
	t.Parallel()
	srv := NewFlaky(t, 1, Status(429, "Retry-After", "20"), p.OKChat)
	m, sleeper := p.model(srv, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := m.Chat(ctx, retryReq)
	pe := CheckAttempts(t, err, 429, 1)
	assert.ErrorIs(t, err, chat.ErrRateLimited)
	assert.Equal(t, 20*time.Second, pe.RetryAfter)
	assert.Empty(t, sleeper.Waits())
	assert.Equal(t, 1, srv.Requests())
}

// noRetryAfterStreamBegan: a stream cut after its first delta is not sent
// again: the caller has the delta, then the error, after one request.
func (p Provider) noRetryAfterStreamBegan(t *testing.T) {
	t.Parallel()
	srv := NewFlaky(t, 1, CutAfter(p.StreamType, p.StreamText("Hel")), p.OKStream)
	m, sleeper := p.model(srv, 0)
	resp, deltas, err := send(context.Background(), m, true)
	assert.Nil(t, resp)
	assert.Equal(t, []string{"Hel"}, deltas)
	CheckAttempts(t, err, 200, 1)
	assert.ErrorIs(t, err, chat.ErrBadResponse)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, 1, srv.Requests())
	assert.Empty(t, sleeper.Waits())

	// The same when earlier requests failed: the count includes them.
	srv = NewFlaky(t, 1, Status(502), CutAfter(p.StreamType, p.StreamText("Hel")))
	m, sleeper = p.model(srv, 0)
	_, deltas, err = send(context.Background(), m, true)
	assert.Equal(t, []string{"Hel"}, deltas)
	CheckAttempts(t, err, 200, 2)
	assert.Equal(t, 2, srv.Requests())
	assert.Len(t, sleeper.Waits(), 1)
}

// cancelDuringRetryWait: cancelling the context during the wait ends the
// call at once; the error wraps context.Canceled and the last failure's
// sentinel, after one request.
func (p Provider) cancelDuringRetryWait(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			srv := NewFlaky(t, 1, Status(503, "Retry-After", "7"), p.ok(mode.stream))
			entered := make(chan time.Duration, 1)
			m := p.New(srv.URL, Settings{HTTPClient: srv.Client(), Sleep: BlockingSleep(entered)})
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
			pe := CheckAttempts(t, err, 503, 1)
			assert.ErrorIs(t, err, context.Canceled)
			assert.ErrorIs(t, err, chat.ErrServer)
			assert.Equal(t, "failure 503", pe.Message)
			assert.EqualError(t, err, p.ModelError+": context canceled while waiting to retry after server error: failure 503 (retry after 7s)")
			assert.Equal(t, 1, srv.Requests())
		})
	}
}

// attemptsInHooks: the loop's AfterModel hook sees the number of requests
// in ModelCall.Response and in the ModelCall.Err.
func (p Provider) attemptsInHooks(t *testing.T) {
	t.Parallel()
	// The first model request fails once; the second, after the tool ran,
	// fails until the retries run out.
	var n atomic.Int32
	srv := NewFlaky(t, 0, nil, func(w http.ResponseWriter, r *http.Request) {
		switch n := n.Add(1); {
		case n == 1 || n >= 3:
			Status(500)(w, r)
		default:
			Reply("application/json", p.ToolCall)(w, r)
		}
	})
	m, _ := p.model(srv, 0)
	weather, err := toolcall.NewTool(p.Weather, func(ctx context.Context, args json.RawMessage) (string, error) {
		return "sunny", nil
	})
	require.NoError(t, err)
	var log HookLog
	_, err = toolcall.NewClient(m, toolcall.WithHooks(log.Hooks())).Prompt("Weather in Paris?").Tools(weather).Call(context.Background())
	CheckAttempts(t, err, 500, 3)
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
