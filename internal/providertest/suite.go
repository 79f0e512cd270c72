package providertest

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/httpline"
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
