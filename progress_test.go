package toolcall_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

func TestReportProgressReachesTheHook(t *testing.T) {
	t.Parallel()
	type key struct{}
	slow := toolcall.MustFunc("slow", "Reports progress", func(ctx context.Context, _ struct{}) (string, error) {
		for i := 1; i <= 2; i++ {
			require.True(t, toolcall.ReportProgress(ctx, fmt.Sprint("step ", i), float64(i), 2))
		}
		return "done", nil
	})
	var mu sync.Mutex
	var seen []string
	hooks := toolcall.Hooks{
		BeforeTool: func(ctx context.Context, _ chat.ToolCall) context.Context {
			return context.WithValue(ctx, key{}, "span")
		},
		ToolProgress: func(ctx context.Context, info toolcall.CallInfo, msg string, progress, total float64) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, fmt.Sprintf("%s %s %s %v/%v %v", info.ID, info.Name, msg, progress, total, ctx.Value(key{})))
		},
	}
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "slow", `{}`)), tt.Text("ok"))
	_, err := toolcall.NewClient(model, toolcall.WithHooks(hooks)).Prompt("go").Tools(slow).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"c1 slow step 1 1/2 span", "c1 slow step 2 2/2 span"}, seen)

	// Without the hook, and outside a call.
	model = tt.NewModel(tt.ToolCalls(tt.Call("c1", "slow", `{}`)), tt.Text("ok"))
	_, err = toolcall.NewClient(model).Prompt("go").Tools(slow).Call(context.Background())
	require.NoError(t, err)
	assert.False(t, toolcall.ReportProgress(context.Background(), "x", 1, 1))
}

func TestWithHooksComposes(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	type key struct{}
	set := func(name string) toolcall.Hooks {
		return toolcall.Hooks{
			BeforeCall: func(ctx context.Context, _ *chat.Request) context.Context {
				note(name + " before call, saw " + fmt.Sprint(ctx.Value(key{})))
				return context.WithValue(ctx, key{}, name)
			},
			AfterCall: func(ctx context.Context, _ *toolcall.Response, _ error) {
				note(name + " after call, saw " + fmt.Sprint(ctx.Value(key{})))
			},
			BeforeTool: func(ctx context.Context, _ chat.ToolCall) context.Context { note(name + " before tool"); return ctx },
			AfterTool:  func(context.Context, toolcall.ToolExecution) { note(name + " after tool") },
		}
	}
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "slow", `{}`)), tt.Text("ok"))
	slow := toolcall.MustFunc("slow", "Slow", func(context.Context, struct{}) (string, error) { return "", nil })
	_, err := toolcall.NewClient(model, toolcall.WithHooks(set("a")), toolcall.WithHooks(set("b"))).Prompt("go").Tools(slow).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"a before call, saw <nil>", "b before call, saw a",
		"a before tool", "b before tool", "b after tool", "a after tool",
		"b after call, saw b", "a after call, saw b",
	}, order)
}
