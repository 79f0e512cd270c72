// Package providertest holds test helpers the provider packages share.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// CheckGolden compares a request body with testdata/golden/NAME.json, or
// rewrites the file when update is set.
func CheckGolden(t *testing.T, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".json")
	if update {
		var buf bytes.Buffer
		require.NoError(t, json.Indent(&buf, bytes.TrimSpace(got), "", "  "))
		buf.WriteByte('\n')
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update in the package")
	assert.JSONEq(t, string(want), string(got), "request body differs from %s", path)
}

// A HookLog prints everything the loop's hooks receive, with %+v and, as
// %+v shows json.RawMessage values as bytes, as JSON too; and it keeps the
// model calls.
type HookLog struct {
	mu     sync.Mutex
	buf    strings.Builder
	models []toolcall.ModelCall
}

func (h *HookLog) print(what string, vs ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.WriteString(what)
	for _, v := range vs {
		fmt.Fprintf(&h.buf, " %+v", v)
		if err, ok := v.(error); ok {
			fmt.Fprintf(&h.buf, " %#v", err)
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			h.buf.WriteString(" ")
			h.buf.Write(b)
		}
	}
	h.buf.WriteString("\n")
}

// Hooks returns hooks that log into h.
func (h *HookLog) Hooks() toolcall.Hooks {
	return toolcall.Hooks{
		BeforeModel: func(ctx context.Context, req *chat.Request) context.Context {
			h.print("BeforeModel", req)
			return ctx
		},
		AfterModel: func(ctx context.Context, mc toolcall.ModelCall) {
			// Nested pointers print as addresses: the parts are printed
			// on their own too.
			h.print("AfterModel", mc, mc.Request, mc.Response, mc.Err)
			h.mu.Lock()
			h.models = append(h.models, mc)
			h.mu.Unlock()
		},
		BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			h.print("BeforeTool", call)
			return ctx
		},
		AfterTool: func(ctx context.Context, e toolcall.ToolExecution) { h.print("AfterTool", e, e.Err) },
	}
}

// String returns all that the hooks received, as text.
func (h *HookLog) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// ModelCalls returns the model calls AfterModel saw.
func (h *HookLog) ModelCalls() []toolcall.ModelCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]toolcall.ModelCall(nil), h.models...)
}

// CheckFailedSecondRound checks the outcome of a loop whose first round
// called get_weather for Paris and Lyon and whose second model request
// failed with err: a *chat.ProviderError naming provider, model,
// status and Retry-After; nothing of the first round lost; AfterModel saw
// the error.
func CheckFailedSecondRound(t *testing.T, resp *toolcall.Response, err error, log *HookLog, provider, model string, status int, retryAfter time.Duration) {
	t.Helper()
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, provider, pe.Provider)
	assert.Equal(t, status, pe.StatusCode)
	assert.Equal(t, model, pe.Model)
	assert.Equal(t, retryAfter, pe.RetryAfter)
	assert.Len(t, resp.Executions, 2)
	assert.Len(t, resp.Intermediate, 1, "the model responses received")
	require.Len(t, resp.History, 4, "the question, the calls and their two results")
	assert.Equal(t, chat.RoleUser, resp.History[0].Role)
	assert.Len(t, resp.History[1].ToolCalls, 2)
	assert.Equal(t, "sunny in Paris", resp.History[2].Content)
	assert.Equal(t, "sunny in Lyon", resp.History[3].Content)
	mcs := log.ModelCalls()
	require.Len(t, mcs, 2)
	assert.Equal(t, 2, mcs[1].Round)
	assert.Equal(t, err, mcs[1].Err, "AfterModel saw the error")
	assert.Nil(t, mcs[1].Response)
}

// CheckReportedBadCall checks a loop whose second reply made a bad call
// "call_rm" after the first round's two calls: the call failed with
// wantMsg for the model (wrapping wantCause, or an *ArgumentError when
// wantCause is nil) and the history carries the report.
func CheckReportedBadCall(t *testing.T, resp *toolcall.Response, wantMsg string, wantCause error) {
	t.Helper()
	require.Len(t, resp.Executions, 3)
	bad := resp.Executions[2]
	assert.Equal(t, "call_rm", bad.Call.ID)
	assert.Equal(t, 2, bad.Round)
	assert.True(t, bad.IsError)
	assert.Equal(t, wantMsg, bad.Result)
	var te *toolcall.ToolError
	require.ErrorAs(t, bad.Err, &te)
	assert.Equal(t, "call_rm", te.CallID)
	if wantCause != nil {
		assert.ErrorIs(t, bad.Err, wantCause)
	} else {
		var ae *toolcall.ArgumentError
		assert.ErrorAs(t, bad.Err, &ae)
	}
	require.Len(t, resp.History, 7, "question, calls, 2 results, bad call, its result, answer")
	assert.Equal(t, wantMsg, resp.History[5].Content)
	assert.True(t, resp.History[5].IsError)
}

// EmailTool is the tool called in the recorded replies cut short.
var EmailTool = chat.ToolDefinition{
	Name:        "send_email",
	Description: "Send an email",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"}},"required":["to"]}`),
}

// CutAsk is the question of the recorded replies cut short.
var CutAsk = chat.UserMessage("Email Ana the invoice.")

// CutReply runs a Client over model, whose server (got records its
// requests) answers CutAsk with a call of EmailTool cut short, through
// Call or, when stream is set, Stream, and checks what the Client must do
// with it: no call runs and no result is streamed (a stream announces
// want's calls), the call ends with wantErr wrapping ErrReplyCut, the cut
// reply is the one Intermediate response, the history, without it, is
// CutAsk alone and valid to resend, and no further request is sent.
func CutReply(t *testing.T, model chat.Model, opts chat.Options, got *Capture, stream bool, want *chat.Response, wantErr string) {
	t.Helper()
	var runs atomic.Int32
	send, err := toolcall.NewTool(EmailTool, func(ctx context.Context, args json.RawMessage) (string, error) {
		runs.Add(1)
		return "sent", nil
	})
	require.NoError(t, err)
	prompt := toolcall.NewClient(model).Prompt(CutAsk.Content).Tools(send).Options(opts)
	var resp *toolcall.Response
	var streamed []string
	if stream {
		for ev, e := range prompt.Stream(context.Background()) {
			if ev.Kind == toolcall.EventToolCall {
				streamed = append(streamed, ev.ToolCall.ID)
			}
			assert.NotEqual(t, toolcall.EventToolResult, ev.Kind)
			if e != nil {
				resp, err = ev.Response, e
			}
		}
		var ids []string
		for _, c := range want.Message.ToolCalls {
			ids = append(ids, c.ID)
		}
		assert.Equal(t, ids, streamed)
	} else {
		resp, err = prompt.Call(context.Background())
	}
	require.ErrorIs(t, err, toolcall.ErrReplyCut)
	require.EqualError(t, err, wantErr)
	assert.Zero(t, runs.Load(), "the tool must not run")
	require.NotNil(t, resp)
	assert.Equal(t, []*chat.Response{want}, resp.Intermediate)
	assert.Empty(t, resp.Executions)
	assert.Equal(t, []chat.Message{CutAsk}, resp.History)
	require.NoError(t, toolcalltest.CheckHistory(resp.History))
	assert.Equal(t, 1, got.Count(), "no request after the cut reply")
}

// A Flaky is a test server for the retries: it answers the first Fails
// requests with Fail and every later one with OK, and counts the requests
// (the handler calls).
type Flaky struct {
	*httptest.Server
	requests atomic.Int32
}

// NewFlaky starts a Flaky server that fails the first fails requests with
// fail and answers the others with ok. The server closes with the test.
func NewFlaky(t *testing.T, fails int, fail, ok http.HandlerFunc) *Flaky {
	t.Helper()
	f := &Flaky{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if int(f.requests.Add(1)) <= fails {
			fail(w, r)
			return
		}
		ok(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// Requests is how many requests the server received.
func (f *Flaky) Requests() int { return int(f.requests.Load()) }

// Status answers with an HTTP status, the headers given in pairs (name,
// value, ...) and a JSON error body.
func Status(status int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"failure %d"}}`, status)
	}
}

// Reset closes the connection without writing a byte of a response, as a
// server that crashed or a proxy that dropped the connection.
func Reset(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// Reply answers 200 with body, of content type ctype.
func Reply(ctype, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = io.WriteString(w, body)
	}
}

// CutAfter answers 200 with the start of a stream, flushes it, and drops
// the connection: the client has the first part, then an error.
func CutAfter(ctype, start string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = io.WriteString(w, start)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// A Sleeper stands for the wait between attempts: it records each wait
// and returns at once, so tests never sleep.
type Sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns nil, or ctx.Err() when ctx is done.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns the waits asked for, in order.
func (s *Sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waits)
}

// BlockingSleep returns a wait that signals entered, then blocks until ctx
// is done and returns ctx.Err(): the test cancels the context during the
// wait.
func BlockingSleep(entered chan<- time.Duration) func(ctx context.Context, d time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		entered <- d
		<-ctx.Done()
		return ctx.Err()
	}
}

// NoJitter takes nothing off an exponential wait, so that waits are exact.
func NoJitter() float64 { return 0 }

// RetriedStatuses are the statuses the providers retry.
var RetriedStatuses = []int{408, 409, 429, 500, 502, 503, 504}

// CheckAttempts checks that err is a *chat.ProviderError with the status
// and the number of attempts given, and that its message counts them when
// there was more than one.
func CheckAttempts(t *testing.T, err error, status, attempts int) *chat.ProviderError {
	t.Helper()
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, status, pe.StatusCode, "status")
	assert.Equal(t, attempts, pe.Attempts, "attempts")
	if attempts > 1 {
		assert.Contains(t, err.Error(), fmt.Sprintf("%d attempts)", attempts))
	} else {
		assert.NotContains(t, err.Error(), "attempts")
	}
	return pe
}

// CountConns starts a server that reads each request and answers with
// handler, and counts the TCP connections it accepts; the server closes
// with the test.
func CountConns(t *testing.T, handler http.HandlerFunc) (*httptest.Server, func() int) {
	t.Helper()
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		handler(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, func() int { return int(opened.Load()) }
}

// Hammer makes calls calls of call, concurrency at a time, and fails the
// test with the first error.
func Hammer(t *testing.T, calls, concurrency int, call func() error) {
	t.Helper()
	var (
		next     atomic.Int32
		failed   atomic.Bool
		once     sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	for range concurrency {
		wg.Go(func() {
			for int(next.Add(1)) <= calls && !failed.Load() {
				if err := call(); err != nil {
					once.Do(func() { firstErr = err })
					failed.Store(true)
				}
				// A program does some work between calls; the
				// transport puts the connection back meanwhile.
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("a call failed: %v", firstErr)
	}
}

// CheckRepeatedIDs runs send, which asks for a reply of n tool calls that
// all have the id id, and checks that the calls get n ids of their own
// (id, id_1, ..., id_<n-1>) in time in proportion to n: trying every
// suffix from 1 for each call took minutes. what names the case in
// failures.
func CheckRepeatedIDs(t *testing.T, what, id string, n int, send func() (*chat.Response, error)) {
	t.Helper()
	start := time.Now()
	resp, err := send()
	require.NoError(t, err, what)
	assert.Less(t, time.Since(start), 30*time.Second, what)
	require.Len(t, resp.Message.ToolCalls, n, what)
	seen := make(map[string]bool, n)
	for _, c := range resp.Message.ToolCalls {
		seen[c.ID] = true
	}
	assert.Len(t, seen, n, what)
	assert.Equal(t, id, resp.Message.ToolCalls[0].ID, what)
	assert.Equal(t, id+"_1", resp.Message.ToolCalls[1].ID, what)
	assert.Equal(t, fmt.Sprintf("%s_%d", id, n-1), resp.Message.ToolCalls[n-1].ID, what)
}

// BenchRound measures rounds of m in b's loop: a request built anew by req
// each time, sent through Chat or, when stream is set, Stream, whose reply
// must hold one call with a name and arguments.
func BenchRound(b *testing.B, m chat.StreamingModel, stream bool, req func() *chat.Request) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var resp *chat.Response
		var err error
		if stream {
			resp, err = m.Stream(ctx, req(), func(chat.Delta) bool { return true })
		} else {
			resp, err = m.Chat(ctx, req())
		}
		if err != nil || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name == "" || len(resp.Message.ToolCalls[0].Arguments) < 2 {
			b.Fatalf("reply %+v, error %v", resp, err)
		}
	}
}
