//go:build unix

package mcptool_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/mcptool"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// killed runs a loop that gets the stdio server's pid, kills the server
// and waits until it is gone: the go-sdk reaps it once it has seen the
// session end. It returns the pid and the toolcall Client, whose model
// then asks for the pid once more.
func killed(t *testing.T, c *mcptool.Client) (pid int, client *toolcall.Client, model *tt.Model) {
	t.Helper()
	model = tt.NewModel(
		tt.ToolCalls(tt.Call("1", "pid", `{}`)), tt.Text("one"),
		tt.ToolCalls(tt.Call("2", "pid", `{}`)), tt.Text("two"),
	)
	client = toolcall.NewClient(model, toolcall.WithToolset(c))
	resp, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	require.Len(t, resp.Executions, 1)
	require.NoError(t, resp.Executions[0].Err)
	pid = atoi(t, resp.Executions[0].Result)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	requireGone(t, pid)
	return pid, client, model
}

// testStdioKilledRestart: with Restart, the call after the server was
// killed starts it again.
func testStdioKilledRestart(t *testing.T, bin string) {
	c := connect(t, mcptool.Remote{Name: "prog", Command: bin, Restart: true})
	pid, client, _ := killed(t, c)

	resp, err := client.Prompt("again").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "two", resp.Content())
	require.Len(t, resp.Executions, 1)
	require.NoError(t, resp.Executions[0].Err)
	assert.False(t, resp.Executions[0].IsError)
	again := atoi(t, resp.Executions[0].Result)
	assert.NotEqual(t, pid, again, "a new process")
	requireRunning(t, again)

	require.NoError(t, c.Close())
	requireGone(t, again)
}

// testStdioKilledNoRestart: without Restart, the call after the server
// was killed is a tool error wrapping ErrServerExited.
func testStdioKilledNoRestart(t *testing.T, bin string) {
	c := connect(t, mcptool.Remote{Name: "prog", Command: bin})
	_, client, model := killed(t, c)

	resp, err := client.Prompt("again").Call(context.Background())
	require.NoError(t, err, "a tool error, not the loop's")
	assert.Equal(t, "two", resp.Content())
	require.Len(t, resp.Executions, 1)
	e := resp.Executions[0]
	assert.True(t, e.IsError)
	require.ErrorIs(t, e.Err, mcptool.ErrServerExited)
	var te *toolcall.ToolError
	require.ErrorAs(t, e.Err, &te)
	assert.Equal(t, "pid", te.Name)
	const exited = `mcptool: server "prog": tools/call pid: mcptool: server exited (Restart is off)`
	assert.EqualError(t, e.Err, `toolcall: tool "pid" (call 2): `+exited)
	// The model saw it too.
	assert.Equal(t, exited, e.Result)
	reqs := model.Requests()
	require.Len(t, reqs, 4)
	last := reqs[3].Messages[len(reqs[3].Messages)-1]
	assert.Equal(t, chat.Message{Role: chat.RoleTool, Content: exited, ToolCallID: "2", ToolName: "pid", IsError: true}, last)

	require.NoError(t, c.Close())
}

// testStdioFailedListKeepsTools: a tools/list that fails once, after a
// tools/list_changed, keeps the last good list; the next one finds the new
// tool.
func testStdioFailedListKeepsTools(t *testing.T, bin string) {
	var reported record[error]
	c := connect(t, mcptool.Remote{Name: "prog", Command: bin, OnError: reported.add})
	ctx := context.Background()
	tools, err := c.Tools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools, len(programTools))
	call := func(name, args, want string) {
		t.Helper()
		i := slices.IndexFunc(tools, func(tool toolcall.Tool) bool { return tool.Definition().Name == name })
		require.GreaterOrEqual(t, i, 0, name)
		out, err := tools[i].Call(ctx, json.RawMessage(args))
		require.NoError(t, err)
		require.Equal(t, want, out)
	}
	call("break_list", `{}`, "broken")
	call("grow", `{"name":"later"}`, "added later")

	var counts []int
	require.Eventually(t, func() bool {
		tools, err := c.Tools(ctx, nil)
		if !assert.NoError(t, err, "the last good list, not an error") {
			return false
		}
		if n := len(tools); len(counts) == 0 || counts[len(counts)-1] != n {
			counts = append(counts, n)
		}
		return len(tools) == 5
	}, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, []int{4, 5}, counts, "never fewer tools")
	errs := reported.all()
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], `mcptool: server "prog": tools/list failed, keeping the last 4 tools: mcptool: server "prog": tools/list: calling "tools/list": list unavailable`)
	var wire *jsonrpc.Error
	assert.ErrorAs(t, errs[0], &wire, "the server's JSON-RPC error")

	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "later", `{}`)), tt.Text("done"))
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c)).Prompt("go").Call(ctx)
	require.NoError(t, err)
	assert.Equal(t, append([]string{"break_list", "grow", "later"}, programTools[2:]...), sortedNames(model.Requests()[0].Tools))
	require.Len(t, resp.Executions, 1)
	assert.Equal(t, "later here", resp.Executions[0].Result)
	assert.NoError(t, resp.Executions[0].Err)
}

// testStdioListChangedThreeTimes: the model grows the server's tools three
// times in a row; each new tool is in the next model request.
func testStdioListChangedThreeTimes(t *testing.T, bin string) {
	c := connect(t, mcptool.Remote{Name: "prog", Command: bin})
	// The go-sdk server sends tools/list_changed 10ms after a change, and
	// the go-sdk client hands a notification to its handler apart from
	// the responses: so the hook waits, before the next model request,
	// until the Client has followed the notification.
	hooks := toolcall.Hooks{AfterTool: func(ctx context.Context, e toolcall.ToolExecution) {
		if e.Call.Name != "grow" {
			return
		}
		var args struct{ Name string }
		if !assert.NoError(t, json.Unmarshal(e.Call.Arguments, &args)) {
			return
		}
		assert.Eventually(t, func() bool {
			tools, err := c.Tools(ctx, nil)
			return err == nil && slices.ContainsFunc(tools, func(tool toolcall.Tool) bool { return tool.Definition().Name == args.Name })
		}, 5*time.Second, 5*time.Millisecond, "notified of %s", args.Name)
	}}
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("1", "grow", `{"name":"t1"}`)),
		tt.ToolCalls(tt.Call("2", "grow", `{"name":"t2"}`)),
		tt.ToolCalls(tt.Call("3", "grow", `{"name":"t3"}`)),
		tt.ToolCalls(tt.Call("4", "t1", `{}`), tt.Call("5", "t2", `{}`), tt.Call("6", "t3", `{}`)),
		tt.Text("done"),
	)
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c), toolcall.WithHooks(hooks)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
	reqs := model.Requests()
	require.Len(t, reqs, 5)
	want := programTools
	for i, added := range []string{"", "t1", "t2", "t3", ""} {
		if added != "" {
			want = append(slices.Clone(want), added)
			slices.Sort(want)
		}
		assert.Equal(t, want, sortedNames(reqs[i].Tools), "request %d", i+1)
	}
	var results []string
	for _, e := range resp.Executions {
		assert.NoError(t, e.Err, e.Call.Name)
		results = append(results, e.Result)
	}
	assert.Equal(t, []string{"added t1", "added t2", "added t3", "t1 here", "t2 here", "t3 here"}, results)
}

// countingServer is a go-sdk server whose "sum" counts its runs.
func countingServer(runs *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "counting", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Adds two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumArgs) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(in.A + in.B)}}}, nil, nil
		})
	return s
}

// closeSessions ends the server side of s's sessions, as a process that
// stops would.
func closeSessions(s *mcp.Server) {
	var all []*mcp.ServerSession
	for ss := range s.Sessions() {
		all = append(all, ss)
	}
	for _, ss := range all {
		ss.Close()
	}
}

// serveOn serves h on ln; stop (also called at the test's end) closes the
// connections and the server.
func serveOn(t *testing.T, ln net.Listener, h http.Handler) (stop func()) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			srv.CloseClientConnections()
			srv.Close()
		})
	}
	t.Cleanup(stop)
	return stop
}

// connTracker records the connections a client dialled.
type connTracker struct {
	mu    sync.Mutex
	conns []*trackedConn
}

type trackedConn struct {
	net.Conn
	closed atomic.Bool
}

func (c *trackedConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

// trackedClient is httpClient whose connections are recorded.
func trackedClient(t *testing.T) (*http.Client, *connTracker) {
	hc := httpClient(t)
	tr := hc.Transport.(*http.Transport)
	dial := tr.DialContext
	ct := &connTracker{}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c}
		ct.mu.Lock()
		ct.conns = append(ct.conns, tc)
		ct.mu.Unlock()
		return tc, nil
	}
	return hc, ct
}

// connSet is the connections dialled up to a moment.
type connSet []*trackedConn

func (ct *connTracker) snapshot() connSet {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return slices.Clone(ct.conns)
}

// waitClosed waits until the client has closed every connection of s.
func (s connSet) waitClosed(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, c := range s {
			if !c.closed.Load() {
				return false
			}
		}
		return true
	}, 10*time.Second, time.Millisecond, "the client still holds a connection to the stopped server")
}

// sumTwice is a model asking for a sum in each of two calls.
func sumTwice() *tt.Model {
	return tt.NewModel(
		tt.ToolCalls(tt.Call("1", "sum", `{"a":1,"b":2}`)), tt.Text("one"),
		tt.ToolCalls(tt.Call("2", "sum", `{"a":3,"b":4}`)), tt.Text("two"),
	)
}

func requireResult(t *testing.T, resp *toolcall.Response, want string) {
	t.Helper()
	require.Len(t, resp.Executions, 1)
	require.NoError(t, resp.Executions[0].Err)
	require.False(t, resp.Executions[0].IsError)
	require.Equal(t, want, resp.Executions[0].Result)
}

// requireSessionLost checks a report of a lost session: the go-sdk's
// ErrSessionMissing for the tools/call of the old session.
func requireSessionLost(t *testing.T, name string, err error) {
	t.Helper()
	require.ErrorIs(t, err, mcp.ErrSessionMissing)
	prefix := `mcptool: server "` + name + `" lost the session, connecting again: calling "tools/call": sending "tools/call": failed to connect (session ID: `
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, prefix) && strings.HasSuffix(msg, "): session not found"), msg)
}

// TestRestartedHTTPServer stops a stateful go-sdk HTTP server and starts a
// new one on the same address between two calls of one toolcall Client:
// the new server does not know the session, so the go-sdk reports
// ErrSessionMissing (404); the Client connects again and sends the call
// once more, and it runs once, on the new server.
func TestRestartedHTTPServer(t *testing.T) {
	t.Parallel()
	var runs [2]atomic.Int32
	servers := [2]*mcp.Server{countingServer(&runs[0]), countingServer(&runs[1])}
	handler := func(s *mcp.Server) http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	stop := serveOn(t, ln, handler(servers[0]))

	var reported record[error]
	hc, conns := trackedClient(t)
	c := connect(t, mcptool.Remote{Name: "http", URL: "http://" + addr, HTTPClient: hc, OnError: reported.add})
	model := sumTwice()
	client := toolcall.NewClient(model, toolcall.WithToolset(c))
	resp, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	requireResult(t, resp, "3")
	require.Equal(t, int32(1), runs[0].Load())

	old := conns.snapshot()
	stop()
	closeSessions(servers[0])
	// net/http does not send a POST again on a kept-alive connection
	// that the server closed before the client noticed ("server closed
	// idle connection": it may or may not have reached the server, so
	// it is not resent). A response the go-sdk still reads when the call
	// has returned puts its connection back late, so wait until the
	// client has seen every connection to the old server closed, as it
	// would have by a restart that took more than a moment.
	old.waitClosed(t)
	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err, "the same address")
	serveOn(t, ln, handler(servers[1]))

	resp, err = client.Prompt("again").Call(context.Background())
	require.NoError(t, err)
	requireResult(t, resp, "7")
	assert.Equal(t, "two", resp.Content())
	assert.Equal(t, int32(1), runs[0].Load(), "the old server ran only the first call")
	assert.Equal(t, int32(1), runs[1].Load(), "the new server ran the second call once")
	errs := reported.all()
	require.Len(t, errs, 1)
	requireSessionLost(t, "http", errs[0])
	require.NoError(t, c.Close())
}

// tsLike behaves as the servers of the TypeScript MCP SDK's examples do:
// an express app keeping one transport per session id, which answers a
// request with an unknown session id with 400, to a POST with a JSON-RPC
// error (its id null), to a GET or DELETE with text. restart starts a new
// go-sdk server, which knows none of the old sessions.
type tsLike struct {
	// id is the JSON-RPC id of the POST's error: "null" as the TypeScript
	// SDK's examples have it, unless set.
	id       string
	mu       sync.Mutex
	server   *mcp.Server
	handler  http.Handler
	runs     []*atomic.Int32 // one per server
	rejected []string        // the methods of the requests refused
}

func newTSLike() *tsLike {
	f := &tsLike{}
	f.restart()
	return f
}

func (f *tsLike) restart() {
	f.mu.Lock()
	old := f.server
	runs := new(atomic.Int32)
	f.runs = append(f.runs, runs)
	f.server = countingServer(runs)
	f.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, nil)
	f.mu.Unlock()
	if old != nil {
		closeSessions(old)
	}
}

func (f *tsLike) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	s, h := f.server, f.handler
	f.mu.Unlock()
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		known := false
		for ss := range s.Sessions() {
			known = known || ss.ID() == id
		}
		if !known {
			f.mu.Lock()
			f.rejected = append(f.rejected, r.Method)
			f.mu.Unlock()
			if r.Method == http.MethodPost {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusBadRequest)
				id := cmp.Or(f.id, "null")
				io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":`+id+`}`)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "Invalid or missing session ID")
			return
		}
	}
	h.ServeHTTP(w, r)
}

func (f *tsLike) counts() (runs []int32, rejected []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.runs {
		runs = append(runs, r.Load())
	}
	return runs, slices.Clone(f.rejected)
}

func (f *tsLike) close() {
	f.mu.Lock()
	s := f.server
	f.mu.Unlock()
	closeSessions(s)
}

func serveTSLike(t *testing.T, id string) (*tsLike, string) {
	t.Helper()
	f := newTSLike()
	f.id = id
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveOn(t, ln, f)
	t.Cleanup(f.close)
	return f, "http://" + ln.Addr().String()
}

// TestTypeScriptSessionLossInTheGoSDK shows what the go-sdk alone makes of
// a TypeScript-style server that lost the session: the body is dropped
// (its id is null, so it is no JSON-RPC response to the go-sdk), leaving
// the status text, and no ErrSessionMissing.
func TestTypeScriptSessionLossInTheGoSDK(t *testing.T) {
	t.Parallel()
	f, url := serveTSLike(t, "")
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(t)}, nil)
	require.NoError(t, err)
	f.restart()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sum", Arguments: sumArgs{A: 1, B: 2}})
	require.EqualError(t, err, `calling "tools/call": sending "tools/call": Bad Request`)
	assert.NotErrorIs(t, err, mcp.ErrSessionMissing)
	assert.NotErrorIs(t, err, mcp.ErrConnectionClosed)
	var wire *jsonrpc.Error
	assert.False(t, errors.As(err, &wire), "no JSON-RPC error: the body is gone")
	// The go-sdk gave the session up, but not as a missing one: closing
	// it still sends DELETE, refused too.
	require.NoError(t, cs.Close())
	runs, rejected := f.counts()
	assert.Equal(t, []int32{0, 0}, runs)
	// The go-sdk's event stream (GET) reconnects on a goroutine of its
	// own, and may be refused before, between or after these, or not at
	// all: what the call and the close sent is checked without it.
	sent := slices.DeleteFunc(rejected, func(m string) bool { return m == http.MethodGet })
	assert.Equal(t, []string{"POST", "DELETE"}, sent)
}

// TestTypeScriptSessionLoss: over a URL the Client reads the TypeScript
// servers' 400 for an unknown session as the lost session it is, connects
// again and sends the call once more, which runs once, after the new
// initialisation. The 400 reaches it as the answer to the call (POST) or,
// once the go-sdk reconnects its event stream, to that stream (GET).
func TestTypeScriptSessionLoss(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		name := "POST"
		if stream {
			name = "GET"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, url := serveTSLike(t, "")
			var reported record[error]
			c := connect(t, mcptool.Remote{Name: "ts", URL: url, HTTPClient: httpClient(t), OnError: reported.add})
			client := toolcall.NewClient(sumTwice(), toolcall.WithToolset(c))
			resp, err := client.Prompt("go").Call(context.Background())
			require.NoError(t, err)
			requireResult(t, resp, "3")

			f.restart()
			if stream {
				// The go-sdk opens its event stream again a second or
				// two after the server ended it.
				require.Eventually(t, func() bool {
					_, rejected := f.counts()
					return len(rejected) > 0
				}, 10*time.Second, 10*time.Millisecond)
			}
			resp, err = client.Prompt("again").Call(context.Background())
			require.NoError(t, err)
			requireResult(t, resp, "7")
			runs, rejected := f.counts()
			assert.Equal(t, []int32{1, 1}, runs, "once on each server")
			errs := reported.all()
			if !stream {
				assert.Equal(t, []string{"POST"}, rejected)
				require.Len(t, errs, 1)
				requireSessionLost(t, "ts", errs[0])
			} else {
				// The fake counts the GET before it answers: the go-sdk
				// may not have read the answer yet when the call goes
				// out on the old session, and is refused as in POST
				// (the call then fails with the first of the two
				// ErrSessionMissing). Once it has, the session failed
				// with ErrSessionMissing, and the Client finds it ended
				// (no report) or the call fails unsent (a report).
				require.NotEmpty(t, rejected)
				assert.Equal(t, "GET", rejected[0])
				if len(rejected) > 1 {
					assert.Equal(t, []string{"GET", "POST"}, rejected)
					assert.Len(t, errs, 1)
				}
				assert.LessOrEqual(t, len(errs), 1)
				for _, err := range errs {
					assert.ErrorIs(t, err, mcp.ErrSessionMissing)
					msg := err.Error()
					assert.True(t, strings.HasPrefix(msg, `mcptool: server "ts" lost the session, connecting again: calling "tools/call": `) &&
						strings.HasSuffix(msg, "): session not found"), msg)
				}
			}
			require.NoError(t, c.Close())
		})
	}
}

// TestTypeScriptSessionLossOverAProgramsTransport: over a go-sdk transport
// of the program's, the Client sees only the go-sdk's error. With the
// TypeScript SDK's null id that is the bare status text: the call fails.
// A server whose error has an id gets its message into the error, which
// the Client recognises.
func TestTypeScriptSessionLossOverAProgramsTransport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id      string
		wantErr string // of the second call
		report  string
	}{
		{id: "null", wantErr: `toolcall: tool "sum" (call 2): mcptool: server "ts": tools/call sum: calling "tools/call": sending "tools/call": Bad Request`},
		{id: "7", report: `mcptool: server "ts" lost the session, connecting again: calling "tools/call": sending "tools/call": Bad Request: No valid session ID provided: rejected by transport: Bad Request`},
	} {
		t.Run("id="+tc.id, func(t *testing.T) {
			t.Parallel()
			f, url := serveTSLike(t, tc.id)
			var reported record[error]
			hc := httpClient(t)
			c := connect(t, mcptool.Remote{Name: "ts", OnError: reported.add, Transport: func() (mcp.Transport, error) {
				return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil
			}})
			client := toolcall.NewClient(sumTwice(), toolcall.WithToolset(c))
			resp, err := client.Prompt("go").Call(context.Background())
			require.NoError(t, err)
			requireResult(t, resp, "3")

			f.restart()
			resp, err = client.Prompt("again").Call(context.Background())
			require.NoError(t, err)
			runs, rejected := f.counts()
			errs := reported.all()
			if tc.wantErr != "" {
				require.Len(t, resp.Executions, 1)
				e := resp.Executions[0]
				assert.True(t, e.IsError)
				require.EqualError(t, e.Err, tc.wantErr)
				assert.NotErrorIs(t, e.Err, mcp.ErrSessionMissing)
				assert.Equal(t, []int32{1, 0}, runs)
				assert.Empty(t, errs)
			} else {
				requireResult(t, resp, "7")
				assert.Equal(t, []int32{1, 1}, runs)
				require.Len(t, errs, 1)
				assert.EqualError(t, errs[0], tc.report)
				var wire *jsonrpc.Error
				require.ErrorAs(t, errs[0], &wire)
				assert.Equal(t, int64(-32000), wire.Code)
			}
			assert.Equal(t, "POST", rejected[0])
			require.NoError(t, c.Close())
		})
	}
}
