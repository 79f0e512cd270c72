package mcptool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
)

// A Remote says how to reach an MCP server: set Command (stdio), URL
// (streamable HTTP), Transport (any go-sdk transport) or Session (a go-sdk
// session already connected), and the rest as needed.
type Remote struct {
	// Name names the server in errors; by default its command, or its
	// URL's scheme and host (the path may hold a token). Give a name to
	// tell apart servers on one host.
	Name string

	// Command starts the server as a subprocess spoken to over stdio, with
	// Args and Dir. Its environment is the few variables a program needs
	// (see InheritEnv), then Env ("KEY=value"; a key in Env wins).
	Command string
	Args    []string
	Env     []string
	Dir     string
	// InheritEnv gives the subprocess this process's whole environment, its
	// API keys included, then Env. Without it the subprocess gets only
	// HOME, LOGNAME, PATH, SHELL, TERM and USER (on Windows APPDATA,
	// HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH, PROCESSOR_ARCHITECTURE,
	// PROGRAMFILES, SYSTEMDRIVE, SYSTEMROOT, TEMP, USERNAME and
	// USERPROFILE), as the official MCP SDKs start servers, and none whose
	// value starts with "()" (a shell function).
	InheritEnv bool

	// URL is the server's streamable HTTP endpoint (http or https), reached
	// with HTTPClient (http.DefaultClient when nil). Header goes with every
	// request to the URL's origin (scheme, host and port) and to no other:
	// a redirect elsewhere carries none of it. Credentials in the URL (user
	// and password, query) are sent to the endpoint alone and shown
	// nowhere, and so is the path, which hosted servers often make a
	// credential: the server is named by the URL's scheme and host.
	URL        string
	Header     http.Header
	HTTPClient *http.Client

	// Transport returns a go-sdk transport to connect over, such as one of
	// mcp.NewInMemoryTransports. It is called again to reconnect.
	Transport func() (mcp.Transport, error)

	// Session is a go-sdk session the program has connected itself. It
	// cannot be reconnected; Close closes it. The Client can follow the
	// server's tools/list_changed notifications only on a session it
	// connected itself: call Refresh from the session's
	// ToolListChangedHandler.
	Session *mcp.ClientSession

	// Prefix goes before each tool's name, so that two servers can both
	// offer a "search". It may hold ASCII letters, digits, '_' and '-', up
	// to 54 bytes (see the package doc on tool names).
	Prefix string
	// ToolNames, when set, are the only tools offered (the server's names,
	// without Prefix); Filter, when set, must also accept a tool.
	ToolNames []string
	Filter    func(*mcp.Tool) bool

	// Restart lets a stdio server that exited be started again on the next
	// call, waiting longer between attempts while it keeps failing. Without
	// it, calls after an exit fail with [ErrServerExited].
	Restart bool

	// MaxTools bounds the tools one tools/list may hold, before ToolNames
	// and Filter pick; zero means 1000. A longer list is a [*ListError].
	MaxTools int

	// OnRefused, when set, gets each tool the Client refuses, and the tool
	// is left out: one whose input schema the checks refuse (a
	// *toolcall.DefinitionError naming the server, the tool, the parameter
	// path and the keyword), or one whose name another tool of the list
	// has too (each of them). Without it such a tool makes Connect and
	// Tools fail: no tool is dropped silently.
	OnRefused func(err error)
	// OnError, when set, sees the errors the Client recovers from: a
	// tools/list that failed (the last good list stays offered and the
	// list is asked for again on the next request), a reconnection.
	OnError func(err error)
}

// ErrServerExited: the stdio server exited and Restart is off, or
// starting it again failed (the error wraps the cause too).
var ErrServerExited = errors.New("mcptool: server exited")

// A ListError is a tools/list the Client stopped reading because it had
// no end in sight: more than 100 pages, more tools than
// [Remote].MaxTools, or a cursor the server had given before (a loop). No
// tool of that list is offered: Connect fails with it, and a later
// listing keeps the last good list (see [Remote].OnError).
type ListError struct {
	Server string // the server's name
	Pages  int    // the pages read
	Tools  int    // the tools read
	Reason string // what was wrong, e.g. "more than 100 pages"
}

// Error names the server, the reason and how much was read.
func (e *ListError) Error() string {
	return fmt.Sprintf("mcptool: server %q: tools/list: %s (%d tools in %d pages read)", e.Server, e.Reason, e.Tools, e.Pages)
}

// The bounds of one tools/list.
const (
	maxListPages    = 100
	defaultMaxTools = 1000
)

var errClosed = errors.New("mcptool: client closed")

// A Client holds a connection to one MCP server and offers its tools to a
// toolcall Client as a [toolcall.Toolset]:
//
//	c, err := mcptool.Connect(ctx, mcptool.Remote{Command: "my-server"})
//	client := toolcall.NewClient(model, toolcall.WithToolset(c))
//
// Each model request offers the server's current tools: the list is asked
// for again after the server says it changed. A Client is safe for
// concurrent use. Close it to end the session and the subprocess.
type Client struct {
	srv      Remote
	name     string
	endpoint *url.URL // the URL, with its credentials
	sdk      *mcp.Client

	mu      sync.Mutex // guards the fields below
	session *mcp.ClientSession
	gen     int // counts sessions, so that a stale failure drops no newer one
	cmd     *exec.Cmd
	closed  bool
	exited  bool // the stdio server's session ended by itself
	fails   int  // restarts that failed in a row
	retryAt time.Time

	listMu sync.Mutex // one tools/list at a time
	tools  atomic.Pointer[[]toolcall.Tool]
	stale  atomic.Bool

	progress sync.Map // progress token -> the call's context
	token    atomic.Int64
}

// Connect connects to the server and lists its tools.
func Connect(ctx context.Context, s Remote) (*Client, error) {
	c := &Client{srv: s, name: s.Name}
	var urlErr error
	if s.URL != "" {
		c.endpoint, urlErr = parseEndpoint(s.URL)
	}
	if c.name == "" {
		c.name = cmp.Or(s.Command, public(c.endpoint), "mcp")
	}
	kinds := 0
	for _, set := range []bool{s.Command != "", s.URL != "", s.Transport != nil, s.Session != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, fmt.Errorf("mcptool: server %q: set exactly one of Command, URL, Transport and Session (%d set)", c.name, kinds)
	}
	if urlErr != nil {
		return nil, fmt.Errorf("mcptool: server %q: URL: %w", c.name, urlErr)
	}
	if err := checkPrefix(s.Prefix); err != nil {
		return nil, fmt.Errorf("mcptool: server %q: Prefix %q: %w", c.name, s.Prefix, err)
	}
	if s.MaxTools < 0 {
		return nil, fmt.Errorf("mcptool: server %q: MaxTools is %d; zero means the default, 1000", c.name, s.MaxTools)
	}
	c.sdk = mcp.NewClient(&mcp.Implementation{Name: "toolcall", Version: "v1"}, &mcp.ClientOptions{
		// No roots: a server would ask for them, and a stdio server with a
		// question pending may not exit when its stdin closes.
		Capabilities:                &mcp.ClientCapabilities{},
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { c.Refresh() },
		ProgressNotificationHandler: c.onProgress,
	})
	if s.Session != nil {
		c.session = s.Session
		c.gen = 1
	} else if _, _, err := c.connect(ctx); err != nil {
		return nil, fmt.Errorf("mcptool: server %q: %w", c.name, err)
	}
	if _, err := c.list(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Refresh marks the tool list stale: the next request lists the tools
// again. The Client calls it itself when the server notifies that its
// tools changed.
func (c *Client) Refresh() { c.stale.Store(true) }

// Tools returns the server's tools, listing them again when they changed.
// A failed listing keeps the last good list (see [Remote].OnError) and is
// tried again on the next request; with no good list yet, it is an error.
func (c *Client) Tools(ctx context.Context, _ *chat.Request) ([]toolcall.Tool, error) {
	if t := c.tools.Load(); t != nil && !c.stale.Load() {
		return *t, nil
	}
	return c.list(ctx)
}

// list asks the server for all its tools and turns them into toolcall
// tools.
func (c *Client) list(ctx context.Context) ([]toolcall.Tool, error) {
	c.listMu.Lock()
	defer c.listMu.Unlock()
	if t := c.tools.Load(); t != nil && !c.stale.Load() {
		return *t, nil // listed while this call waited
	}
	c.stale.Store(false) // a notification from now on asks again
	tools, err := c.listOnce(ctx)
	if err != nil {
		c.stale.Store(true)
		if last := c.tools.Load(); last != nil {
			c.report(fmt.Errorf("mcptool: server %q: tools/list failed, keeping the last %d tools: %w", c.name, len(*last), err))
			return *last, nil
		}
		return nil, err
	}
	c.tools.Store(&tools)
	return tools, nil
}

// listOnce reads the server's tool list, page by page within the bounds
// (see [ListError]), and turns the tools offered into toolcall tools.
func (c *Client) listOnce(ctx context.Context) ([]toolcall.Tool, error) {
	var listed []*mcp.Tool
	err := c.withSession(ctx, true, func(cs *mcp.ClientSession) error {
		var err error
		listed, err = c.readList(ctx, cs)
		return err
	})
	if err != nil {
		if le := (*ListError)(nil); errors.As(err, &le) {
			return nil, err
		}
		return nil, fmt.Errorf("mcptool: server %q: tools/list: %w", c.name, err)
	}

	type entry struct {
		name string // the name the model sees
		tool *mcp.Tool
	}
	var offered []entry
	names := map[string][]string{} // the name the model sees -> the server's names
	for _, t := range listed {
		if c.offered(t) {
			name := c.toolName(t.Name)
			offered = append(offered, entry{name, t})
			names[name] = append(names[name], t.Name)
		}
	}
	var tools []toolcall.Tool
	for _, e := range offered {
		var tool toolcall.Tool
		var err error
		if same := names[e.name]; len(same) > 1 {
			err = fmt.Errorf("mcptool: server %q: %w", c.name, &toolcall.DefinitionError{Method: e.name,
				Err: fmt.Errorf("%w: %d tools of the list would be offered as %q (the server's names %q); all are left out", toolcall.ErrInvalidTool, len(same), e.name, same)})
		} else {
			tool, err = c.newTool(e.name, e.tool)
		}
		if err != nil {
			if c.srv.OnRefused == nil {
				return nil, err
			}
			c.srv.OnRefused(err)
			continue
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// readList reads every page of the tool list. The go-sdk's iterator
// follows any cursor, so a server sending pages without end would hold
// Connect forever: the pages are read here, within the bounds.
func (c *Client) readList(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	limit := cmp.Or(c.srv.MaxTools, defaultMaxTools)
	var tools []*mcp.Tool
	seen := map[string]bool{}
	params := &mcp.ListToolsParams{}
	for pages := 1; ; pages++ {
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		tools = append(tools, res.Tools...)
		var reason string
		switch next := res.NextCursor; {
		case len(tools) > limit:
			reason = fmt.Sprintf("more than %d tools (Remote.MaxTools)", limit)
		case next == "":
			return tools, nil
		case seen[next]:
			reason = fmt.Sprintf("page %d gave a cursor given before, a loop", pages)
		case pages == maxListPages:
			reason = fmt.Sprintf("more than %d pages", maxListPages)
		default:
			seen[next] = true
			params = &mcp.ListToolsParams{Cursor: next}
			continue
		}
		return nil, &ListError{Server: c.name, Pages: pages, Tools: len(tools), Reason: reason}
	}
}

func (c *Client) offered(t *mcp.Tool) bool {
	if len(c.srv.ToolNames) > 0 && !slices.Contains(c.srv.ToolNames, t.Name) {
		return false
	}
	return c.srv.Filter == nil || c.srv.Filter(t)
}

func (c *Client) report(err error) {
	if c.srv.OnError != nil {
		c.srv.OnError(err)
	}
}

// withSession runs f with the current session, connecting first when
// there is none. When the server has lost the session (it restarted: the
// go-sdk reports mcp.ErrSessionMissing, and servers of the TypeScript SDK
// answer 400 to an unknown session), nothing ran, so when resend is set
// the Client connects again and runs f once more.
func (c *Client) withSession(ctx context.Context, resend bool, f func(*mcp.ClientSession) error) error {
	cs, gen, err := c.current(ctx)
	if err != nil {
		return err
	}
	err = f(cs)
	switch {
	case err == nil:
		return nil
	case sessionLost(err) && c.reconnectable():
		c.report(fmt.Errorf("mcptool: server %q lost the session, connecting again: %w", c.name, err))
	case errors.Is(err, mcp.ErrConnectionClosed):
		// The session had ended (a stdio server that exited, an HTTP
		// session the go-sdk gave up on) before the request was written:
		// the go-sdk says ErrConnectionClosed only for a request it did
		// not send. The next session gets it, when there may be one:
		// current starts it, or says why not (ErrServerExited).
		if !c.reconnectable() {
			c.drop(gen)
			return err
		}
	default:
		return err
	}
	c.drop(gen)
	if !resend {
		return err
	}
	if cs, _, err = c.current(ctx); err != nil {
		return err
	}
	return f(cs)
}

// sessionLost reports whether err says the server does not know the
// session. The go-sdk reports mcp.ErrSessionMissing for a 404, and over
// a URL for the 400 of the TypeScript SDK's servers too (see
// sessionTransport). The text check is for that 400 over a Transport of
// the program's, when the server's JSON-RPC error has an id: only then
// does the go-sdk put its message in the error.
func sessionLost(err error) bool {
	if errors.Is(err, mcp.ErrSessionMissing) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "Bad Request") && strings.Contains(msg, "No valid session ID")
}

func (c *Client) reconnectable() bool { return c.srv.Session == nil }

// current returns the session, connecting (or restarting a stdio server)
// when there is none.
func (c *Client) current(ctx context.Context) (*mcp.ClientSession, int, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, 0, errClosed
	}
	if cs := c.session; cs != nil {
		gen := c.gen
		c.mu.Unlock()
		return cs, gen, nil
	}
	if !c.reconnectable() {
		c.mu.Unlock()
		return nil, 0, fmt.Errorf("the session ended and was given by the program, so it cannot be reconnected: %w", mcp.ErrConnectionClosed)
	}
	if c.exited && !c.srv.Restart {
		c.mu.Unlock()
		return nil, 0, fmt.Errorf("%w (Restart is off)", ErrServerExited)
	}
	if wait := time.Until(c.retryAt); wait > 0 {
		c.mu.Unlock()
		if c.srv.Command != "" {
			return nil, 0, fmt.Errorf("%w; starting it again failed %d times, next attempt in %s", ErrServerExited, c.fails, wait.Round(time.Millisecond))
		}
		return nil, 0, fmt.Errorf("connecting failed %d times, next attempt in %s", c.fails, wait.Round(time.Millisecond))
	}
	exited := c.exited
	c.mu.Unlock()
	cs, gen, err := c.connect(ctx)
	if err != nil && exited {
		return nil, 0, fmt.Errorf("%w; starting it again failed: %w", ErrServerExited, err)
	}
	return cs, gen, err
}

// connect starts a new session.
func (c *Client) connect(ctx context.Context) (*mcp.ClientSession, int, error) {
	t, cmd, err := c.transport()
	if err != nil {
		return nil, 0, err
	}
	cs, err := c.sdk.Connect(ctx, t, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.fails++
		c.retryAt = time.Now().Add(backoff(c.fails))
		return nil, 0, fmt.Errorf("connect: %w", err)
	}
	if c.closed {
		cs.Close()
		return nil, 0, errClosed
	}
	if c.session != nil { // another call connected meanwhile
		cs.Close()
		return c.session, c.gen, nil
	}
	c.fails, c.exited = 0, false
	c.gen++
	c.session, c.cmd = cs, cmd
	gen := c.gen
	go func() {
		cs.Wait()
		c.mu.Lock()
		if c.gen == gen && c.session == cs && !c.closed {
			c.session = nil
			c.exited = c.srv.Command != ""
		}
		c.mu.Unlock()
		// A session that ended by itself still holds what only Close
		// releases, such as the go-sdk's subscriptions/listen goroutine.
		cs.Close()
	}()
	return cs, gen, nil
}

// backoff is the wait before restart attempt n+1 after n failed ones.
func backoff(n int) time.Duration {
	return min(100*time.Millisecond<<min(n-1, 10), 30*time.Second)
}

// drop forgets session gen after a failure, so that the next call
// connects again.
func (c *Client) drop(gen int) {
	c.mu.Lock()
	cs := c.session
	if c.gen != gen || cs == nil {
		c.mu.Unlock()
		return
	}
	c.session = nil
	c.exited = c.srv.Command != ""
	c.mu.Unlock()
	cs.Close()
}

// environ is the environment of a stdio server.
func (s *Remote) environ() []string {
	if s.InheritEnv {
		return append(os.Environ(), s.Env...)
	}
	env := make([]string, 0, len(defaultEnv)+len(s.Env)) // not nil: nil would inherit all
	for _, k := range defaultEnv {
		// A value starting with "()" is a shell function, which a shell
		// in the server would define (and once, run).
		if v, ok := os.LookupEnv(k); ok && !strings.HasPrefix(v, "()") {
			env = append(env, k+"="+v)
		}
	}
	return append(env, s.Env...)
}

// defaultEnv is what the official MCP SDKs pass to a stdio server
// (PROGRAMFILES only the TypeScript one).
var defaultEnv = func() []string {
	if runtime.GOOS == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}()

func (c *Client) transport() (mcp.Transport, *exec.Cmd, error) {
	switch {
	case c.srv.Command != "":
		cmd := exec.Command(c.srv.Command, c.srv.Args...)
		cmd.Env = c.srv.environ()
		cmd.Dir = c.srv.Dir
		return &mcp.CommandTransport{Command: cmd}, cmd, nil
	case c.srv.URL != "":
		hc := c.srv.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		copied := *hc
		copied.Transport = &httpTransport{base: base, header: c.srv.Header, endpoint: c.endpoint, origin: origin(c.endpoint)}
		// The go-sdk knows the endpoint without its credentials or its
		// path, so that none of its errors (nor net/http's) can show them.
		return &mcp.StreamableClientTransport{Endpoint: masked(c.endpoint), HTTPClient: &copied}, nil, nil
	}
	t, err := c.srv.Transport()
	if err != nil {
		return nil, nil, fmt.Errorf("transport: %w", err)
	}
	return t, nil, nil
}

// Close ends the session and, for a stdio server, the subprocess: it
// returns once the process has exited.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	cs := c.session
	c.session = nil
	c.mu.Unlock()
	if cs == nil {
		return nil
	}
	if err := cs.Close(); err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("mcptool: server %q: close: %w", c.name, err)
	}
	return nil
}

func (c *Client) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p := req.Params
	if ctx, ok := c.progress.Load(progressKey(p.ProgressToken)); ok {
		toolcall.ReportProgress(ctx.(context.Context), p.Message, p.Progress, p.Total)
	}
}

// progressKey normalises a token: it comes back from JSON as a float64.
func progressKey(token any) int64 {
	switch v := token.(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return -1
}
