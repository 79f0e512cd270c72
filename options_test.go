package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// optModel is a ChatModel whose script is replaced per call, so that one
// Client can make several calls, each with a script of its own.
type optModel struct {
	mu  sync.Mutex
	cur *tt.Model
}

func (m *optModel) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	m.mu.Lock()
	cur := m.cur
	m.mu.Unlock()
	return cur.Chat(ctx, req)
}

func (m *optModel) script(replies ...tt.Reply) *tt.Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cur = tt.NewModel(replies...)
	return m.cur
}

// optResult is what one Client call gave.
type optResult struct {
	resp *toolcall.Response
	err  error
	reqs []*chat.Request
}

// optCall is one Client call of a row: with on, the option is in effect
// and check asserts its effect; without, check asserts the default.
type optCall struct {
	script []tt.Reply
	prompt func(*toolcall.Prompt) *toolcall.Prompt
	check  func(t *testing.T, r optResult)
}

// optExec is one Manager.Execute of a row.
type optExec struct {
	tc    map[string]any // the tool context of Execute's ctx
	tools []toolcall.Tool
	calls []chat.ToolCall
	check func(t *testing.T, ex *toolcall.Response, err error)
}

type optRow struct {
	name string
	opt  toolcall.ClientOption
	base []toolcall.ClientOption // given to NewClient on every path
	call func(t *testing.T, on bool) optCall
	exec func(t *testing.T, on bool) optExec // ManagerOptions only
}

func optPing(runs *atomic.Int32) toolcall.Tool {
	return toolcall.MustFunc("ping", "Ping", func(context.Context, struct{}) (string, error) {
		if runs != nil {
			runs.Add(1)
		}
		return "pong", nil
	})
}

// optOneTool is the common shape of an execution option's row: the model
// calls tool once with args, then answers "done"; check sees the execution.
func optOneTool(tool toolcall.Tool, args string, check func(t *testing.T, e toolcall.ToolExecution)) (func(t *testing.T, on bool) optCall, func(t *testing.T, on bool) optExec) {
	name := tool.Definition().Name
	call := func(*testing.T, bool) optCall {
		return optCall{
			script: []tt.Reply{tt.ToolCalls(tt.Call("c1", name, args)), tt.Text("done")},
			prompt: func(p *toolcall.Prompt) *toolcall.Prompt { return p.Tools(tool) },
			check: func(t *testing.T, r optResult) {
				require.NoError(t, r.err)
				require.Len(t, r.resp.Executions, 1)
				assertValidHistory(t, r.resp.History)
				check(t, r.resp.Executions[0])
			},
		}
	}
	exec := func(*testing.T, bool) optExec {
		return optExec{
			tools: []toolcall.Tool{tool},
			calls: []chat.ToolCall{tt.Call("c1", name, args)},
			check: func(t *testing.T, ex *toolcall.Response, err error) {
				require.NoError(t, err)
				require.Len(t, ex.Executions, 1)
				check(t, ex.Executions[0])
			},
		}
	}
	return call, exec
}

// optBarrierStep is a tool whose calls count how many run at once. When
// wait is set, each call waits (with a generous timeout, never reached
// when the calls overlap) until n calls have started.
func optBarrierStep(n int, wait bool) (toolcall.Tool, *atomic.Int32) {
	var running, peak, started atomic.Int32
	gate := make(chan struct{})
	tool := toolcall.MustFunc("step", "One step", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		r := running.Add(1)
		for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
		}
		if started.Add(1) == int32(n) {
			close(gate)
		}
		if wait {
			select {
			case <-gate:
			case <-time.After(10 * time.Second):
			}
		}
		running.Add(-1)
		return in.N, nil
	})
	return tool, &peak
}

func optSteps(n int) []chat.ToolCall {
	var calls []chat.ToolCall
	for i := range n {
		calls = append(calls, tt.Call(fmt.Sprint("s", i), "step", fmt.Sprintf(`{"n":%d}`, i)))
	}
	return calls
}

func optRows() []optRow {
	offered := func(t *testing.T, r optResult, on bool) {
		t.Helper()
		require.NoError(t, r.err)
		require.Len(t, r.reqs, 1)
		if on {
			assert.Equal(t, []string{"ping"}, toolNames(r.reqs[0].Tools))
		} else {
			assert.Empty(t, r.reqs[0].Tools)
		}
	}
	var registry toolcall.Registry
	if err := registry.Register(optPing(nil)); err != nil {
		panic(err)
	}
	notRun := func(t *testing.T, on bool) optCall {
		var runs atomic.Int32
		ping := optPing(&runs)
		return optCall{
			script: []tt.Reply{tt.ToolCalls(tt.Call("c1", "ping", `{}`)), tt.Text("done")},
			prompt: func(p *toolcall.Prompt) *toolcall.Prompt { return p.Tools(ping) },
			check: func(t *testing.T, r optResult) {
				require.NoError(t, r.err)
				if on {
					assert.Zero(t, runs.Load())
					assert.Len(t, r.reqs, 1)
					assert.Empty(t, r.resp.Executions)
					assert.Len(t, r.resp.Message.ToolCalls, 1, "the calls are returned untouched")
				} else {
					assert.EqualValues(t, 1, runs.Load())
					assert.Len(t, r.reqs, 2)
					assert.Equal(t, "done", r.resp.Content())
				}
			},
		}
	}
	rows := []optRow{
		{name: "WithMaxIterations", opt: toolcall.WithMaxIterations(1), call: func(t *testing.T, on bool) optCall {
			ping := optPing(nil)
			return optCall{
				script: []tt.Reply{tt.ToolCalls(tt.Call("c1", "ping", `{}`)), tt.ToolCalls(tt.Call("c2", "ping", `{}`)), tt.Text("done")},
				prompt: func(p *toolcall.Prompt) *toolcall.Prompt { return p.Tools(ping) },
				check: func(t *testing.T, r optResult) {
					if on {
						require.ErrorIs(t, r.err, toolcall.ErrMaxIterations)
						assert.Len(t, r.resp.Executions, 1)
						assertValidHistory(t, r.resp.History)
					} else {
						require.NoError(t, r.err)
						assert.Equal(t, "done", r.resp.Content())
					}
				},
			}
		}},
		{name: "WithTools", opt: toolcall.WithTools(optPing(nil)), call: func(t *testing.T, on bool) optCall {
			return optCall{script: []tt.Reply{tt.Text("done")}, check: func(t *testing.T, r optResult) { offered(t, r, on) }}
		}},
		{name: "WithRegistry", opt: toolcall.WithRegistry(&registry), call: func(t *testing.T, on bool) optCall {
			return optCall{
				script: []tt.Reply{tt.Text("done")},
				prompt: func(p *toolcall.Prompt) *toolcall.Prompt { return p.ToolNames("ping") },
				check: func(t *testing.T, r optResult) {
					if on {
						offered(t, r, true)
					} else {
						require.ErrorIs(t, r.err, toolcall.ErrToolNotFound)
						assert.Empty(t, r.reqs)
					}
				},
			}
		}},
		{name: "WithToolset", opt: toolcall.WithToolset(toolsetFunc(func(context.Context, *chat.Request) ([]toolcall.Tool, error) {
			return []toolcall.Tool{optPing(nil)}, nil
		})), call: func(t *testing.T, on bool) optCall {
			return optCall{script: []tt.Reply{tt.Text("done")}, check: func(t *testing.T, r optResult) { offered(t, r, on) }}
		}},
		{name: "WithEligibility", opt: toolcall.WithEligibility(func(*chat.Response) bool { return false }), call: notRun},
	}

	// Execution options: each row runs on the client paths and through
	// NewManager + Execute.
	concCheck := func(t *testing.T, on bool, peak *atomic.Int32, execs []toolcall.ToolExecution) {
		t.Helper()
		if on {
			assert.EqualValues(t, 1, peak.Load(), "one call at a time")
		} else {
			assert.EqualValues(t, 3, peak.Load(), "all three calls at once by default")
		}
		for i, e := range execs {
			assert.Equal(t, fmt.Sprint(i), e.Result, "results in call order")
		}
	}
	rows = append(rows, optRow{name: "WithLimits/Concurrency", opt: toolcall.WithLimits(toolcall.Limits{Concurrency: 1}),
		call: func(t *testing.T, on bool) optCall {
			step, peak := optBarrierStep(3, !on)
			return optCall{
				script: []tt.Reply{tt.ToolCalls(optSteps(3)...), tt.Text("done")},
				prompt: func(p *toolcall.Prompt) *toolcall.Prompt { return p.Tools(step) },
				check: func(t *testing.T, r optResult) {
					require.NoError(t, r.err)
					concCheck(t, on, peak, r.resp.Executions)
				},
			}
		},
		exec: func(t *testing.T, on bool) optExec {
			step, peak := optBarrierStep(3, !on)
			return optExec{tools: []toolcall.Tool{step}, calls: optSteps(3), check: func(t *testing.T, ex *toolcall.Response, err error) {
				require.NoError(t, err)
				concCheck(t, on, peak, ex.Executions)
			}}
		},
	})

	failing := toolcall.MustFunc("fail", "Fails", func(context.Context, struct{}) (string, error) { return "", errors.New("boom") })

	type oneTool struct {
		name  string
		opt   toolcall.ManagerOption
		tool  toolcall.Tool
		args  string
		check func(t *testing.T, on bool, e toolcall.ToolExecution)
	}
	type nested struct {
		V [][]int `json:"v"`
	}
	for _, o := range []oneTool{
		{"WithToolErrorHandler", toolcall.WithToolErrorHandler(func(_ context.Context, te *toolcall.ToolError) (string, error) {
			return "handled: " + te.Name, nil
		}), failing, `{}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.True(t, e.IsError)
			assert.Equal(t, map[bool]string{true: "handled: fail", false: "boom"}[on], e.Result)
		}},
		{"WithToolErrorHandler/unknown tool", toolcall.WithToolErrorHandler(func(ctx context.Context, te *toolcall.ToolError) (string, error) {
			if errors.Is(te, toolcall.ErrToolNotFound) {
				return "no such tool: " + te.Name, nil
			}
			return toolcall.DefaultToolErrorHandler(ctx, te)
		}), optPing(nil), `{}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.Equal(t, "pong", e.Result, "a tool that exists is not the handler's")
		}},
		{"WithLimits/ToolTimeout", toolcall.WithLimits(toolcall.Limits{ToolTimeout: 10 * time.Millisecond}), toolcall.MustFunc("wait", "Waits for its deadline", func(ctx context.Context, _ struct{}) (string, error) {
			if _, ok := ctx.Deadline(); !ok {
				return "no deadline", nil
			}
			<-ctx.Done()
			return "", ctx.Err()
		}), `{}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.Equal(t, on, e.IsError)
			assert.Equal(t, map[bool]string{true: "timed out after 10ms: context deadline exceeded", false: "no deadline"}[on], e.Result)
		}},
		{"WithLimits/MaxArgumentBytes", toolcall.WithLimits(toolcall.Limits{MaxArgumentBytes: 8}), toolcall.MustFunc("echo", "Echo", func(_ context.Context, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		}), `{"text":"0123456789"}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.Equal(t, on, e.IsError)
			if on {
				assert.Contains(t, e.Result, "arguments are 21 bytes long, the limit is 8")
			} else {
				assert.Equal(t, "0123456789", e.Result)
			}
		}},
		{"WithLimits/MaxArgumentDepth", toolcall.WithLimits(toolcall.Limits{MaxArgumentDepth: 2}), toolcall.MustFunc("nest", "Nested", func(_ context.Context, in nested) (int, error) {
			return len(in.V), nil
		}), `{"v":[[1]]}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.Equal(t, on, e.IsError)
			if on {
				assert.Contains(t, e.Result, "nest more than 2 levels deep")
			} else {
				assert.Equal(t, "1", e.Result)
			}
		}},
		{"WithLimits/MaxResultBytes", toolcall.WithLimits(toolcall.Limits{MaxResultBytes: 4}), toolcall.MustFunc("long", "Long", func(context.Context, struct{}) (string, error) {
			return "0123456789", nil
		}), `{}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.Equal(t, map[bool]string{true: "0123\n[truncated: result was 10 bytes, limit 4]", false: "0123456789"}[on], e.Result)
		}},
		{"WithMiddleware", toolcall.WithMiddleware(func(ctx context.Context, _ chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
			s, err := next(ctx)
			return "[" + s + "]", err
		}), optPing(nil), `{}`, func(t *testing.T, on bool, e toolcall.ToolExecution) {
			assert.Equal(t, map[bool]string{true: "[pong]", false: "pong"}[on], e.Result)
		}},
	} {
		rows = append(rows, optRow{name: o.name, opt: o.opt,
			call: func(t *testing.T, on bool) optCall {
				c, _ := optOneTool(o.tool, o.args, func(t *testing.T, e toolcall.ToolExecution) { o.check(t, on, e) })
				return c(t, on)
			},
			exec: func(t *testing.T, on bool) optExec {
				_, x := optOneTool(o.tool, o.args, func(t *testing.T, e toolcall.ToolExecution) { o.check(t, on, e) })
				return x(t, on)
			},
		})
	}

	type strictArgs struct {
		City string `json:"city"`
		Unit string `json:"unit,omitempty"`
	}
	strictTool := toolcall.MustFunc("w", "Weather", func(_ context.Context, in strictArgs) (string, error) { return in.City + in.Unit, nil })
	strictCheck := func(t *testing.T, on bool, e toolcall.ToolExecution) {
		t.Helper()
		assert.Equal(t, !on, e.IsError, "null for an optional field is accepted exactly in the strict variant: %s", e.Result)
		if on {
			assert.Equal(t, "Oslo", e.Result)
		}
	}
	rows = append(rows, optRow{name: "WithStrictTools", opt: toolcall.WithStrictTools(),
		call: func(t *testing.T, on bool) optCall {
			c, _ := optOneTool(strictTool, `{"city":"Oslo","unit":null}`, func(t *testing.T, e toolcall.ToolExecution) { strictCheck(t, on, e) })
			oc := c(t, on)
			inner := oc.check
			oc.check = func(t *testing.T, r optResult) {
				inner(t, r)
				require.NotEmpty(t, r.reqs)
				assert.Equal(t, on, r.reqs[0].Tools[0].Strict)
			}
			return oc
		},
		exec: func(t *testing.T, on bool) optExec {
			_, x := optOneTool(strictTool, `{"city":"Oslo","unit":null}`, func(t *testing.T, e toolcall.ToolExecution) { strictCheck(t, on, e) })
			return x(t, on)
		},
	})

	rows = append(rows, hooksRow())
	return rows
}

// hooksRow checks WithHooks: every hook is called on the client paths, and
// the tool hooks through a Manager. The hooks find the run's counters in
// the tool context, so one option value serves every run.
func hooksRow() optRow {
	type counters struct{ call, model, tool atomic.Int32 }
	from := func(ctx context.Context) *counters {
		c, _ := toolcall.ToolContextFrom(ctx).Value("hooks").(*counters)
		return c
	}
	hooks := toolcall.Hooks{
		BeforeCall: func(ctx context.Context, _ *chat.Request) context.Context {
			from(ctx).call.Add(1)
			return ctx
		},
		AfterCall:   func(ctx context.Context, _ *toolcall.Response, _ error) { from(ctx).call.Add(1) },
		BeforeModel: func(ctx context.Context, _ *chat.Request) context.Context { from(ctx).model.Add(1); return ctx },
		AfterModel:  func(ctx context.Context, _ toolcall.ModelCall) { from(ctx).model.Add(1) },
		BeforeTool:  func(ctx context.Context, _ chat.ToolCall) context.Context { from(ctx).tool.Add(1); return ctx },
		AfterTool:   func(ctx context.Context, _ toolcall.ToolExecution) { from(ctx).tool.Add(1) },
	}
	return optRow{name: "WithHooks", opt: toolcall.WithHooks(hooks),
		call: func(t *testing.T, on bool) optCall {
			c := &counters{}
			ping := optPing(nil)
			return optCall{
				script: []tt.Reply{tt.ToolCalls(tt.Call("c1", "ping", `{}`)), tt.Text("done")},
				prompt: func(p *toolcall.Prompt) *toolcall.Prompt {
					return p.Tools(ping).ToolContext(map[string]any{"hooks": c})
				},
				check: func(t *testing.T, r optResult) {
					require.NoError(t, r.err)
					n := map[bool]int32{true: 1, false: 0}[on]
					assert.Equal(t, [3]int32{2 * n, 4 * n, 2 * n}, [3]int32{c.call.Load(), c.model.Load(), c.tool.Load()}, "call, model and tool hooks")
				},
			}
		},
		exec: func(t *testing.T, on bool) optExec {
			c := &counters{}
			tool := toolcall.MustFunc("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil })
			return optExec{tc: map[string]any{"hooks": c}, tools: []toolcall.Tool{tool}, calls: []chat.ToolCall{tt.Call("c1", "ping", `{}`)},
				check: func(t *testing.T, ex *toolcall.Response, err error) {
					require.NoError(t, err)
					require.Len(t, ex.Executions, 1)
					n := map[bool]int32{true: 1, false: 0}[on]
					assert.Equal(t, [3]int32{0, 0, 2 * n}, [3]int32{c.call.Load(), c.model.Load(), c.tool.Load()}, "a Manager calls the tool hooks only")
				}}
		},
	}
}

// optTools holds the method tools of the tool option rows.
type optTools struct{}

type optArgs struct {
	N    int    `json:"n"`
	Unit string `json:"unit,omitempty"`
}

// optBase is the body of the "base" tool on every constructor: it waits
// for its deadline when it has one (to show a timeout), else reports n.
func optBase(ctx context.Context, in optArgs) (string, error) {
	if _, ok := ctx.Deadline(); ok {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return fmt.Sprintf("n=%d", in.N), nil
}

func (optTools) Base(ctx context.Context, in optArgs) (string, error) { return optBase(ctx, in) }
func (optTools) Pair(a int, b string) string                          { return fmt.Sprint(b, a) }

func optBuild(ctor string, opts ...toolcall.ToolOption) (toolcall.Tool, error) {
	switch ctor {
	case "NewFunc":
		return toolcall.NewFunc("base", "Base tool", optBase, opts...)
	case "NewMethod":
		return toolcall.NewMethod(optTools{}, "Base", append([]toolcall.ToolOption{toolcall.WithName("base"), toolcall.WithDescription("Base tool")}, opts...)...)
	}
	return toolcall.NewTool(chat.ToolDefinition{Name: "base", Description: "Base tool",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"unit":{"type":"string"}},"required":["n"],"additionalProperties":false}`)},
		func(ctx context.Context, args json.RawMessage) (string, error) {
			var in optArgs
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			return optBase(ctx, in)
		}, opts...)
}

// optRunTool executes one call of tool through a Manager.
func optRunTool(t *testing.T, tool toolcall.Tool, name, args string) (*toolcall.Response, toolcall.ToolExecution) {
	t.Helper()
	ex, err := toolcall.NewManager().Execute(context.Background(), []toolcall.Tool{tool},
		&chat.Request{Messages: []chat.Message{chat.UserMessage("go")}},
		&chat.Response{Message: chat.AssistantMessage("", tt.Call("c1", name, args))})
	require.NoError(t, err)
	require.Len(t, ex.Executions, 1)
	return ex, ex.Executions[0]
}

type toolOptRow struct {
	name  string
	opt   toolcall.ToolOption
	ctors []string // the constructors the option applies to
	build func(ctor string, opts ...toolcall.ToolOption) (toolcall.Tool, error)
	check func(t *testing.T, on bool, tool toolcall.Tool, err error)
}

func toolOptRows() []toolOptRow {
	all := []string{"NewFunc", "NewMethod", "NewTool"}
	ok := func(t *testing.T, err error) {
		t.Helper()
		require.NoError(t, err)
	}
	pick := func(on bool, yes, no string) string {
		if on {
			return yes
		}
		return no
	}
	return []toolOptRow{
		{"WithName", toolcall.WithName("renamed"), all, nil, func(t *testing.T, on bool, tool toolcall.Tool, err error) {
			ok(t, err)
			name := pick(on, "renamed", "base")
			assert.Equal(t, name, tool.Definition().Name)
			_, e := optRunTool(t, tool, name, `{"n":1}`)
			assert.Equal(t, "n=1", e.Result)
		}},
		{"WithDescription", toolcall.WithDescription("Custom"), all, nil, func(t *testing.T, on bool, tool toolcall.Tool, err error) {
			ok(t, err)
			assert.Equal(t, pick(on, "Custom", "Base tool"), tool.Definition().Description)
		}},
		{"WithInputSchema", toolcall.WithInputSchema(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`)), all, nil,
			func(t *testing.T, on bool, tool toolcall.Tool, err error) {
				ok(t, err)
				assert.Equal(t, on, strings.Contains(string(tool.Definition().InputSchema), `"maximum":3`))
				_, e := optRunTool(t, tool, "base", `{"n":5}`)
				assert.Equal(t, on, e.IsError, "the given schema is enforced: %s", e.Result)
			}},
		{"WithReturnDirect", toolcall.WithReturnDirect(true), all, nil, func(t *testing.T, on bool, tool toolcall.Tool, err error) {
			ok(t, err)
			assert.Equal(t, on, tool.Metadata().ReturnDirect)
			ex, _ := optRunTool(t, tool, "base", `{"n":1}`)
			assert.Equal(t, on, ex.ReturnedDirect)
		}},
		{"WithTimeout", toolcall.WithTimeout(10 * time.Millisecond), all, nil, func(t *testing.T, on bool, tool toolcall.Tool, err error) {
			ok(t, err)
			assert.Equal(t, map[bool]time.Duration{true: 10 * time.Millisecond}[on], tool.Metadata().Timeout)
			_, e := optRunTool(t, tool, "base", `{"n":1}`)
			assert.Equal(t, pick(on, "timed out after 10ms: context deadline exceeded", "n=1"), e.Result)
		}},
		{"WithStrict", toolcall.WithStrict(true), all, nil, func(t *testing.T, on bool, tool toolcall.Tool, err error) {
			ok(t, err)
			def := tool.Definition()
			assert.Equal(t, on, def.Strict)
			var schema struct {
				Required []string `json:"required"`
			}
			require.NoError(t, json.Unmarshal(def.InputSchema, &schema))
			if on {
				assert.ElementsMatch(t, []string{"n", "unit"}, schema.Required, "the strict variant lists every property as required")
			} else {
				assert.Equal(t, []string{"n"}, schema.Required)
			}
			_, e := optRunTool(t, tool, "base", `{"n":1,"unit":null}`)
			assert.Equal(t, !on, e.IsError, "null for an optional field is accepted exactly in the strict variant: %s", e.Result)
		}},
		{"WithConverter", toolcall.WithConverter(func(v any) (string, error) { return fmt.Sprint("conv:", v), nil }), []string{"NewFunc", "NewMethod"}, nil,
			func(t *testing.T, on bool, tool toolcall.Tool, err error) {
				ok(t, err)
				_, e := optRunTool(t, tool, "base", `{"n":1}`)
				assert.Equal(t, pick(on, "conv:n=1", "n=1"), e.Result)
			}},
		{"WithParams", toolcall.WithParams("count", "label?: a label"), []string{"NewMethod"},
			func(_ string, opts ...toolcall.ToolOption) (toolcall.Tool, error) {
				return toolcall.NewMethod(optTools{}, "Pair", opts...)
			},
			func(t *testing.T, on bool, tool toolcall.Tool, err error) {
				if !on {
					require.ErrorIs(t, err, toolcall.ErrInvalidTool, "several parameters need names")
					return
				}
				ok(t, err)
				_, e := optRunTool(t, tool, "Pair", `{"count":2,"label":"x"}`)
				assert.Equal(t, "x2", e.Result)
			}},
	}
}

func TestEveryOptionTakesEffect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	call := func(t *testing.T, m *optModel, c *toolcall.Client, row optRow, on, stream bool) {
		t.Helper()
		oc := row.call(t, on)
		model := m.script(oc.script...)
		p := c.Prompt("go")
		if oc.prompt != nil {
			p = oc.prompt(p)
		}
		var r optResult
		if stream {
			for ev, err := range p.Stream(ctx) {
				if err != nil || ev.Kind == toolcall.EventDone {
					r.resp, r.err = ev.Response, err
				}
			}
		} else {
			r.resp, r.err = p.Call(ctx)
		}
		r.reqs = model.Requests()
		oc.check(t, r)
	}
	execute := func(t *testing.T, mgr *toolcall.Manager, row optRow, on bool) {
		t.Helper()
		x := row.exec(t, on)
		ectx := ctx
		if x.tc != nil {
			ectx = toolcall.ContextWithToolContext(ctx, toolcall.NewToolContext(x.tc))
		}
		ex, err := mgr.Execute(ectx, x.tools,
			&chat.Request{Messages: []chat.Message{chat.UserMessage("go")}},
			&chat.Response{Message: chat.AssistantMessage("", x.calls...)})
		require.NotNil(t, ex)
		x.check(t, ex, err)
	}

	rows := optRows()
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			paths := map[string]func(t *testing.T){
				"NewClient": func(t *testing.T) {
					m := &optModel{}
					call(t, m, toolcall.NewClient(m, append(append([]toolcall.ClientOption(nil), row.base...), row.opt)...), row, true, false)
					call(t, m, toolcall.NewClient(m, row.base...), row, false, false)
				},
				"Client.With": func(t *testing.T) {
					m := &optModel{}
					base := toolcall.NewClient(m, row.base...)
					call(t, m, base.With(row.opt), row, true, false)
					call(t, m, base, row, false, false) // the receiver is unchanged
				},
				"Client.With/Stream": func(t *testing.T) {
					m := &optModel{}
					base := toolcall.NewClient(m, row.base...)
					call(t, m, base.With(row.opt), row, true, true)
					call(t, m, base, row, false, true)
				},
			}
			if row.exec != nil {
				mo, ok := row.opt.(toolcall.ManagerOption)
				require.True(t, ok, "a row with an Execute check is a ManagerOption")
				paths["NewManager"] = func(t *testing.T) {
					execute(t, toolcall.NewManager(mo), row, true)
					execute(t, toolcall.NewManager(), row, false)
				}
				paths["Client.Manager"] = func(t *testing.T) {
					execute(t, toolcall.NewClient(nil, mo).Manager(), row, true)
					execute(t, toolcall.NewClient(nil).With(mo).Manager(), row, true)
					execute(t, toolcall.NewClient(nil).Manager(), row, false)
				}
			} else {
				_, isManager := row.opt.(toolcall.ManagerOption)
				assert.False(t, isManager, "a ManagerOption needs an Execute check")
			}
			for name, run := range paths {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					run(t)
				})
			}
		})
	}

	for _, row := range toolOptRows() {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			build := row.build
			if build == nil {
				build = optBuild
			}
			for _, ctor := range row.ctors {
				t.Run(ctor, func(t *testing.T) {
					t.Parallel()
					tool, err := build(ctor, row.opt)
					row.check(t, true, tool, err)
					tool, err = build(ctor)
					row.check(t, false, tool, err)
				})
			}
		})
	}
}

// TestEveryPromptMethodTakesEffect: each Prompt method sets a value of its
// own call only, on Call and on Stream.
func TestEveryPromptMethodTakesEffect(t *testing.T) {
	t.Parallel()
	temp := 0.25
	var registry toolcall.Registry
	require.NoError(t, registry.Register(optPing(nil)))
	tenant := toolcall.MustFunc("tenant", "Tenant", func(ctx context.Context, _ struct{}) (string, error) {
		return fmt.Sprint(toolcall.ToolContextFrom(ctx).Value("tenant")), nil
	})
	rows := []struct {
		name  string
		set   func(*toolcall.Prompt) *toolcall.Prompt
		check func(t *testing.T, on bool, req *chat.Request, resp *toolcall.Response)
	}{
		{"System", func(p *toolcall.Prompt) *toolcall.Prompt { return p.System("Be brief.") },
			func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
				assert.Equal(t, on, req.Messages[0].Role == chat.RoleSystem && req.Messages[0].Content == "Be brief.")
			}},
		{"Messages", func(p *toolcall.Prompt) *toolcall.Prompt { return p.Messages(chat.AssistantMessage("earlier")) },
			func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
				assert.Len(t, req.Messages, map[bool]int{true: 2, false: 1}[on])
			}},
		{"Tools", func(p *toolcall.Prompt) *toolcall.Prompt { return p.Tools(optPing(nil)) },
			func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
				assert.Equal(t, on, len(req.Tools) == 1)
			}},
		{"ToolNames", func(p *toolcall.Prompt) *toolcall.Prompt { return p.ToolNames("ping") },
			func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
				assert.Equal(t, on, len(req.Tools) == 1)
			}},
		{"ToolContext", func(p *toolcall.Prompt) *toolcall.Prompt {
			return p.ToolContext(map[string]any{"tenant": "acme"})
		}, func(t *testing.T, on bool, _ *chat.Request, resp *toolcall.Response) {
			require.Len(t, resp.Executions, 1)
			assert.Equal(t, map[bool]string{true: "acme", false: "<nil>"}[on], resp.Executions[0].Result)
		}},
		{"ToolChoice", func(p *toolcall.Prompt) *toolcall.Prompt {
			return p.ToolChoice(chat.ToolChoice{Mode: chat.ToolChoiceNone})
		}, func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
			assert.Equal(t, on, req.ToolChoice.Mode == chat.ToolChoiceNone)
		}},
		{"Options", func(p *toolcall.Prompt) *toolcall.Prompt { return p.Options(chat.Options{Temperature: &temp}) },
			func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
				assert.Equal(t, on, req.Options.Temperature != nil)
			}},
		{"Model", func(p *toolcall.Prompt) *toolcall.Prompt { return p.Model("other") },
			func(t *testing.T, on bool, req *chat.Request, _ *toolcall.Response) {
				assert.Equal(t, map[bool]string{true: "other"}[on], req.Model)
			}},
	}
	for _, row := range rows {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", row.name, stream), func(t *testing.T) {
				t.Parallel()
				m := &optModel{}
				c := toolcall.NewClient(m, toolcall.WithRegistry(&registry))
				for _, on := range []bool{true, false} {
					model := m.script(tt.ToolCalls(tt.Call("c1", "tenant", `{}`)), tt.Text("done"))
					p := c.Prompt("go").Tools(tenant)
					if row.name == "Tools" || row.name == "ToolNames" {
						model = m.script(tt.Text("done"))
						p = c.Prompt("go")
					}
					if on {
						p = row.set(p)
					}
					var resp *toolcall.Response
					var err error
					if stream {
						for ev, e := range p.Stream(context.Background()) {
							if e != nil || ev.Kind == toolcall.EventDone {
								resp, err = ev.Response, e
							}
						}
					} else {
						resp, err = p.Call(context.Background())
					}
					require.NoError(t, err)
					row.check(t, on, model.Requests()[0], resp)
				}
			})
		}
	}
}
