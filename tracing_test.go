package toolcall_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// fakeTracer records spans and their parents, as a tracing library does
// through the context.
type fakeTracer struct {
	mu    sync.Mutex
	spans []*fakeSpan
}

type fakeSpan struct {
	name   string
	parent *fakeSpan
	ended  bool
}

type spanKey struct{}

func (tr *fakeTracer) start(ctx context.Context, name string) context.Context {
	parent, _ := ctx.Value(spanKey{}).(*fakeSpan)
	s := &fakeSpan{name: name, parent: parent}
	tr.mu.Lock()
	tr.spans = append(tr.spans, s)
	tr.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s)
}

func (tr *fakeTracer) end(ctx context.Context) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	ctx.Value(spanKey{}).(*fakeSpan).ended = true
}

// The hooks carry a call's context: a span per Call, per model round and per
// tool call, the rounds and tool calls children of the Call's span, and the
// tool's own work and its middleware children of its tool-call span, with
// eight tool calls running at once.
func TestHooksCarryTheContext(t *testing.T) {
	t.Parallel()
	const n = 8
	tr := &fakeTracer{}
	var entered sync.WaitGroup
	entered.Add(n)
	work := toolcall.MustFunc("work", "Works", func(ctx context.Context, in struct {
		I int `json:"i"`
	}) (string, error) {
		ctx = tr.start(ctx, "work "+strconv.Itoa(in.I))
		defer tr.end(ctx)
		entered.Done()
		done := make(chan struct{})
		go func() { entered.Wait(); close(done) }()
		select {
		case <-done: // all n calls are running at once
		case <-time.After(10 * time.Second):
			return "", fmt.Errorf("call %d ran alone", in.I)
		}
		return "ok", nil
	})
	calls := make([]chat.ToolCall, n)
	for i := range calls {
		calls[i] = tt.Call("c"+strconv.Itoa(i), "work", `{"i":`+strconv.Itoa(i)+`}`)
	}
	model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("done"))
	client := toolcall.NewClient(model, toolcall.WithHooks(toolcall.Hooks{
		BeforeCall:  func(ctx context.Context, _ *chat.Request) context.Context { return tr.start(ctx, "call") },
		AfterCall:   func(ctx context.Context, _ *toolcall.Response, _ error) { tr.end(ctx) },
		BeforeModel: func(ctx context.Context, req *chat.Request) context.Context { return tr.start(ctx, "model") },
		AfterModel:  func(ctx context.Context, _ toolcall.ModelCall) { tr.end(ctx) },
		BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			return tr.start(ctx, "tool "+call.ID)
		},
		AfterTool: func(ctx context.Context, _ toolcall.ToolExecution) { tr.end(ctx) },
	}), toolcall.WithMiddleware(func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
		ctx = tr.start(ctx, "middleware "+call.ID)
		defer tr.end(ctx)
		return next(ctx)
	}))
	resp, err := client.Prompt("go").Tools(work).Call(context.Background())
	require.NoError(t, err)
	require.Equal(t, "done", resp.Content())
	for _, e := range resp.Executions {
		require.False(t, e.IsError, e.Result)
	}

	tr.mu.Lock()
	defer tr.mu.Unlock()
	byName := map[string]*fakeSpan{}
	for _, s := range tr.spans {
		assert.True(t, s.ended, "span %s ended", s.name)
		byName[s.name] = s
	}
	require.Len(t, tr.spans, 1+2+3*n, "one call, two rounds, and per tool call a tool, middleware and work span")
	call := byName["call"]
	require.NotNil(t, call)
	assert.Nil(t, call.parent)
	models := 0
	for _, s := range tr.spans {
		if s.name == "model" {
			models++
			assert.Same(t, call, s.parent, "a model round is a child of the call")
		}
	}
	assert.Equal(t, 2, models)
	for i := range n {
		tool := byName["tool c"+strconv.Itoa(i)]
		require.NotNil(t, tool)
		assert.Same(t, call, tool.parent, "tool call %d is a child of the call", i)
		assert.Same(t, tool, byName["middleware c"+strconv.Itoa(i)].parent, "middleware %d runs in its tool call's span", i)
		assert.Same(t, byName["middleware c"+strconv.Itoa(i)], byName["work "+strconv.Itoa(i)].parent, "the tool's work %d is inside its call's spans", i)
	}
}
