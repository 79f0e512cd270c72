package temporaltoolcall

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/goleak"
)

// The real-engine tests run a Temporal server (the program in
// internal/testserver, a module of its own) and workers that are this
// test binary run again, so that killing a worker is a real crash.
//
// TEMPORAL_TESTSERVER names a prebuilt server program; without it the
// tests build it once, with GOTOOLCHAIN=go1.27.4 and Go's build cache.
const (
	envServer    = "TEMPORAL_TESTSERVER"
	envWorker    = "TEMPORALTOOLCALL_WORKER" // host:port: run as a worker process
	envNamespace = "TEMPORALTOOLCALL_NAMESPACE"
	envQueue     = "TEMPORALTOOLCALL_QUEUE"
	envRuns      = "TEMPORALTOOLCALL_RUNS"  // the file every process appends tool runs to
	envCodec     = "TEMPORALTOOLCALL_CODEC" // "1": encode payloads and failures (codecOptions)
	envPlain     = "TEMPORALTOOLCALL_PLAIN" // "1": the model cannot ask for an answer natively
)

func TestMain(m *testing.M) {
	if hostport := os.Getenv(envWorker); hostport != "" {
		if err := runWorker(hostport); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	srv.stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testServer is the server process shared by the tests of one run.
type testServer struct {
	once      sync.Once
	err       error
	hostport  string
	namespace string
	cmd       *exec.Cmd
	stdin     *os.File
	dir       string
}

var srv testServer

// server starts the server at the first call and returns its address and
// namespace.
func server(t *testing.T) (hostport, namespace string) {
	t.Helper()
	srv.once.Do(srv.start)
	if srv.err != nil {
		t.Fatal(srv.err)
	}
	return srv.hostport, srv.namespace
}

func (s *testServer) start() {
	s.dir, s.err = os.MkdirTemp("", "temporaltoolcall")
	if s.err != nil {
		return
	}
	bin := os.Getenv(envServer)
	if bin == "" {
		bin = filepath.Join(s.dir, "testserver")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = filepath.Join("internal", "testserver")
		build.Env = append(os.Environ(), "GOTOOLCHAIN=go1.27.4")
		if out, err := build.CombinedOutput(); err != nil {
			s.err = fmt.Errorf("building the test server: %v\n%s", err, out)
			return
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		s.err = err
		return
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		s.err = err
		return
	}
	s.cmd = exec.Command(bin)
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = inR, outW, nil
	if s.err = s.cmd.Start(); s.err != nil {
		return
	}
	inR.Close()
	outW.Close()
	s.stdin = inW
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(outR).ReadString('\n')
		outR.Close()
		line <- l
	}()
	select {
	case l := <-line:
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != "ready" {
			s.err = fmt.Errorf("the test server said %q, want \"ready HOST:PORT NAMESPACE\"", l)
			return
		}
		s.hostport, s.namespace = f[1], f[2]
	case <-time.After(2 * time.Minute):
		s.err = fmt.Errorf("the test server did not start within 2 minutes")
		s.cmd.Process.Kill()
		<-line
	}
}

func (s *testServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.stdin.Close()
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// quietLogger drops the SDK's logs.
func quietLogger() log.Logger { return log.NewStructuredLogger(slog.New(slog.DiscardHandler)) }

// dial returns a client of the test server.
func dial(t *testing.T) client.Client {
	t.Helper()
	hostport, ns := server(t)
	c, err := client.Dial(client.Options{HostPort: hostport, Namespace: ns, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// A workerProc is a worker process.
type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan error
}

// startWorker starts a worker process on queue, whose tools append their
// runs to runs.
func startWorker(t *testing.T, queue, runs string, env ...string) *workerProc {
	t.Helper()
	hostport, ns := server(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorker+"="+hostport, envNamespace+"="+ns, envQueue+"="+queue, envRuns+"="+runs)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, stdin: stdin, done: make(chan error, 1)}
	go func() { w.done <- cmd.Wait() }()
	t.Cleanup(func() { w.kill() })
	return w
}

// kill ends the worker at once, as a crash does (SIGKILL).
func (w *workerProc) kill() {
	if w.cmd.ProcessState == nil {
		w.cmd.Process.Kill()
	}
	w.wait()
}

// stop asks the worker to stop (its standard input closes) and waits.
func (w *workerProc) stop() {
	w.stdin.Close()
	w.wait()
}

func (w *workerProc) wait() {
	if w.done == nil {
		return
	}
	select {
	case <-w.done:
	case <-time.After(time.Minute):
		w.cmd.Process.Kill()
		<-w.done
	}
	w.done = nil
}

// runWorker is the worker process: the scripted model and the counting
// tools of the real-engine tests, until its standard input closes.
func runWorker(hostport string) error {
	opts := client.Options{HostPort: hostport, Namespace: os.Getenv(envNamespace), Logger: quietLogger()}
	if os.Getenv(envCodec) == "1" {
		opts.DataConverter, opts.FailureConverter = codecOptions()
	}
	c, err := client.Dial(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	w := worker.New(c, os.Getenv(envQueue), worker.Options{})
	tw := engineWorker(os.Getenv(envRuns))
	if err := tw.Register(w); err != nil {
		return err
	}
	// Another application's workflow in the namespace (TestForgedDecisionOnTheEngine).
	w.RegisterWorkflowWithOptions(rogue, workflow.RegisterOptions{Name: "rogue"})
	stop := make(chan any)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	return w.Run(stop)
}

// engineArgs are the arguments of the real-engine tools.
type engineArgs struct {
	N       int    `json:"n"`
	SleepMS int    `json:"sleep_ms,omitempty"`
	Pad     int    `json:"pad,omitempty"` // result bytes
	Note    string `json:"note,omitempty"`
}

// engineWorker is the Worker of the worker processes. Its model answers
// from the request alone, so that any worker continues a conversation
// where another stopped: the first user message "steps N SLEEP PAD TOOL"
// asks for N calls of TOOL, one per round, the second of them sleeping
// SLEEP ms and each result PAD bytes long; then it answers with the last
// result's first line. "answer SCRIPT" replies as answerScript does, and
// the model asks for an answer natively unless TEMPORALTOOLCALL_PLAIN is
// 1. Each tool run appends "start WORKFLOW CALL" and "end WORKFLOW CALL"
// to the runs file.
func engineWorker(runs string) *Worker {
	record := func(ctx context.Context, what string) {
		info, _ := toolcall.CallInfoFrom(ctx)
		wf := toolcall.ToolContextFrom(ctx).Value("workflow")
		f, err := os.OpenFile(runs, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(f, "%s %v %s\n", what, wf, info.ID)
		f.Close()
	}
	run := func(ctx context.Context, in engineArgs) (string, error) {
		record(ctx, "start")
		if secret := toolcall.ToolContextFrom(ctx).Value("secret"); secret != "s3cr3t-tenant-7" {
			return "", fmt.Errorf("the tool context has secret %v", secret)
		}
		sleep := time.Duration(in.SleepMS) * time.Millisecond
		if activity.GetInfo(ctx).Attempt > 1 {
			sleep = 0 // only the first attempt hangs
		}
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			record(ctx, "cancelled")
			return "", ctx.Err()
		}
		record(ctx, "end")
		return fmt.Sprintf("step %d done\n%s", in.N, strings.Repeat("x", in.Pad)), nil
	}
	step := toolcall.MustFunc("step", "A step that changes something", run)
	lookup := toolcall.MustFunc("lookup", "A step that only reads", run)
	lookupTool := readOnly{lookup}
	transfer := toolcall.MustFunc("transfer", "A step that needs approval", run, toolcall.WithNeedsApproval(true))
	fatal := toolcall.MustFunc("fatal", "A step that ends the conversation", func(ctx context.Context, in engineArgs) (string, error) {
		record(ctx, "start")
		time.Sleep(time.Duration(in.SleepMS) * time.Millisecond)
		return "", fmt.Errorf("disk gone (PLAIN-FATAL-MARK): %w", toolcall.ErrFatal)
	})
	model := modelFunc(func(ctx context.Context, req *chat.Request) (*chat.Response, error) {
		var first string
		for _, m := range req.Messages {
			if m.Role == chat.RoleUser {
				first = m.Content
				break
			}
		}
		var n, sleep, pad int
		var tool string
		if script, ok := strings.CutPrefix(first, "answer "); ok {
			return answerScript(req, strings.Fields(script))
		}
		if first == "ratelimit" {
			// Rate limited twice, with Retry-After 3s; then an answer.
			if activity.GetInfo(ctx).Attempt <= 2 {
				return nil, &chat.ProviderError{Provider: "script", StatusCode: 429, Err: chat.ErrRateLimited, RetryAfter: 3 * time.Second}
			}
			return text("answered after the waits"), nil
		}
		if _, err := fmt.Sscanf(first, "many %d", &n); err == nil {
			// n read-only calls in one reply, then the count of results.
			if toolRounds(req) > 0 {
				return text(fmt.Sprint(len(req.Messages)-1, " messages after the question")), nil
			}
			cs := make([]chat.ToolCall, n)
			for i := range cs {
				cs[i] = chat.ToolCall{ID: fmt.Sprint("c", i+1), Name: "lookup", Arguments: []byte(fmt.Sprintf(`{"n":%d}`, i+1))}
			}
			return calls(cs...), nil
		}
		if _, err := fmt.Sscanf(first, "abort %d", &sleep); err == nil {
			// One reply: a step that sleeps, and a call that aborts a
			// second into it.
			return calls(chat.ToolCall{ID: "c1", Name: "step", Arguments: []byte(fmt.Sprintf(`{"n":1,"sleep_ms":%d}`, sleep))},
				chat.ToolCall{ID: "c2", Name: "fatal", Arguments: []byte(`{"n":2,"sleep_ms":1000}`)}), nil
		}
		if _, err := fmt.Sscanf(first, "steps %d %d %d %s", &n, &sleep, &pad, &tool); err != nil {
			return nil, fmt.Errorf("%w: the script cannot read %q: %v", chat.ErrBadRequest, first, err)
		}
		done := toolRounds(req)
		if done >= n {
			result, _, _ := strings.Cut(lastTool(req), "\n")
			return text(fmt.Sprintf("finished %d steps; last: %s", done, result)), nil
		}
		a := engineArgs{N: done + 1, Pad: pad}
		if a.N == 2 {
			a.SleepMS = sleep
		}
		args := fmt.Sprintf(`{"n":%d,"sleep_ms":%d,"pad":%d}`, a.N, a.SleepMS, a.Pad)
		return calls(chat.ToolCall{ID: fmt.Sprintf("c%d", a.N), Name: tool, Arguments: []byte(args)}), nil
	})
	var m chat.Model = structuredModel{model}
	if os.Getenv(envPlain) == "1" {
		m = model
	}
	return &Worker{
		Model:       m,
		Tools:       []toolcall.Tool{step, lookupTool, transfer, fatal},
		DecisionKey: testDecisionKey,
		ToolContext: func(ctx context.Context, s Session) (toolcall.ToolContext, error) {
			if s.Key != "tenant-7" {
				return toolcall.ToolContext{}, fmt.Errorf("unknown tenant %q", s.Key)
			}
			return toolcall.NewToolContext(map[string]any{"secret": "s3cr3t-" + s.Key, "workflow": s.WorkflowID}), nil
		},
	}
}

// readOnly marks a tool read-only, as an MCP tool with readOnlyHint is.
type readOnly struct{ toolcall.Tool }

func (r readOnly) Metadata() toolcall.Metadata {
	md := r.Tool.Metadata()
	md.ReadOnly = true
	return md
}

type modelFunc func(ctx context.Context, req *chat.Request) (*chat.Response, error)

func (f modelFunc) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	return f(ctx, req)
}

// toolRuns reads the runs file: for each "WORKFLOW CALL", how many times
// it started and ended.
func toolRuns(t *testing.T, path string) (starts, ends map[string]int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	starts, ends = map[string]int{}, map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		what, key, ok := strings.Cut(l, " ")
		switch {
		case !ok:
		case what == "start":
			starts[key]++
		case what == "end":
			ends[key]++
		}
	}
	return starts, ends
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
