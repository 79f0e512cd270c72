package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// sumArgs and the tools below are written directly with the go-sdk, as a
// server of someone else's would be.
type sumArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type forecast struct {
	City string `json:"city"`
	Temp int    `json:"temp"`
}

func sdkServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-server", Version: "v1"}, nil)
	f := false
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Adds two numbers",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "The forecast for a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			City string `json:"city"`
		}) (*mcp.CallToolResult, forecast, error) {
			return nil, forecast{City: in.City, Temp: 21}, nil
		})
	s.AddTool(&mcp.Tool{Name: "picture", Description: "A picture and a file", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here"},
				&mcp.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte("WAV"), MIMEType: "audio/wav"},
				&mcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b.txt", Text: "embedded text"}},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///c.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2, 3}}},
			}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the disk is full"}}}, nil
		})
	return s
}

// inMemory connects a new in-memory session to s on every (re)connect.
func inMemory(s *mcp.Server) func() (mcp.Transport, error) {
	return func() (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

func connect(t *testing.T, s mcptool.Remote) *mcptool.Client {
	t.Helper()
	c, err := mcptool.Connect(context.Background(), s)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestServerToolsInTheLoop(t *testing.T) {
	t.Parallel()
	c := connect(t, mcptool.Remote{Name: "sdk", Transport: inMemory(sdkServer(t))})
	model := tt.NewModel(
		tt.ToolCalls(
			tt.Call("1", "sum", `{"a":2,"b":3}`),
			tt.Call("2", "forecast", `{"city":"Oslo"}`),
			tt.Call("3", "picture", `{}`),
			tt.Call("4", "fail", `{}`),
			tt.Call("5", "sum", `{"a":"two","b":3}`),
		),
		tt.Text("done"),
	)
	client := toolcall.NewClient(model, toolcall.WithToolset(c))
	resp, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"fail", "forecast", "picture", "sum"}, sortedNames(model.Requests()[0].Tools))
	results := map[string]string{}
	errs := map[string]bool{}
	for _, e := range resp.Executions {
		results[e.Call.ID], errs[e.Call.ID] = e.Result, e.IsError
	}
	assert.Equal(t, "5", results["1"])
	assert.Equal(t, `{"city":"Oslo","temp":21}`, results["2"], "structuredContent as its JSON")
	assert.Equal(t, "here\n[image image/png, 7 bytes]\n[audio audio/wav, 3 bytes]\n[resource file:///a.txt (text/plain): a.txt]\nembedded text\n[resource file:///c.bin (application/octet-stream), 3 bytes]", results["3"])
	assert.Equal(t, "the disk is full", results["4"])
	assert.True(t, errs["4"], "isError is a tool error the model sees")
	assert.Contains(t, results["5"], `invalid arguments for tool "sum": a: `, "checked before the server is asked")
	assert.True(t, errs["5"])
	assert.Equal(t, []bool{false, false, false, true, true}, []bool{errs["1"], errs["2"], errs["3"], errs["4"], errs["5"]})
}

func sortedNames(defs []chat.ToolDefinition) []string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	return names
}

func TestAnnotationsBecomeMetadata(t *testing.T) {
	t.Parallel()
	c := connect(t, mcptool.Remote{Transport: inMemory(sdkServer(t))})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	md := map[string]toolcall.Metadata{}
	for _, tool := range tools {
		md[tool.Definition().Name] = tool.Metadata()
	}
	assert.Equal(t, toolcall.Metadata{ReadOnly: true, Idempotent: true}, md["sum"])
	assert.Equal(t, toolcall.Metadata{Destructive: true, OpenWorld: true}, md["forecast"], "absent hints take MCP's defaults")
}

func TestPrefixAndFilter(t *testing.T) {
	t.Parallel()
	s := sdkServer(t)
	a := connect(t, mcptool.Remote{Transport: inMemory(s), Prefix: "a_", ToolNames: []string{"sum", "fail"}})
	b := connect(t, mcptool.Remote{Transport: inMemory(s), Prefix: "b_", Filter: func(t *mcp.Tool) bool { return t.Name == "sum" }})
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "a_sum", `{"a":1,"b":1}`), tt.Call("2", "b_sum", `{"a":2,"b":2}`)), tt.Text("done"))
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(a), toolcall.WithToolset(b)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"a_fail", "a_sum", "b_sum"}, sortedNames(model.Requests()[0].Tools))
	assert.Equal(t, "2", resp.Executions[0].Result)
	assert.Equal(t, "4", resp.Executions[1].Result)
}

func TestRefusedSchemaIsReported(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "lax"}, nil)
	s.AddTool(&mcp.Tool{Name: "lookahead", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","pattern":"^(?!\\.\\.).*$"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fine", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})

	_, err := mcptool.Connect(context.Background(), mcptool.Remote{Name: "lax", Transport: inMemory(s)})
	require.Error(t, err)
	var de *toolcall.DefinitionError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "lookahead", de.Method)
	assert.Equal(t, "path", de.Path)
	assert.Contains(t, err.Error(), `mcptool: server "lax"`)
	assert.Contains(t, err.Error(), "pattern")

	var refused []error
	c := connect(t, mcptool.Remote{Name: "lax", Transport: inMemory(s), OnRefused: func(err error) { refused = append(refused, err) }})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, tools, 1)
	assert.Equal(t, "fine", tools[0].Definition().Name)
	require.Len(t, refused, 1)
	assert.ErrorAs(t, refused[0], &de)
}

func TestListChangedIsFollowed(t *testing.T) {
	t.Parallel()
	s := sdkServer(t)
	c := connect(t, mcptool.Remote{Transport: inMemory(s)})
	model := tt.NewModel(tt.Text("1"), tt.Text("2"), tt.Text("3"), tt.Text("4"))
	client := toolcall.NewClient(model, toolcall.WithToolset(c))
	want := []string{"fail", "forecast", "picture", "sum"}
	for i, name := range []string{"", "new1", "new2", "new3"} {
		if name != "" {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			want = append(want, name)
			require.Eventually(t, func() bool {
				tools, _ := c.Tools(context.Background(), nil)
				return len(tools) == len(want)
			}, 5*time.Second, 5*time.Millisecond, "notification %d", i)
		}
		_, err := client.Prompt("go").Call(context.Background())
		require.NoError(t, err)
		assert.ElementsMatch(t, want, sortedNames(model.Requests()[i].Tools))
	}
}

func TestFailedListKeepsTheLastGoodOne(t *testing.T) {
	t.Parallel()
	s := sdkServer(t)
	var failList atomic.Bool
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && failList.Load() {
				return nil, errors.New("list unavailable")
			}
			return next(ctx, method, req)
		}
	})
	var reported []error
	var mu sync.Mutex
	c := connect(t, mcptool.Remote{Transport: inMemory(s), OnError: func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }})
	failList.Store(true)
	c.Refresh()
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, tools, 4, "the last good list")
	mu.Lock()
	require.Len(t, reported, 1)
	assert.Contains(t, reported[0].Error(), "list unavailable")
	mu.Unlock()
	failList.Store(false)
	s.AddTool(&mcp.Tool{Name: "later", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	require.Eventually(t, func() bool {
		tools, err := c.Tools(context.Background(), nil)
		return err == nil && len(tools) == 5
	}, 5*time.Second, 5*time.Millisecond, "asked again and found the new tool")
}

func TestProgressReachesTheHooks(t *testing.T) {
	t.Parallel()
	// The server's tool returns once the hook saw its progress: progress
	// that arrives after the result is dropped, as after any tool's return.
	var mu sync.Mutex
	var seen []string
	reported := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3, Message: fmt.Sprint("step ", i)})
				if err != nil {
					return nil, err
				}
			}
			select {
			case <-reported:
			case <-time.After(5 * time.Second):
				return nil, errors.New("the progress did not reach the hook")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	c := connect(t, mcptool.Remote{Transport: inMemory(s)})
	hooks := toolcall.Hooks{ToolProgress: func(_ context.Context, info toolcall.CallInfo, msg string, progress, total float64) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%s %s %v/%v", info.Name, msg, progress, total))
		if len(seen) == 3 {
			close(reported)
		}
	}}
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "slow", `{}`)), tt.Text("ok"))
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c), toolcall.WithHooks(hooks)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Executions[0].Result)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"slow step 1 1/3", "slow step 2 2/3", "slow step 3 3/3"}, seen)
}

func TestTimeoutCancelsOnTheServer(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "hang"}, nil)
	cancelled := make(chan struct{})
	s.AddTool(&mcp.Tool{Name: "hang", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		})
	c := connect(t, mcptool.Remote{Transport: inMemory(s)})
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "hang", `{}`)), tt.Text("ok"))
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c), toolcall.WithLimits(toolcall.Limits{ToolTimeout: 50 * time.Millisecond})).
		Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.True(t, resp.Executions[0].IsError)
	assert.Contains(t, resp.Executions[0].Result, "timed out after 50ms")
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's handler was not cancelled (notifications/cancelled)")
	}
}

func TestConnectNeedsOneWay(t *testing.T) {
	t.Parallel()
	_, err := mcptool.Connect(context.Background(), mcptool.Remote{Name: "x"})
	require.EqualError(t, err, `mcptool: server "x": set exactly one of Command, URL, Transport and Session (0 set)`)
	_, err = mcptool.Connect(context.Background(), mcptool.Remote{Name: "x", Command: "a", URL: "http://b"})
	require.EqualError(t, err, `mcptool: server "x": set exactly one of Command, URL, Transport and Session (2 set)`)
}
