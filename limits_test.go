package toolcall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// Zero means the default for every limit, and NoLimit removes it.
func TestLimitsZeroIsDefaultNoLimitIsNone(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	big := toolcall.MustFunc("big", "A big result", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("x", 2*mib), nil
	})
	echo := toolcall.MustFunc("echo", "Echo", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text[:1], nil
	})
	run := func(t *testing.T, tool toolcall.Tool, args string, opt toolcall.ManagerOption) toolcall.ToolExecution {
		t.Helper()
		ex, err := toolcall.NewManager(opt).Execute(context.Background(), []toolcall.Tool{tool},
			&chat.Request{Messages: []chat.Message{chat.UserMessage("go")}},
			&chat.Response{Message: chat.AssistantMessage("", tt.Call("c1", tool.Definition().Name, args))})
		require.NoError(t, err)
		return ex.Executions[0]
	}
	longArgs := `{"text":"` + strings.Repeat("y", 2*mib) + `"}`

	for _, tc := range []struct {
		name   string
		tool   toolcall.Tool
		args   string
		opt    toolcall.ManagerOption
		result func(t *testing.T, e toolcall.ToolExecution)
	}{
		{"result, zero is 1 MiB", big, `{}`, toolcall.WithLimits(toolcall.Limits{MaxResultBytes: 0}), func(t *testing.T, e toolcall.ToolExecution) {
			assert.Equal(t, "\n[truncated: result was 2097152 bytes, limit 1048576]", e.Result[mib:])
		}},
		{"result, NoLimit", big, `{}`, toolcall.WithLimits(toolcall.Limits{MaxResultBytes: toolcall.NoLimit}), func(t *testing.T, e toolcall.ToolExecution) {
			assert.Len(t, e.Result, 2*mib)
		}},
		{"arguments, zero is 1 MiB", echo, longArgs, toolcall.WithLimits(toolcall.Limits{MaxArgumentBytes: 0}), func(t *testing.T, e toolcall.ToolExecution) {
			assert.True(t, e.IsError)
			assert.Equal(t, `invalid arguments for tool "echo": arguments are 2097163 bytes long, the limit is 1048576`, e.Result)
		}},
		{"arguments, NoLimit", echo, longArgs, toolcall.WithLimits(toolcall.Limits{MaxArgumentBytes: toolcall.NoLimit}), func(t *testing.T, e toolcall.ToolExecution) {
			assert.False(t, e.IsError, e.Result)
			assert.Equal(t, "y", e.Result)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.result(t, run(t, tc.tool, tc.args, tc.opt))
		})
	}

	t.Run("concurrency", func(t *testing.T) {
		t.Parallel()
		for _, n := range []int{0, toolcall.NoLimit} {
			ex, err := toolcall.NewManager(toolcall.WithLimits(toolcall.Limits{Concurrency: n})).Execute(context.Background(), []toolcall.Tool{echo},
				&chat.Request{Messages: []chat.Message{chat.UserMessage("go")}},
				&chat.Response{Message: chat.AssistantMessage("",
					tt.Call("c1", "echo", `{"text":"a"}`), tt.Call("c2", "echo", `{"text":"b"}`), tt.Call("c3", "echo", `{"text":"c"}`))})
			require.NoError(t, err, "WithConcurrency(%d)", n)
			require.Len(t, ex.Executions, 3)
			for i, want := range []string{"a", "b", "c"} {
				assert.Equal(t, want, ex.Executions[i].Result)
			}
		}
	})

	t.Run("iterations", func(t *testing.T) {
		t.Parallel()
		loop := func(opt toolcall.ClientOption) (*toolcall.Response, error) {
			var replies []tt.Reply
			for range 12 {
				replies = append(replies, tt.ToolCalls(tt.Call("c", "echo", `{"text":"a"}`)))
			}
			model := tt.NewModel(append(replies, tt.Text("done"))...)
			return toolcall.NewClient(model, opt).Prompt("go").Tools(echo).Call(context.Background())
		}
		_, err := loop(toolcall.WithMaxIterations(0))
		require.ErrorIs(t, err, toolcall.ErrMaxIterations, "zero is the default, 10 rounds")
		assert.EqualError(t, err, "toolcall: iteration limit reached: the model still called tools after 10 tool rounds")
		resp, err := loop(toolcall.WithMaxIterations(toolcall.NoLimit))
		require.NoError(t, err)
		assert.Equal(t, 13, resp.Rounds)
	})
}
