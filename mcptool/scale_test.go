package mcptool_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/mcptool"
)

// The scale-out workload: scaleLoops toolcall loops at once, each one
// Client call whose single model reply asks for scaleCallsPerLoop calls of
// the record tool, each with a key of its own. The loops share
// scaleClients mcptool Clients.
const (
	scaleLoops        = 50
	scaleCallsPerLoop = 20
	scaleClients      = 5
)

// TestScaleOutStatelessHTTP runs 1,000 tool calls from 50 concurrent loops
// against two MCP server processes (testdata/scaleserver, stateless
// streamable HTTP) behind a round-robin reverse proxy, and checks on the
// servers' side that every call was served exactly once and that both
// servers served some. It does so twice: on the go-sdk's newest protocol
// (2026-07-28: server/discover and a subscriptions/listen stream, no
// standalone SSE GET) and on the one before (2025-11-25: initialize, then
// the standalone SSE GET, which a stateless server answers with 405 and
// which must cost nothing: no error, no reconnection).
func TestScaleOutStatelessHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts two server processes")
	}
	t.Parallel()
	bin := buildScaleServer(t)
	backends := []*scaleBackend{startScaleServer(t, bin, "a"), startScaleServer(t, bin, "b")}
	for _, tc := range []scaleCase{
		// server/discover, then a subscriptions/listen stream per session.
		{version: "2026-07-28", path: "/mcp"},
		// server/discover, refused; initialize, and the standalone SSE GET.
		{version: "2025-11-25", path: "/legacy", initialize: scaleClients, gets: scaleClients},
	} {
		t.Run(tc.version, func(t *testing.T) { scaleOut(t, backends, tc) })
	}
}

type scaleCase struct {
	version    string // the protocol the sessions speak
	path       string // the servers' endpoint for it
	initialize int    // initialize requests: sessions that fell back to the handshake
	gets       int    // standalone SSE GETs, each answered 405
}

func scaleOut(t *testing.T, backends []*scaleBackend, tc scaleCase) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The proxy sends each request to the next backend in turn, whatever
	// it is (discover or initialize, tools/list, tools/call, the SSE GET):
	// a stateless server needs no affinity.
	proxyTransport := http.DefaultTransport.(*http.Transport).Clone()
	proxyTransport.MaxIdleConnsPerHost = 1000
	t.Cleanup(proxyTransport.CloseIdleConnections)
	var (
		next                  atomic.Uint64
		perBackend            [2]atomic.Int64
		gets, gets405, proxyE atomic.Int64
		mu                    sync.Mutex
		methods               = map[string]int{} // JSON-RPC method (or HTTP GET) -> requests
		callVersions          = map[string]int{} // MCP-Protocol-Version header -> tools/call requests
	)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := next.Add(1) % 2
			perBackend[i].Add(1)
			pr.SetURL(backends[i].base)
			method := pr.In.Method
			if pr.In.Method == http.MethodPost {
				// Peek at the JSON-RPC method, and put the body back.
				body, err := io.ReadAll(pr.In.Body)
				if err != nil {
					t.Errorf("proxy: reading a request: %v", err)
				}
				pr.Out.Body = io.NopCloser(bytes.NewReader(body))
				var msg struct{ Method string }
				json.Unmarshal(body, &msg)
				method = cmp.Or(msg.Method, "(not a request)")
			}
			mu.Lock()
			methods[method]++
			if method == "tools/call" {
				callVersions[cmp.Or(pr.In.Header.Get("Mcp-Protocol-Version"), "(none)")]++
			}
			mu.Unlock()
		},
		Transport: proxyTransport,
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.Method == http.MethodGet {
				gets.Add(1)
				if resp.StatusCode == http.StatusMethodNotAllowed {
					gets405.Add(1)
				}
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil { // not a stream the client closed
				proxyE.Add(1)
				t.Errorf("proxy: %s %s: %v", r.Method, r.URL, err)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)

	clientTransport := http.DefaultTransport.(*http.Transport).Clone()
	clientTransport.MaxIdleConnsPerHost = 1000
	t.Cleanup(clientTransport.CloseIdleConnections)
	var recovered atomic.Int64
	clients := make([]*toolcall.Client, scaleClients)
	for i := range clients {
		c, err := mcptool.Connect(ctx, mcptool.Remote{
			Name:       fmt.Sprint("proxy-", i),
			URL:        front.URL + tc.path,
			HTTPClient: &http.Client{Transport: clientTransport},
			OnError: func(err error) {
				recovered.Add(1)
				t.Errorf("client %d recovered from: %v", i, err)
			},
		})
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		clients[i] = toolcall.NewClient(keyModel{}, toolcall.WithToolset(c))
	}

	prefix := tc.version + "-L"
	start := time.Now()
	var (
		wg       sync.WaitGroup
		answered = map[string]string{} // key -> the server that answered, as the client saw it
	)
	for loop := range scaleLoops {
		wg.Go(func() {
			user := fmt.Sprintf("%s%02d", prefix, loop)
			resp, err := clients[loop%scaleClients].Prompt(user).Call(ctx)
			if !assert.NoError(t, err, user) {
				return
			}
			assert.Equal(t, "done", resp.Content(), user)
			if !assert.Len(t, resp.Executions, scaleCallsPerLoop, user) {
				return
			}
			for i, e := range resp.Executions {
				key := scaleKey(user, i)
				if !assert.False(t, e.IsError, "%s: %s", key, e.Result) {
					continue
				}
				var got struct{ Key, Server string }
				if assert.NoError(t, json.Unmarshal([]byte(e.Result), &got), e.Result) {
					assert.Equal(t, key, got.Key, "the result answers its own call")
					mu.Lock()
					answered[got.Key] = got.Server
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	// The servers' own counts: the union has each key exactly once.
	want := scaleLoops * scaleCallsPerLoop
	union := map[string]int{}
	served := make([]int, len(backends))
	for i, b := range backends {
		for key, n := range b.counts(t) {
			if !strings.HasPrefix(key, prefix) {
				continue // the other subtest's
			}
			union[key] += n
			served[i] += n
			if n != 1 {
				t.Errorf("server %s served %s %d times", b.name, key, n)
			}
		}
	}
	var lost, duplicated []string
	for loop := range scaleLoops {
		for i := range scaleCallsPerLoop {
			key := scaleKey(fmt.Sprintf("%s%02d", prefix, loop), i)
			switch n := union[key]; {
			case n == 0:
				lost = append(lost, key)
			case n > 1:
				duplicated = append(duplicated, key)
			}
			delete(union, key)
		}
	}
	assert.Empty(t, lost, "calls lost")
	assert.Empty(t, duplicated, "calls served more than once")
	assert.Empty(t, union, "calls no loop made")
	assert.Equal(t, want, served[0]+served[1])
	assert.Len(t, answered, want, "every call answered")
	for i, b := range backends {
		assert.Positive(t, served[i], "server %s served no call", b.name)
	}

	// The protocol was the one meant, and the standalone SSE GET, when the
	// protocol has one, got 405 and cost nothing.
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{tc.version: want}, callVersions, "the protocol of the tools/call requests")
	assert.Equal(t, tc.initialize, methods["initialize"], "sessions that fell back to initialize")
	assert.Equal(t, scaleClients, methods["tools/list"], "one tools/list per session: the list never went stale")
	assert.EqualValues(t, tc.gets, gets.Load(), "standalone SSE GETs")
	assert.Equal(t, gets.Load(), gets405.Load(), "stateless servers answer the GET with 405")
	assert.Zero(t, recovered.Load(), "no session lost, no reconnection, no failed tools/list")
	assert.Zero(t, proxyE.Load())

	t.Logf("%d tool calls from %d loops in %v (%.0f calls/s); served: %s %d, %s %d; proxied: %d, %d; requests: %v; SSE GETs %d (405: %d)",
		want, scaleLoops, elapsed.Round(time.Millisecond), float64(want)/elapsed.Seconds(),
		backends[0].name, served[0], backends[1].name, served[1], perBackend[0].Load(), perBackend[1].Load(),
		methods, gets.Load(), gets405.Load())
}

func scaleKey(loop string, call int) string { return fmt.Sprintf("%s-C%02d", loop, call) }

// keyModel asks, in reply to the user, for scaleCallsPerLoop calls of
// record whose keys derive from the user's text, and answers "done" once
// it has the results. It never runs out, and is safe for concurrent use.
type keyModel struct{}

func (keyModel) Chat(_ context.Context, req *chat.Request) (*chat.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role != chat.RoleUser {
		return &chat.Response{Message: chat.AssistantMessage("done"), FinishReason: chat.FinishStop}, nil
	}
	calls := make([]chat.ToolCall, scaleCallsPerLoop)
	for i := range calls {
		key := scaleKey(last.Content, i)
		calls[i] = chat.ToolCall{ID: key, Name: "record", Arguments: json.RawMessage(`{"key":"` + key + `"}`)}
	}
	return &chat.Response{Message: chat.AssistantMessage("", calls...), FinishReason: chat.FinishToolCalls}, nil
}

// buildScaleServer builds testdata/scaleserver into a temporary directory,
// from this module and the module cache only (GOPROXY=off).
func buildScaleServer(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the server with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "scaleserver")
	cmd := exec.Command(goTool, "build", "-o", bin, "./testdata/scaleserver")
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./testdata/scaleserver:\n%s", out)
	return bin
}

type scaleBackend struct {
	name string
	base *url.URL
}

// startScaleServer starts the server program and waits for its address.
// The process is killed, and waited for, in t.Cleanup; it also exits by
// itself when this process ends, as its standard input then closes.
func startScaleServer(t *testing.T, bin, name string) *scaleBackend {
	t.Helper()
	cmd := exec.Command(bin, "-name", name, "-watch-stdin")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		stdin.Close()
		cmd.Wait()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("server %s stderr:\n%s", name, stderr)
		}
	})

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	var first string
	select {
	case first = <-line:
	case <-time.After(15 * time.Second):
		t.Fatalf("server %s printed no address in 15s; stderr:\n%s", name, stderr)
	}
	raw, ok := strings.CutPrefix(strings.TrimSpace(first), "listening ")
	require.True(t, ok, "server %s: first line %q; stderr:\n%s", name, first, stderr)
	base, err := url.Parse(raw)
	require.NoError(t, err)
	return &scaleBackend{name: name, base: base}
}

// counts asks the server which calls it served.
func (b *scaleBackend) counts(t *testing.T) map[string]int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := c.Get(b.base.JoinPath("counts").String())
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var counts map[string]int
	require.NoError(t, json.Unmarshal(body, &counts))
	return counts
}

// syncBuffer is a bytes.Buffer safe for the writes of exec's copying
// goroutine and the reads of the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
