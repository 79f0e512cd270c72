package mcptool_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/mcptool"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// ownConnections is an http.Client whose idle connections are closed at
// the test's end, so that none outlives it (goleak).
func ownConnections(t *testing.T) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// sdkHandler serves sdkServer over streamable HTTP. The server's
// sessions end with the test, also those whose client could not end them.
func sdkHandler(t *testing.T) http.Handler {
	s := sdkServer(t)
	t.Cleanup(func() {
		var all []*mcp.ServerSession
		for ss := range s.Sessions() {
			all = append(all, ss)
		}
		for _, ss := range all {
			ss.Close()
		}
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// A record collects what is seen from other goroutines: one header of
// each request a server got, or the errors a Client reports to
// Remote.OnError.
type record[T any] struct {
	mu   sync.Mutex
	seen []T
}

func (l *record[T]) add(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, v)
}

func (l *record[T]) all() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// TestURLCredentialsReachNoErrorNorTheModel: the user, password and query
// of a server's URL are sent to it, but neither the errors of Connect nor
// a failed call (its result, its error, the hooks, the next model
// request, OnError) show them, nor the path, which hosted servers make a
// token: the server is named by scheme and host. The call fails at the transport, where net/http's error holds the
// request's URL.
func TestURLCredentialsReachNoErrorNorTheModel(t *testing.T) {
	t.Parallel()
	secrets := []string{"sk-url-secret", "pw-secret", "frag-secret", "path-secret"}
	h := sdkHandler(t)
	var keys, users record[string]
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // no answer at all
			}
			return
		}
		if r.URL.Path != "/t/path-secret/mcp" {
			http.NotFound(w, r)
			return
		}
		keys.add(r.URL.Query().Get("api_key"))
		user, pass, _ := r.BasicAuth()
		users.add(user + ":" + pass)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	raw := "http://bob:pw-secret@" + host + "/t/path-secret/mcp?api_key=sk-url-secret#frag-secret"
	name := "http://" + host

	var reported record[string] // of the errors' texts
	c := connect(t, mcptool.Remote{URL: raw, HTTPClient: ownConnections(t), OnError: func(err error) { reported.add(err.Error()) }})
	require.NotEmpty(t, keys.all())
	for _, k := range keys.all() {
		assert.Equal(t, "sk-url-secret", k, "the query reaches the server")
	}
	for _, u := range users.all() {
		assert.Equal(t, "bob:pw-secret", u, "the user and password reach the server")
	}

	broken.Store(true)
	var hooked []string
	hooks := toolcall.Hooks{AfterTool: func(_ context.Context, e toolcall.ToolExecution) {
		hooked = append(hooked, fmt.Sprint(e.Err), e.Result)
	}}
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "sum", `{"a":1,"b":2}`)), tt.Text("done"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c), toolcall.WithHooks(hooks)).Prompt("go").Call(ctx)
	require.NoError(t, err)
	require.Len(t, resp.Executions, 1)
	e := resp.Executions[0]
	require.True(t, e.IsError)
	assert.Contains(t, e.Result, `mcptool: server "`+name+`": tools/call sum: `)

	_, connectErr := mcptool.Connect(ctx, mcptool.Remote{URL: raw, HTTPClient: ownConnections(t)})
	require.Error(t, connectErr)
	assert.Contains(t, connectErr.Error(), `mcptool: server "`+name+`": connect: `)

	_, parseErr := mcptool.Connect(ctx, mcptool.Remote{URL: "http://bob:pw-secret@" + host + "/mcp?api_key=sk-url-secret\x7f"})
	require.Error(t, parseErr)

	sent, err := json.Marshal(model.Requests())
	require.NoError(t, err)
	shown := []string{e.Result, e.Err.Error(), string(sent), connectErr.Error(), parseErr.Error()}
	shown = append(shown, hooked...)
	shown = append(shown, reported.all()...)
	for _, s := range shown {
		for _, secret := range secrets {
			assert.NotContains(t, s, secret)
		}
	}
}

// TestHeadersStayWithTheirOrigin: a server that redirects to another
// origin gets the configured headers; the other origin gets none of them,
// though net/http itself would forward X-Api-Key there.
func TestHeadersStayWithTheirOrigin(t *testing.T) {
	t.Parallel()
	var otherKeys, otherAuth, homeKeys, homeAuth record[string]
	h := sdkHandler(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherKeys.add(r.Header.Get("X-Api-Key"))
		otherAuth.add(r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(other.Close)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		homeKeys.add(r.Header.Get("X-Api-Key"))
		homeAuth.add(r.Header.Get("Authorization"))
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(home.Close)

	c := connect(t, mcptool.Remote{URL: home.URL + "/mcp", HTTPClient: ownConnections(t),
		Header: http.Header{"X-Api-Key": {"key-secret"}, "Authorization": {"Bearer token-secret"}}})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	i := slices.IndexFunc(tools, func(tool toolcall.Tool) bool { return tool.Definition().Name == "sum" })
	require.GreaterOrEqual(t, i, 0)
	out, err := tools[i].Call(context.Background(), json.RawMessage(`{"a":2,"b":2}`))
	require.NoError(t, err)
	assert.Equal(t, "4", out, "the call went through the redirect")

	require.NotEmpty(t, homeKeys.all())
	for _, k := range homeKeys.all() {
		assert.Equal(t, "key-secret", k)
	}
	for _, a := range homeAuth.all() {
		assert.Equal(t, "Bearer token-secret", a)
	}
	require.NotEmpty(t, otherKeys.all())
	for _, k := range otherKeys.all() {
		assert.Empty(t, k, "X-Api-Key sent to another origin")
	}
	for _, a := range otherAuth.all() {
		assert.Empty(t, a, "Authorization sent to another origin")
	}
}

// TestUnauthorizedSaysToSetTheHeaders: a 401 says to put the credentials
// in Remote.Header, and names (never shows) the headers that were sent.
func TestUnauthorizedSaysToSetTheHeaders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   string
	}{
		{"no header", nil, `the server answered 401 Unauthorized: set the credentials it expects in Remote.Header, e.g. "Authorization: Bearer <token>"`},
		{"a header", http.Header{"Authorization": {"Bearer wrong-secret"}, "X-Tenant": {"a"}},
			"the server answered 401 Unauthorized to the Remote.Header sent (Authorization, X-Tenant): set the credentials it expects there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcptool.Connect(context.Background(), mcptool.Remote{Name: "locked", URL: srv.URL, Header: tc.header, HTTPClient: ownConnections(t)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), `mcptool: server "locked": connect: `)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "wrong-secret")
		})
	}
}

// pagedServer is a go-sdk server whose tools/list answers are page(cursor)
// instead of its tools. Its one real tool gives it the tools capability.
func pagedServer(page func(cursor string) *mcp.ListToolsResult) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged"}, nil)
	s.AddTool(&mcp.Tool{Name: "real", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			var cursor string
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
				cursor = p.Cursor
			}
			return page(cursor), nil
		}
	})
	return s
}

// objectTools are n tools named <prefix>0, <prefix>1, ...
func objectTools(prefix string, n int) []*mcp.Tool {
	var tools []*mcp.Tool
	for i := range n {
		tools = append(tools, &mcp.Tool{Name: fmt.Sprint(prefix, i), InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	return tools
}

// TestToolListIsBounded: a server whose tools/list has no end (pages
// without end, tools without end, a cursor that loops) makes Connect fail
// with a ListError naming it, soon, instead of holding it and growing.
func TestToolListIsBounded(t *testing.T) {
	t.Parallel()
	next := func(cursor string) string {
		var n int
		fmt.Sscan(cursor, &n)
		return fmt.Sprint(n + 1)
	}
	for _, tc := range []struct {
		name     string
		page     func(cursor string) *mcp.ListToolsResult
		maxTools int
		want     mcptool.ListError
	}{
		{
			name: "empty pages without end",
			page: func(cursor string) *mcp.ListToolsResult {
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{}, NextCursor: next(cursor)}
			},
			want: mcptool.ListError{Server: "endless", Pages: 100, Tools: 0, Reason: "more than 100 pages"},
		},
		{
			name: "tools without end",
			page: func(cursor string) *mcp.ListToolsResult {
				return &mcp.ListToolsResult{Tools: objectTools("t"+cursor+"_", 300), NextCursor: next(cursor)}
			},
			want: mcptool.ListError{Server: "endless", Pages: 4, Tools: 1200, Reason: "more than 1000 tools (Remote.MaxTools)"},
		},
		{
			name: "tools over MaxTools",
			page: func(cursor string) *mcp.ListToolsResult {
				return &mcp.ListToolsResult{Tools: objectTools("t"+cursor+"_", 10), NextCursor: next(cursor)}
			},
			maxTools: 25,
			want:     mcptool.ListError{Server: "endless", Pages: 3, Tools: 30, Reason: "more than 25 tools (Remote.MaxTools)"},
		},
		{
			name: "a cursor that loops",
			page: func(cursor string) *mcp.ListToolsResult {
				return &mcp.ListToolsResult{Tools: objectTools("t"+cursor+"_", 1), NextCursor: map[string]string{"": "a", "a": "b", "b": "a"}[cursor]}
			},
			want: mcptool.ListError{Server: "endless", Pages: 3, Tools: 3, Reason: "page 3 gave a cursor given before, a loop"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := mcptool.Connect(ctx, mcptool.Remote{Name: "endless", Transport: inMemory(pagedServer(tc.page)), MaxTools: tc.maxTools})
			if c != nil {
				c.Close()
			}
			var le *mcptool.ListError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tc.want, *le)
			assert.EqualError(t, err, fmt.Sprintf(`mcptool: server "endless": tools/list: %s (%d tools in %d pages read)`, tc.want.Reason, tc.want.Tools, tc.want.Pages))
		})
	}

	// Within the bounds, every page is read.
	c := connect(t, mcptool.Remote{Transport: inMemory(pagedServer(func(cursor string) *mcp.ListToolsResult {
		res := &mcp.ListToolsResult{Tools: objectTools("t"+cursor+"_", 10)}
		if cursor != "9" {
			res.NextCursor = next(cursor)
		}
		return res
	})), MaxTools: 100})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, tools, 100)

	_, err = mcptool.Connect(context.Background(), mcptool.Remote{Name: "x", Transport: inMemory(sdkServer(t)), MaxTools: -1})
	assert.EqualError(t, err, `mcptool: server "x": MaxTools is -1; zero means the default, 1000`)
}

// TestRepeatedToolNamesAreRefused: two tools of one name in one list are
// both refused, as a refused schema is: through OnRefused, the others
// connecting, or else Connect fails.
func TestRepeatedToolNamesAreRefused(t *testing.T) {
	t.Parallel()
	s := pagedServer(func(string) *mcp.ListToolsResult {
		return &mcp.ListToolsResult{Tools: []*mcp.Tool{
			{Name: "dup", Description: "one", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "fine", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "dup", Description: "two", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
		}}
	})
	const want = `mcptool: server "dups": toolcall: tool "dup": invalid tool: 2 tools of the list would be offered as "dup" (the server's names ["dup" "dup"]); all are left out`

	_, err := mcptool.Connect(context.Background(), mcptool.Remote{Name: "dups", Transport: inMemory(s)})
	var de *toolcall.DefinitionError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "dup", de.Method)
	assert.ErrorIs(t, err, toolcall.ErrInvalidTool)
	assert.EqualError(t, err, want)

	var refused []error
	c := connect(t, mcptool.Remote{Name: "dups", Transport: inMemory(s), OnRefused: func(err error) { refused = append(refused, err) }})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, tools, 1)
	assert.Equal(t, "fine", tools[0].Definition().Name)
	require.Len(t, refused, 2)
	for _, err := range refused {
		require.ErrorAs(t, err, &de)
		assert.EqualError(t, err, want)
	}
}

// mappedName is the documented mapping of a tool name outside
// ^[a-zA-Z0-9_-]{1,64}$ (Prefix included): its other characters become
// '_', it is cut to fit, and '_' and 8 hex digits of its SHA-256 follow.
func mappedName(prefix, name, kept string) string {
	sum := sha256.Sum256([]byte(name))
	return prefix + kept + "_" + hex.EncodeToString(sum[:4])
}

// TestIllegalToolNamesAreMappedAndCalledByTheirOwn: a tool name the
// providers refuse (a dot, non-ASCII, too long, with Prefix too long) is
// offered under a legal name, the other tools connect as they are, and a
// call reaches the server under the tool's own name.
func TestIllegalToolNamesAreMappedAndCalledByTheirOwn(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 60) + "-end"
	names := []string{"files.list", "naïve tool", strings.Repeat("a", 100), long, "plain_name-1"}
	s := mcp.NewServer(&mcp.Implementation{Name: "odd"}, nil)
	for _, name := range names {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "I am " + req.Params.Name}}}, nil
			})
	}
	for _, tc := range []struct {
		prefix string
		want   []string // offered, in the order of names
	}{
		{"", []string{
			mappedName("", "files.list", "files_list"),
			mappedName("", "naïve tool", "na_ve_tool"),
			mappedName("", strings.Repeat("a", 100), strings.Repeat("a", 55)),
			long, // 64 bytes: legal as it is
			"plain_name-1",
		}},
		{"p_", []string{
			mappedName("p_", "files.list", "files_list"),
			mappedName("p_", "naïve tool", "na_ve_tool"),
			mappedName("p_", strings.Repeat("a", 100), strings.Repeat("a", 53)),
			mappedName("p_", long, long[:53]), // 66 bytes with the prefix
			"p_plain_name-1",
		}},
	} {
		t.Run("prefix="+tc.prefix, func(t *testing.T) {
			t.Parallel()
			c := connect(t, mcptool.Remote{Name: "odd", Transport: inMemory(s), Prefix: tc.prefix})
			var calls []chat.ToolCall
			for i, name := range tc.want {
				assert.Regexp(t, `^[a-zA-Z0-9_-]{1,64}$`, name)
				calls = append(calls, tt.Call(fmt.Sprint(i), name, `{}`))
			}
			model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("done"))
			resp, err := toolcall.NewClient(model, toolcall.WithToolset(c)).Prompt("go").Call(context.Background())
			require.NoError(t, err)
			assert.ElementsMatch(t, tc.want, sortedNames(model.Requests()[0].Tools))
			require.Len(t, resp.Executions, len(names))
			for i, e := range resp.Executions {
				assert.False(t, e.IsError, e.Result)
				assert.Equal(t, "I am "+names[i], e.Result, "called by its own name")
			}
		})
	}
}

// TestMappedNamesThatMeetAreRefused: a mapped name that another tool of
// the list has as its own is no collision the model could be misled by:
// both tools are refused.
func TestMappedNamesThatMeetAreRefused(t *testing.T) {
	t.Parallel()
	taken := mappedName("", "a.b", "a_b")
	s := pagedServer(func(string) *mcp.ListToolsResult {
		return &mcp.ListToolsResult{Tools: []*mcp.Tool{
			{Name: "a.b", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: taken, InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "c.d", InputSchema: json.RawMessage(`{"type":"object"}`)},
		}}
	})
	var refused []string
	c := connect(t, mcptool.Remote{Name: "meet", Transport: inMemory(s), OnRefused: func(err error) { refused = append(refused, err.Error()) }})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, tools, 1)
	assert.Equal(t, mappedName("", "c.d", "c_d"), tools[0].Definition().Name)
	want := fmt.Sprintf(`mcptool: server "meet": toolcall: tool %q: invalid tool: 2 tools of the list would be offered as %q (the server's names ["a.b" %q]); all are left out`, taken, taken, taken)
	assert.Equal(t, []string{want, want}, refused)
}

// TestPrefixMustMakeLegalNames: a Prefix the providers would refuse in
// a name, or one leaving no room for a mapped name, fails Connect.
func TestPrefixMustMakeLegalNames(t *testing.T) {
	t.Parallel()
	for prefix, want := range map[string]string{
		"fs.":                   `mcptool: server "x": Prefix "fs.": may hold only ASCII letters, digits, '_' and '-'`,
		strings.Repeat("p", 55): `mcptool: server "x": Prefix "` + strings.Repeat("p", 55) + `": is 55 bytes long, the limit is 54`,
	} {
		_, err := mcptool.Connect(context.Background(), mcptool.Remote{Name: "x", Transport: inMemory(sdkServer(t)), Prefix: prefix})
		assert.EqualError(t, err, want)
	}
	connect(t, mcptool.Remote{Name: "x", Transport: inMemory(sdkServer(t)), Prefix: strings.Repeat("p", 54)})
}

// TestQueryCredentialOnARootPath: a server at the root of its host with a
// token in the query ("https://host/?token=...") gets the token with every
// request, whether the URL spells the root path or not.
func TestQueryCredentialOnARootPath(t *testing.T) {
	t.Parallel()
	h := sdkHandler(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != "tok-123" || (r.URL.Path != "/" && r.URL.Path != "") {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	for _, raw := range []string{srv.URL + "/?token=tok-123", srv.URL + "?token=tok-123"} {
		c := connect(t, mcptool.Remote{URL: raw, HTTPClient: ownConnections(t)})
		tools, err := c.Tools(context.Background(), nil)
		require.NoError(t, err, raw)
		assert.NotEmpty(t, tools, raw)
	}
}
