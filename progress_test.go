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
