package toolcall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// What is prepared once and reused (issue: performance): a client's
// default tools and their definitions, a toolset's tools while it returns
// the same ones, and the history's arrays; and what must not leak from
// that reuse.

// countedTool counts the calls of its Definition: each preparation of a
// request's tools asks every tool once.
type countedTool struct {
	toolcall.Tool
	asked *atomic.Int64
}

func (c countedTool) Definition() chat.ToolDefinition {
	c.asked.Add(1)
	return c.Tool.Definition()
}

func countedTools(t *testing.T, n int, asked *atomic.Int64) []toolcall.Tool {
	t.Helper()
	return namedTools(t, "tool", n, asked)
}

func namedTools(t *testing.T, prefix string, n int, asked *atomic.Int64) []toolcall.Tool {
	t.Helper()
	tools := make([]toolcall.Tool, n)
	for i := range tools {
		name := fmt.Sprintf("%s_%d", prefix, i)
		tool, err := toolcall.NewFunc(name, "Tool "+name, func(_ context.Context, in struct {
			N int `json:"n"`
		}) (string, error) {
			return fmt.Sprintf("%s:%d", name, in.N), nil
		})
		require.NoError(t, err)
		tools[i] = &countedTool{Tool: tool, asked: asked}
	}
	return tools
}

// answerModel answers every request with text and keeps the requests'
// tool names.
type answerModel struct {
	mu    sync.Mutex
	tools [][]string
}

func (m *answerModel) Chat(_ context.Context, req *chat.Request) (*chat.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools = append(m.tools, toolNames(req.Tools))
	return &chat.Response{Message: chat.AssistantMessage("ok")}, nil
}

func TestDefaultToolsArePreparedOnce(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	tools := countedTools(t, 40, &asked)
	model := &answerModel{}
	client := toolcall.NewClient(model, toolcall.WithTools(tools))
	var wg sync.WaitGroup
	for range 8 { // concurrent first calls prepare the tools once
		wg.Go(func() {
			_, err := client.Prompt("go").Call(context.Background())
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.EqualValues(t, 40, asked.Load(), "each tool's definition is asked once")
	for range 3 {
		_, err := client.Prompt("go").Call(context.Background())
		require.NoError(t, err)
	}
	assert.EqualValues(t, 40, asked.Load())
	require.Len(t, model.tools, 11)
	for _, names := range model.tools {
		require.Len(t, names, 40)
		assert.Equal(t, "tool_0", names[0])
		assert.Equal(t, "tool_39", names[39])
	}

	// Another client (With) prepares its own; a prompt's tools replace the
	// defaults for its call.
	other := client.With(toolcall.WithMaxIterations(3))
	_, err := other.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.EqualValues(t, 80, asked.Load())
	_, err = client.Prompt("go").Tools(tools[:2]).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"tool_0", "tool_1"}, model.tools[len(model.tools)-1])
}

func TestToolsCalledInALargeSet(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	tools := countedTools(t, 300, &asked)
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("1", "tool_7", `{"n":1}`), tt.Call("2", "tool_299", `{"n":2}`), tt.Call("3", "nope", `{}`)),
		tt.ToolCalls(tt.Call("4", "tool_150", `{"n":4}`)),
		tt.Text("done"),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(tools, tools[7])) // tools[7] twice: defined once
	resp, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	require.Len(t, resp.Executions, 4)
	assert.Equal(t, "tool_7:1", resp.Executions[0].Result)
	assert.Equal(t, "tool_299:2", resp.Executions[1].Result)
	assert.True(t, resp.Executions[2].IsError)
	assert.ErrorIs(t, resp.Executions[2].Err, toolcall.ErrToolNotFound)
	assert.Contains(t, resp.Executions[2].Result, `tool "nope" does not exist; available tools: tool_0, tool_1,`)
	assert.Equal(t, "tool_150:4", resp.Executions[3].Result)
	for _, req := range model.Requests() {
		assert.Len(t, req.Tools, 300)
	}
	assertValidHistory(t, resp.History)
}

func TestDuplicateNamesInALargeSet(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	tools := countedTools(t, 50, &asked)
	dup, err := toolcall.NewTool(chat.ToolDefinition{Name: "tool_31", Description: "another"},
		func(context.Context, json.RawMessage) (string, error) { return "", nil })
	require.NoError(t, err)
	defaults := toolcall.NewClient(tt.NewModel(tt.Text("unused")), toolcall.WithTools(tools, dup))
	own := toolcall.NewClient(tt.NewModel(tt.Text("unused")))
	for _, p := range []func() *toolcall.Prompt{
		func() *toolcall.Prompt { return defaults.Prompt("go") },
		func() *toolcall.Prompt { return own.Prompt("go").Tools(tools, dup) },
	} {
		for range 2 { // the error stays, call after call
			_, err := p().Call(context.Background())
			require.ErrorIs(t, err, toolcall.ErrInvalidTool)
			msg := err.Error()
			assert.Contains(t, msg, `"tool_31" is given by *toolcall_test.countedTool and NewTool`, "names both tools")
		}
	}
	_, err = toolcall.NewManager().Definitions(append(tools[:50:50], dup))
	require.ErrorIs(t, err, toolcall.ErrInvalidTool)
	defs, err := toolcall.NewManager().Definitions(append(tools[:50:50], tools...))
	require.NoError(t, err)
	assert.Len(t, defs, 50, "the same tool twice is defined once")
}

func TestToolsetDefinitionsReused(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	base := countedTools(t, 3, &asked)
	offered := namedTools(t, "dyn", 2, &asked)
	var mu sync.Mutex
	ts := toolsetFunc(func(context.Context, *chat.Request) ([]toolcall.Tool, error) {
		mu.Lock()
		defer mu.Unlock()
		return offered, nil
	})
	model := &answerModel{}
	client := toolcall.NewClient(model, toolcall.WithTools(base[0]), toolcall.WithToolset(ts))
	for range 3 {
		_, err := client.Prompt("go").Call(context.Background())
		require.NoError(t, err)
	}
	// Prepared at the first request only: the client's tools, then the
	// set with the toolset's.
	assert.EqualValues(t, 1+3, asked.Load())
	assert.Equal(t, []string{"tool_0", "dyn_0", "dyn_1"}, model.tools[2])

	// The toolset changes its own array: the next request sees the change.
	mu.Lock()
	offered[1] = base[2]
	mu.Unlock()
	_, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"tool_0", "dyn_0", "tool_2"}, model.tools[3])

	// A new slice with the same tools reuses the preparation.
	n := asked.Load()
	mu.Lock()
	offered = append([]toolcall.Tool(nil), offered...)
	mu.Unlock()
	_, err = client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, n, asked.Load())

	// A prompt's own tools with the toolset's.
	_, err = client.Prompt("go").Tools(base[1]).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"tool_1", "dyn_0", "tool_2"}, model.tools[len(model.tools)-1])
}

func TestToolsetDuplicateOfDefaultTool(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	tools := countedTools(t, 2, &asked)
	other := countedTools(t, 1, &asked)
	ts := toolsetFunc(func(context.Context, *chat.Request) ([]toolcall.Tool, error) { return other, nil })
	client := toolcall.NewClient(tt.NewModel(tt.Text("unused")), toolcall.WithTools(tools), toolcall.WithToolset(ts))
	for range 2 {
		_, err := client.Prompt("go").Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidTool)
		assert.Contains(t, err.Error(), `"tool_0" is given by`)
	}
}

func TestEightBlockingCallsOverlap(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 3} {
		var running, peak atomic.Int32
		all := make(chan struct{})
		tool, err := toolcall.NewFunc("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
			r := running.Add(1)
			for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
			}
			if r == 8 {
				close(all)
			}
			select {
			case <-all:
			case <-time.After(50 * time.Millisecond):
			}
			running.Add(-1)
			info, _ := toolcall.CallInfoFrom(ctx)
			return info.ID, nil
		})
		require.NoError(t, err)
		var calls []chat.ToolCall
		for i := range 8 {
			calls = append(calls, tt.Call(fmt.Sprint("c", i), "block", ``))
		}
		model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("ok"))
		resp, err := toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{Concurrency: limit})).
			Prompt("go").Tools(tool).Call(context.Background())
		require.NoError(t, err)
		want := int32(8)
		if limit > 0 {
			want = int32(limit)
		}
		assert.Equal(t, want, peak.Load(), "limit %d", limit)
		require.Len(t, resp.Executions, 8)
		for i, e := range resp.Executions {
			assert.Equal(t, fmt.Sprint("c", i), e.Result, "results in call order")
		}
		assertValidHistory(t, resp.History)
	}
}

func TestAbortStopsTheCallsNotStarted(t *testing.T) {
	t.Parallel()
	var ran atomic.Int32
	fatal := toolcall.MustFunc("fatal", "fails", func(context.Context, struct{}) (string, error) {
		ran.Add(1)
		return "", fmt.Errorf("no: %w", toolcall.ErrFatal)
	})
	var calls []chat.ToolCall
	for i := range 6 {
		calls = append(calls, tt.Call(fmt.Sprint(i), "fatal", ``))
	}
	model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("unused"))
	resp, err := toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{Concurrency: 2})).
		Prompt("go").Tools(fatal).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrFatal)
	require.Len(t, resp.Executions, 6)
	for _, e := range resp.Executions {
		assert.True(t, e.IsError)
	}
	assert.Less(t, ran.Load(), int32(6), "an abort stops the calls not started")
	assertValidHistory(t, resp.History)
}

// scribbler appends to the request's messages it is given, as a model may
// to build its own copy; the loop's history must not see it.
type scribbler struct {
	mu   sync.Mutex
	kept [][]chat.Message
	next []*chat.Response
}

func (m *scribbler) Chat(_ context.Context, req *chat.Request) (*chat.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kept = append(m.kept, append(req.Messages, chat.UserMessage("scribble")))
	r := m.next[0]
	m.next = m.next[1:]
	return r, nil
}

func TestHistoryArraysAreNotShared(t *testing.T) {
	t.Parallel()
	var views [][]chat.Message
	var mu sync.Mutex
	echo := toolcall.MustFunc("echo", "echoes", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		mu.Lock()
		views = append(views, append(info.History, chat.UserMessage("tool scribble")))
		mu.Unlock()
		return fmt.Sprint(in.N), nil
	})
	model := &scribbler{next: []*chat.Response{
		tt.ToolCalls(tt.Call("1", "echo", `{"n":1}`), tt.Call("2", "echo", `{"n":2}`)).Response,
		tt.ToolCalls(tt.Call("3", "echo", `{"n":3}`)).Response,
		{Message: chat.AssistantMessage("done")},
	}}
	resp, err := toolcall.NewClient(model, toolcall.WithTools(echo)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assertValidHistory(t, resp.History)
	require.Len(t, resp.History, 7)
	for _, m := range resp.History {
		assert.NotContains(t, m.Content, "scribble")
	}
	for i, kept := range model.kept {
		assert.Equal(t, "scribble", kept[len(kept)-1].Content, "request %d", i)
		assert.Equal(t, resp.History[:len(kept)-1], kept[:len(kept)-1], "request %d keeps its messages", i)
	}
	for _, v := range views {
		assert.Equal(t, "tool scribble", v[len(v)-1].Content)
		assert.Equal(t, resp.History[:len(v)-1], v[:len(v)-1])
	}
	// The caller may append to the History it gets.
	more := append(resp.History, chat.UserMessage("and now?"))
	assert.Len(t, more, 8)
	assert.Len(t, resp.History, 7)
}

func TestBeforeCallHookReplacesMessages(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "echo", `{}`)), tt.Text("done"))
	echo := toolcall.MustFunc("echo", "echoes", func(context.Context, struct{}) (string, error) { return "e", nil })
	hooks := toolcall.Hooks{BeforeCall: func(ctx context.Context, req *chat.Request) context.Context {
		req.Messages = append([]chat.Message{chat.SystemMessage("be brief")}, req.Messages...)
		return ctx
	}}
	resp, err := toolcall.NewClient(model, toolcall.WithTools(echo), toolcall.WithHooks(hooks)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	require.Len(t, resp.History, 5)
	assert.Equal(t, "be brief", resp.History[0].Content)
	assertValidHistory(t, resp.History)
	assert.Len(t, model.Requests()[1].Messages, 4)
}

func TestResumeTheSamePauseTwice(t *testing.T) {
	t.Parallel()
	l := &ledger{}
	model := tt.NewModel(tt.ToolCalls(tt.Call("t1", "transfer", `{"to":"ana","amount":5}`), tt.Call("b1", "balance", `{}`)))
	client := toolcall.NewClient(model, toolcall.WithTools(bankTools(l)))
	_, err := client.Prompt("send 5 to ana").Call(context.Background())
	var pz *toolcall.Paused
	require.ErrorAs(t, err, &pz)
	history := append([]chat.Message(nil), pz.History...)

	// Two resumes of one Paused at once (the race detector watches): one
	// ends its round in its own history, the other runs nothing, and pz is
	// left as it was.
	var wg sync.WaitGroup
	results := make([]*toolcall.Response, 2)
	errs := make([]error, 2)
	for i := range results {
		wg.Go(func() {
			m := tt.NewModel(tt.Text(fmt.Sprint("resumed ", i)))
			results[i], errs[i] = toolcall.NewClient(m, toolcall.WithTools(bankTools(l))).Prompt().
				Resume(pz, map[string]toolcall.Decision{"t1": {Allow: true}}).Call(context.Background())
		})
	}
	wg.Wait()
	assert.Equal(t, history, pz.History)
	ok := 0
	for i, resp := range results {
		if errs[i] != nil {
			require.ErrorIs(t, errs[i], toolcall.ErrAlreadyResumed)
			continue
		}
		ok++
		assert.Equal(t, fmt.Sprint("resumed ", i), resp.Content())
		assertValidHistory(t, resp.History)
		assert.Len(t, resp.History, len(history)+3)
	}
	assert.Equal(t, 1, ok, "one resume ran")
	assert.Equal(t, 1, l.get()["t1"], "the approved call ran once")
}

func TestExecuteLeavesTheRequestAlone(t *testing.T) {
	t.Parallel()
	echo := toolcall.MustFunc("echo", "echoes", func(context.Context, struct{}) (string, error) { return "e", nil })
	msgs := make([]chat.Message, 1, 16) // room the Manager must not write to
	msgs[0] = chat.UserMessage("go")
	spare := msgs[:16]
	spare[1] = chat.UserMessage("mine")
	req := &chat.Request{Messages: msgs}
	resp, err := toolcall.NewManager().Execute(context.Background(), []toolcall.Tool{echo}, req,
		tt.ToolCalls(tt.Call("1", "echo", ``), tt.Call("2", "echo", ``)).Response)
	require.NoError(t, err)
	assert.Len(t, resp.History, 4)
	assert.Equal(t, "mine", spare[1].Content)
	assert.Equal(t, "go", resp.History[0].Content)
	assertValidHistory(t, resp.History)
}

// boundedTool is a Tool of a program's own type taking n <= 5; it counts
// its runs.
type boundedTool struct{ runs *atomic.Int64 }

func (boundedTool) Definition() chat.ToolDefinition {
	return chat.ToolDefinition{Name: "bounded", Description: "Takes n <= 5",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":5}},"required":["n"]}`)}
}
func (boundedTool) Metadata() toolcall.Metadata { return toolcall.Metadata{} }
func (b boundedTool) Call(context.Context, json.RawMessage) (string, error) {
	b.runs.Add(1)
	return "ok", nil
}

// TestOwnToolsCheckedFromTheirFirstCall: a tool of a program's own type,
// whose schema the set compiles at its first call, is checked from that
// call on, when parallel calls are its first, in the next conversation,
// and in the strict variant.
func TestOwnToolsCheckedFromTheirFirstCall(t *testing.T) {
	t.Parallel()
	for _, strict := range []bool{false, true} {
		var runs atomic.Int64
		var calls []chat.ToolCall
		for i := range 8 {
			calls = append(calls, tt.Call(fmt.Sprint("c", i), "bounded", fmt.Sprintf(`{"n":%d}`, 3+i%2*6)))
		}
		model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("done"), tt.ToolCalls(calls...), tt.Text("done"))
		opts := []toolcall.ClientOption{toolcall.WithTools(boundedTool{&runs}, countedTools(t, 50, new(atomic.Int64)))}
		if strict {
			opts = append(opts, toolcall.WithStrictTools())
		}
		client := toolcall.NewClient(model, opts...)
		for conversation := range 2 {
			resp, err := client.Prompt("go").Call(context.Background())
			require.NoError(t, err)
			require.Len(t, resp.Executions, 8)
			for i, e := range resp.Executions {
				assert.Equal(t, i%2 == 1, e.IsError, "strict %v, conversation %d, call %d: %s", strict, conversation, i, e.Result)
			}
		}
		assert.Equal(t, int64(8), runs.Load(), "strict %v: only the calls within the schema ran", strict)
	}
}
