package toolcall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// stateTools: setpref writes a key the model chooses; whoami reads the
// tenant the caller set.
func stateTools(seen *[]string) []toolcall.Tool {
	setpref := toolcall.MustFunc("setpref", "Saves a preference", func(ctx context.Context, in struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}) (string, error) {
		toolcall.SetState(ctx, in.Key, in.Value)
		return "saved", nil
	})
	whoami := toolcall.MustFunc("whoami", "The tenant", func(ctx context.Context, _ struct{}) (string, error) {
		tc := toolcall.ToolContextFrom(ctx)
		s := fmt.Sprintf("tenant=%v color=%v", tc.Value("tenant"), tc.Value("color"))
		*seen = append(*seen, s)
		return s, nil
	})
	return []toolcall.Tool{setpref, whoami}
}

func stateScript() []tt.Reply {
	return []tt.Reply{
		tt.ToolCalls(tt.Call("s1", "setpref", `{"key":"tenant","value":"globex"}`), tt.Call("s2", "setpref", `{"key":"color","value":"red"}`)),
		tt.ToolCalls(tt.Call("w1", "whoami", `{}`)),
		tt.Text("done"),
	}
}

// TestSessionStateCannotOverrideCallerValues: a model-chosen state key
// equal to a ToolContext key never changes what later tools read, on
// Call, Stream and Resume; other state keys are read as written.
func TestSessionStateCannotOverrideCallerValues(t *testing.T) {
	t.Parallel()
	caller := map[string]any{"tenant": "acme"}
	t.Run("call", func(t *testing.T) {
		t.Parallel()
		var seen []string
		client := toolcall.NewClient(tt.NewModel(stateScript()...), toolcall.WithTools(stateTools(&seen)))
		resp, err := client.Prompt("go").ToolContext(caller).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"tenant=acme color=red"}, seen)
		assert.Equal(t, map[string]any{"tenant": "globex", "color": "red"}, resp.State, "the writes are recorded")

		// The next call, given the state, still reads the caller's tenant.
		seen = nil
		client = toolcall.NewClient(tt.NewModel(tt.ToolCalls(tt.Call("w2", "whoami", `{}`)), tt.Text("done")), toolcall.WithTools(stateTools(&seen)))
		_, err = client.Prompt("again").State(resp.State).ToolContext(caller).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"tenant=acme color=red"}, seen)
	})
	t.Run("context carried tool context", func(t *testing.T) {
		t.Parallel()
		var seen []string
		client := toolcall.NewClient(tt.NewModel(stateScript()...), toolcall.WithTools(stateTools(&seen)))
		ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(caller))
		_, err := client.Prompt("go").Call(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"tenant=acme color=red"}, seen)
	})
	t.Run("stream", func(t *testing.T) {
		t.Parallel()
		var seen []string
		client := toolcall.NewClient(tt.NewModel(stateScript()...), toolcall.WithTools(stateTools(&seen)))
		for _, err := range client.Prompt("go").ToolContext(caller).Stream(context.Background()) {
			require.NoError(t, err)
		}
		assert.Equal(t, []string{"tenant=acme color=red"}, seen)
	})
	t.Run("resume", func(t *testing.T) {
		t.Parallel()
		var seen []string
		tools := stateTools(&seen)
		gate := toolcall.MustFunc("gate", "Waits", func(context.Context, struct{}) (string, error) { return "open", nil }, toolcall.WithNeedsApproval(true))
		model := tt.NewModel(
			tt.ToolCalls(tt.Call("s1", "setpref", `{"key":"tenant","value":"globex"}`), tt.Call("g1", "gate", `{}`)),
			tt.ToolCalls(tt.Call("w1", "whoami", `{}`)),
			tt.Text("done"),
		)
		client := toolcall.NewClient(model, toolcall.WithTools(append(tools, gate)))
		_, err := client.Prompt("go").ToolContext(caller).Call(context.Background())
		var p *toolcall.Paused
		require.ErrorAs(t, err, &p)
		assert.Equal(t, map[string]any{"tenant": "globex"}, p.State)
		_, err = client.Prompt().ToolContext(caller).Resume(p, map[string]toolcall.Decision{"g1": {Allow: true}}).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []string{"tenant=acme color=<nil>"}, seen)
	})
}

// TestWritesAfterTheToolReturnedAreRefused: a goroutine a tool left
// running cannot write the state or report progress once the tool
// returned (run with -race).
func TestWritesAfterTheToolReturnedAreRefused(t *testing.T) {
	t.Parallel()
	returned := make(chan struct{})
	late := make(chan [3]bool, 1)
	var progress []string
	var mu sync.Mutex
	leaky := toolcall.MustFunc("leaky", "Leaves a goroutine", func(ctx context.Context, _ struct{}) (string, error) {
		go func() {
			<-returned
			late <- [3]bool{toolcall.SetState(ctx, "k", "late"), toolcall.ReportProgress(ctx, "late", 1, 1), toolcall.SetReturnDirect(ctx)}
		}()
		toolcall.SetState(ctx, "k", "in time")
		return "ok", nil
	})
	hooks := toolcall.Hooks{ToolProgress: func(_ context.Context, _ toolcall.CallInfo, msg string, _, _ float64) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, msg)
	}}
	client := toolcall.NewClient(tt.NewModel(tt.ToolCalls(tt.Call("1", "leaky", `{}`)), tt.Text("done")),
		toolcall.WithTools(leaky), toolcall.WithHooks(hooks))
	resp, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	close(returned)
	got := <-late
	assert.Equal(t, [3]bool{false, false, false}, got, "SetState, ReportProgress and SetReturnDirect report false")
	assert.Equal(t, map[string]any{"k": "in time"}, resp.State)
	assert.Equal(t, map[string]any{"k": "in time"}, resp.Executions[0].State)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, progress)
}

type limitArgs struct {
	N int `json:"n" jsonschema:"maximum=5"`
}

// customTool is a Tool of a program's own type, as an MCP tool is.
type customTool struct{ got *[]string }

func (c customTool) Definition() chat.ToolDefinition {
	return chat.ToolDefinition{Name: "limited", Description: "Takes n <= 5",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":5}},"required":["n"]}`)}
}
func (customTool) Metadata() toolcall.Metadata { return toolcall.Metadata{} }
func (c customTool) Call(_ context.Context, args json.RawMessage) (string, error) {
	var in limitArgs
	if err := json.Unmarshal(args, &in); err != nil {
		return "", err
	}
	*c.got = append(*c.got, fmt.Sprint(in.N))
	return "ok", nil
}

type limitMethods struct {
	_   toolcall.Method `tool:"limited" description:"Takes n <= 5"`
	got *[]string
}

func (m limitMethods) Limited(_ context.Context, in limitArgs) string {
	*m.got = append(*m.got, fmt.Sprint(in.N))
	return "ok"
}

// overwrite writes 9 over the digit of the arguments, in place.
func overwrite(args []byte) {
	if i := strings.IndexByte(string(args), '3'); i >= 0 {
		args[i] = '9'
	}
}

// TestNothingChangesCheckedArguments: middleware, an approver and a
// BeforeTool hook that write over the arguments' bytes change neither
// what the tool gets nor the history, for every kind of tool.
func TestNothingChangesCheckedArguments(t *testing.T) {
	t.Parallel()
	kinds := map[string]func(got *[]string) toolcall.Tool{
		"NewFunc": func(got *[]string) toolcall.Tool {
			return toolcall.MustFunc("limited", "Takes n <= 5", func(_ context.Context, in limitArgs) (string, error) {
				*got = append(*got, fmt.Sprint(in.N))
				return "ok", nil
			})
		},
		"NewMethod": func(got *[]string) toolcall.Tool {
			tool, err := toolcall.NewMethod(limitMethods{got: got}, "Limited", toolcall.WithName("limited"))
			if err != nil {
				panic(err)
			}
			return tool
		},
		"NewTool": func(got *[]string) toolcall.Tool {
			tool, err := toolcall.NewTool(customTool{}.Definition(), customTool{got: got}.Call)
			if err != nil {
				panic(err)
			}
			return tool
		},
		"own Tool type": func(got *[]string) toolcall.Tool { return customTool{got: got} },
	}
	observers := map[string]toolcall.ClientOption{
		"middleware": toolcall.WithMiddleware(func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
			overwrite(call.Arguments)
			return next(ctx)
		}),
		"approver": toolcall.WithApprover(func(_ context.Context, call chat.ToolCall, _ toolcall.Metadata) toolcall.Decision {
			overwrite(call.Arguments)
			return toolcall.Decision{Allow: true}
		}),
		"BeforeTool": toolcall.WithHooks(toolcall.Hooks{BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			overwrite(call.Arguments)
			return ctx
		}}),
	}
	for kind, mk := range kinds {
		for obs, opt := range observers {
			t.Run(kind+"/"+obs, func(t *testing.T) {
				t.Parallel()
				var got []string
				model := tt.NewModel(tt.ToolCalls(tt.Call("1", "limited", `{"n":3}`)), tt.Text("done"))
				resp, err := toolcall.NewClient(model, toolcall.WithTools(mk(&got)), opt).Prompt("go").Call(context.Background())
				require.NoError(t, err)
				require.False(t, resp.Executions[0].IsError, resp.Executions[0].Result)
				assert.Equal(t, []string{"3"}, got, "the tool got the checked arguments")
				assert.JSONEq(t, `{"n":3}`, string(resp.History[1].ToolCalls[0].Arguments), "the history keeps them")
				assert.JSONEq(t, `{"n":3}`, string(resp.Executions[0].Call.Arguments))
				assert.JSONEq(t, `{"n":3}`, string(model.Requests()[1].Messages[1].ToolCalls[0].Arguments), "the model is sent them back")
			})
		}
	}
}

// TestNoGoroutineOutlivesACall: right after Execute, Call and Stream
// return, no goroutine they started is alive, without waiting or
// retrying, over 1,000 calls, with GOMAXPROCS 1 too. With one P the count
// of goroutines is exact. With more, a worker that signalled its end may
// still be returning from its last frame (no Go program can observe a
// goroutine's exit), so there every goroutine is checked to run no code of
// the library or of the tool.
func TestNoGoroutineOutlivesACall(t *testing.T) {
	// Not parallel: it looks at every goroutine of the process.
	slow := toolcall.MustFunc("slow", "Yields", func(ctx context.Context, _ struct{}) (string, error) {
		runtime.Gosched()
		return "ok", nil
	})
	calls := make([]chat.ToolCall, 4)
	for i := range calls {
		calls[i] = tt.Call(fmt.Sprint("c", i), "slow", `{}`)
	}
	reply := &chat.Response{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: calls}, FinishReason: chat.FinishToolCalls}
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("go")}}
	m := toolcall.NewManager()
	for _, procs := range []int{1, max(runtime.GOMAXPROCS(0), 2)} {
		prev := runtime.GOMAXPROCS(procs)
		base := runtime.NumGoroutine()
		check := func(what string, i int) {
			if procs == 1 {
				// Fewer is no leak: a goroutine of an earlier test ended, and
				// the count from then on is the base.
				n := runtime.NumGoroutine()
				if n > base {
					runtime.GOMAXPROCS(prev)
					t.Fatalf("GOMAXPROCS 1, %s %d: %d goroutines after it returned, %d before", what, i, n, base)
				}
				base = n
				return
			}
			buf := make([]byte, 1<<20)
			all := strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
			for _, g := range all[1:] { // all[0] is this goroutine
				if strings.Contains(g, "testing.tRunner(") {
					continue // a test's own goroutine, such as a parallel test waiting for its turn
				}
				if strings.Contains(g, "github.com/toolcall-go/toolcall.") || strings.Contains(g, "TestNoGoroutineOutlivesACall") {
					runtime.GOMAXPROCS(prev)
					t.Fatalf("GOMAXPROCS %d, %s %d: a goroutine of the call is alive after it returned:\n%s", procs, what, i, g)
				}
			}
		}
		for i := range 1000 {
			_, err := m.Execute(context.Background(), []toolcall.Tool{slow}, req, reply)
			require.NoError(t, err)
			check("Execute", i)
		}
		for i := range 100 {
			model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("done"), tt.ToolCalls(calls...), tt.Text("done"))
			client := toolcall.NewClient(model, toolcall.WithTools(slow))
			_, err := client.Prompt("go").Call(context.Background())
			require.NoError(t, err)
			check("Call", i)
			for _, err := range client.Prompt("go").Stream(context.Background()) {
				require.NoError(t, err)
			}
			check("Stream", i)
		}
		runtime.GOMAXPROCS(prev)
	}
}

type nilModel struct{}

func (*nilModel) Chat(context.Context, *chat.Request) (*chat.Response, error) {
	return nil, nil
}

// TestNilContextAndNilModel: errors that say so, not panics.
func TestNilContextAndNilModel(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context
	client := toolcall.NewClient(tt.NewModel(tt.Text("hi")))
	_, err := client.Prompt("hi").Call(nilCtx)
	require.EqualError(t, err, "toolcall: nil context")
	for _, err := range client.Prompt("hi").Stream(nilCtx) {
		require.EqualError(t, err, "toolcall: nil context")
	}
	_, err = toolcall.NewManager().Execute(nilCtx, nil, &chat.Request{}, &chat.Response{})
	require.EqualError(t, err, "toolcall: Execute: nil context")

	var typed *nilModel
	_, err = toolcall.NewClient(typed).Prompt("hi").Call(context.Background())
	require.EqualError(t, err, "toolcall: the Client has no model (NewClient was given a nil *toolcall_test.nilModel)")
	for _, err := range toolcall.NewClient(typed).Prompt("hi").Stream(context.Background()) {
		require.Error(t, err)
	}
}
