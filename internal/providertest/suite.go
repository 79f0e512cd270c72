package providertest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/retry"
)

// A Provider is what the suites every provider package runs need of it.
type Provider struct {
	// New returns a model of the server at root, configured with s.
	New func(root string, s Settings) chat.StreamingModel
	// OKChat and OKStream answer "Hello! How can I help you?".
	OKChat, OKStream http.HandlerFunc
	// StreamType is the Content-Type of a stream.
	StreamType string
	// TextReply returns a whole reply, not streamed, whose text is text
	// and whose finish reason is stop.
	TextReply func(text string) string
	// StreamText returns one chunk of a stream whose delta is text; a
	// stream's first chunk may be such a chunk. StreamEnd ends a stream
	// with finish reason stop.
	StreamText func(text string) string
	StreamEnd  string
	// ToolCall is a reply, not streamed, with one call of Weather with
	// the arguments {"city":"Paris"}.
	ToolCall string
	Weather  chat.ToolDefinition
	// ModelError is how an error of a request to model begins, e.g.
	// `openai: HTTP 503: model "tiny"`.
	ModelError string
	// RetryAfterMs reports that the provider reads OpenAI's
	// retry-after-ms header.
	RetryAfterMs bool
	// Unoffered replays the reply Ollama gave when its model called a tool
	// that was not offered: no text, no calls, finish reason stop, 21
	// completion tokens.
	Unoffered http.HandlerFunc
}

// Settings are the parts of a provider's Config the suite sets. Zero
// fields mean the provider's defaults.
type Settings struct {
	// MaxRetries and MaxResponseBytes are the Config fields of those
	// names.
	MaxRetries       int
	MaxResponseBytes int
	// HTTPClient is Config.HTTPClient: nil means the provider's own.
	HTTPClient *http.Client
	// Sleep and Jitter, when Sleep is set, replace the waits between
	// attempts and their jitter (nil Jitter: random).
	Sleep  func(ctx context.Context, d time.Duration) error
	Jitter func() float64
}

// The retry tests run Chat and Stream against a Flaky server; the model's
// waits go to a Sleeper, so no test sleeps, and there is no jitter, so each
// wait is known.

var retryReq = &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

var modes = []struct {
	name   string
	stream bool
}{{"chat", false}, {"stream", true}}

// model returns a model of srv whose waits go to the returned Sleeper.
func (p Provider) model(srv *Flaky, maxRetries int) (chat.StreamingModel, *Sleeper) {
	s := &Sleeper{}
	return p.New(srv.URL, Settings{MaxRetries: maxRetries, HTTPClient: srv.Client(), Sleep: s.Sleep, Jitter: NoJitter}), s
}

func (p Provider) ok(stream bool) http.HandlerFunc {
	if stream {
		return p.OKStream
	}
	return p.OKChat
}

// send runs Chat, or Stream when stream is set, and returns the reply, the
// text deltas of a Stream, and the error.
func send(ctx context.Context, m chat.StreamingModel, stream bool) (*chat.Response, []string, error) {
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

// Run runs the tests every provider passes: its retries, its default
// client's connection reuse, its empty answers, replies cut short, 404
// pages, the request id in errors and the response limit. The limit's test measures the process's
// allocations, so the test that calls Run must not be parallel.
func Run(t *testing.T, p Provider) {
	t.Run("Retries", p.retries)
	t.Run("DefaultClientReusesConnections", p.defaultClientReusesConnections)
	t.Run("EmptyAnswer", p.emptyAnswer)
	t.Run("CutBody", p.cutBody)
	t.Run("NotFoundPage", p.notFoundPage)
	t.Run("RequestID", p.requestID)
	t.Run("ResponseLimit", p.responseLimit)
}

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

// defaultClientReusesConnections: 4,000 calls, 32 at a time, through
// the default HTTP client (Config.HTTPClient nil) open at most 48 TCP
// connections, about one per call in flight. Go's default transport keeps
// 2 idle connections per host, and with it such a run opened from 95 to
// 1,599 connections.
func (p Provider) defaultClientReusesConnections(t *testing.T) {
	const calls, concurrency, maxConns = 4000, 32, 48
	srv, opened := CountConns(t, p.OKChat)
	t.Cleanup(httpline.DefaultClient().CloseIdleConnections) // before srv.Close
	m := p.New(srv.URL, Settings{})

	Hammer(t, calls, concurrency, func() error {
		resp, err := m.Chat(context.Background(), retryReq)
		if err == nil && resp.Message.Content != "Hello! How can I help you?" {
			t.Errorf("reply %q", resp.Message.Content)
		}
		return err
	})

	require.Positive(t, opened())
	assert.LessOrEqual(t, opened(), maxConns, "TCP connections opened for %d calls, %d at a time", calls, concurrency)
	t.Logf("%d calls, %d at a time: %d connections", calls, concurrency, opened())
}

// emptyAnswer: a reply with no text and no calls (p.Unoffered) gives
// the caller ErrEmptyAnswer, not an empty answer.
func (p Provider) emptyAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(p.Unoffered)
	t.Cleanup(srv.Close)
	weather := toolcall.MustFunc("get_weather", "The weather", func(context.Context, struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny", nil
	})
	m := p.New(srv.URL, Settings{HTTPClient: srv.Client()})
	resp, err := toolcall.NewClient(m).Prompt("What is the weather in Paris?").Tools(weather).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrEmptyAnswer)
	require.EqualError(t, err, `toolcall: empty answer: the model's reply has no text and no tool calls (finish reason "stop")`)
	require.NotNil(t, resp)
	assert.Empty(t, resp.Executions)
	assert.Equal(t, chat.RoleAssistant, resp.Message.Role)
	assert.Equal(t, 21, resp.Usage.CompletionTokens, "the tokens were spent")
}

// cutBody: a reply whose connection drops in the middle of the body, and a
// stream cut after its first chunk, are malformed responses: the error
// wraps chat.ErrBadResponse, and the read error as its cause.
func (p Provider) cutBody(t *testing.T) {
	t.Parallel()
	reply := p.TextReply("Hello! How can I help you?")
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			cut := CutAfter("application/json", reply[:len(reply)/2])
			if mode.stream {
				cut = CutAfter(p.StreamType, p.StreamText("Hel"))
			}
			srv := NewFlaky(t, 0, nil, cut)
			m, _ := p.model(srv, noRetries)
			resp, _, err := send(context.Background(), m, mode.stream)
			assert.Nil(t, resp)
			CheckAttempts(t, err, 200, 1)
			assert.ErrorIs(t, err, chat.ErrBadResponse)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.Contains(t, err.Error(), "cut off")
		})
	}
}

// noRetries turns a model's retries off in Settings.MaxRetries.
const noRetries = -1

// notFoundPage: a 404 whose body is a web server's page, not a message
// about the model, means the URL is wrong: it wraps chat.ErrBadRequest,
// not chat.ErrModelNotFound, and never quotes the page.
func (p Provider) notFoundPage(t *testing.T) {
	t.Parallel()
	for _, page := range []struct{ name, ctype, body string }{
		{"plain", "text/plain; charset=utf-8", "404 page not found\n"},
		{"html", "text/html", "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>"},
		{"json", "application/json", `{"detail":"Not Found"}`},
	} {
		for _, mode := range modes {
			t.Run(page.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := NewFlaky(t, 0, nil, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", page.ctype)
					w.WriteHeader(http.StatusNotFound)
					_, _ = io.WriteString(w, page.body)
				})
				m, _ := p.model(srv, 0)
				_, _, err := send(context.Background(), m, mode.stream)
				CheckAttempts(t, err, 404, 1)
				assert.ErrorIs(t, err, chat.ErrBadRequest)
				assert.NotErrorIs(t, err, chat.ErrModelNotFound)
				assert.NotContains(t, err.Error(), "Not Found<")
				assert.NotContains(t, err.Error(), "page not found")
			})
		}
	}
}

// requestID: the id a server gives a request, in a request-id or an
// x-request-id header, is in the error of a failed status and in the error
// of a malformed reply.
func (p Provider) requestID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, header string
		status       int
		wantErr      error
	}{
		{name: "status", header: "X-Request-Id", status: 400, wantErr: chat.ErrBadRequest},
		{name: "malformed", header: "Request-Id", status: 200, wantErr: chat.ErrBadResponse},
	} {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				srv := NewFlaky(t, 0, nil, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set(tc.header, "req_7")
					if tc.status != 200 {
						Status(tc.status)(w, r)
						return
					}
					Reply(p.StreamType, "this is not JSON\n")(w, r)
				})
				m, _ := p.model(srv, 0)
				_, _, err := send(context.Background(), m, mode.stream)
				pe := CheckAttempts(t, err, tc.status, 1)
				assert.ErrorIs(t, err, tc.wantErr)
				assert.Equal(t, "req_7", pe.RequestID)
			})
		}
	}
}

// responseLimit: a reply larger than Config.MaxResponseBytes, 32 MiB by
// default, ends the call with an error wrapping chat.ErrBadResponse that
// names the limit, after the client allocated about as much as the limit,
// not as much as the 64 MiB body (with no limit, reading that body took
// several times its size). A negative limit removes it.
func (p Provider) responseLimit(t *testing.T) {
	const (
		body  = 64 << 20
		piece = 64 << 10 // the text of one stream chunk
		mib   = 1 << 20
	)
	text := strings.Repeat("x", body)
	// The text needs no escaping: it goes in by replacement, which is
	// faster than encoding it (much faster with the race detector).
	textReply := func(n int) string { return strings.Replace(p.TextReply("@TEXT@"), "@TEXT@", text[:n], 1) }
	streamText := func(n int) string { return strings.Replace(p.StreamText("@TEXT@"), "@TEXT@", text[:n], 1) }
	reply := textReply(body)
	chunk := streamText(piece)
	// A call may allocate perLimit times the limit, and 1 MiB for the
	// connection, buffers and error: a body's buffer doubles as it grows,
	// which takes twice the limit in all; so does a stream's text, which
	// takes once more as the pieces decoded.
	for _, tc := range []struct {
		name     string
		limit    int // Settings.MaxResponseBytes
		stream   bool
		declared bool // the server sends a Content-Length
		want     string
		perLimit float64
	}{
		{name: "chat", want: "32 MiB limit", perLimit: 2.2},
		{name: "chat with Content-Length", declared: true, want: "32 MiB limit", perLimit: 0},
		{name: "stream", stream: true, want: "32 MiB limit", perLimit: 3.2},
		{name: "chat, 1 MiB", limit: mib, want: "1 MiB limit", perLimit: 2.2},
		{name: "stream, 1 MiB", limit: mib, stream: true, want: "1 MiB limit", perLimit: 3.2},
		{name: "stream, 100000 bytes", limit: 100000, stream: true, want: "100000-byte limit", perLimit: 3.2},
	} {
		limit := cmp.Or(tc.limit, 32*mib)
		maxAlloc := uint64(tc.perLimit*float64(limit)) + mib
		t.Run(tc.name, func(t *testing.T) {
			srv := NewFlaky(t, 0, nil, func(w http.ResponseWriter, r *http.Request) {
				if tc.stream {
					w.Header().Set("Content-Type", p.StreamType)
					for range body / piece {
						if _, err := io.WriteString(w, chunk); err != nil {
							return
						}
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				if tc.declared {
					w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
				}
				for i := 0; i < len(reply); i += piece {
					if _, err := io.WriteString(w, reply[i:min(i+piece, len(reply))]); err != nil {
						return
					}
				}
			})
			m := p.New(srv.URL, Settings{MaxRetries: noRetries, MaxResponseBytes: tc.limit, HTTPClient: srv.Client()})
			// The least of two calls, in case something else allocated
			// during one.
			var least uint64
			for i := range 2 {
				var err error
				alloc := allocated(func() { _, _, err = send(context.Background(), m, tc.stream) })
				if i == 0 || alloc < least {
					least = alloc
				}
				CheckAttempts(t, err, 200, 1)
				require.ErrorIs(t, err, chat.ErrBadResponse)
				assert.Contains(t, err.Error(), tc.want)
				assert.Contains(t, err.Error(), "MaxResponseBytes")
			}
			t.Logf("%d-byte body, limit %d: %.1f MiB allocated", len(reply), limit, float64(least)/mib)
			assert.LessOrEqual(t, least, maxAlloc, "bytes allocated by a call")
		})
	}

	// Within the limit, or without one, the whole reply arrives.
	for _, tc := range []struct {
		name  string
		limit int
		size  int // of the text
	}{
		{name: "just within", limit: mib, size: mib - 4096},
		{name: "no limit", limit: toolcall.NoLimit, size: 33 * mib},
	} {
		for _, mode := range modes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				srv := NewFlaky(t, 0, nil, func(w http.ResponseWriter, r *http.Request) {
					if !mode.stream {
						w.Header().Set("Content-Type", "application/json")
						_, _ = io.WriteString(w, textReply(tc.size))
						return
					}
					w.Header().Set("Content-Type", p.StreamType)
					for i := 0; i < tc.size; i += piece {
						_, _ = io.WriteString(w, streamText(min(piece, tc.size-i)))
					}
					_, _ = io.WriteString(w, p.StreamEnd)
				})
				m := p.New(srv.URL, Settings{MaxRetries: noRetries, MaxResponseBytes: tc.limit, HTTPClient: srv.Client()})
				resp, _, err := send(context.Background(), m, mode.stream)
				require.NoError(t, err)
				assert.Len(t, resp.Message.Content, tc.size)
			})
		}
	}
}

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
