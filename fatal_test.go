package toolcall_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// A fatal error is for the caller only: its text never reaches the history,
// the execution records or the model, whichever path ran the tool.
func TestFatalErrorTextStaysWithTheCaller(t *testing.T) {
	t.Parallel()
	const secret = "hunter2"
	login := toolcall.MustFunc("login", "Logs in", func(context.Context, struct{}) (string, error) {
		return "", fmt.Errorf("%w: password %s rejected", toolcall.ErrFatal, secret)
	})
	var mu sync.Mutex
	var seen []string
	hooks := toolcall.Hooks{AfterTool: func(_ context.Context, e toolcall.ToolExecution) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, e.Result)
	}}
	script := func() *tt.Model {
		return tt.NewModel(tt.ToolCalls(tt.Call("c1", "login", `{}`)), tt.Text("unused"))
	}
	check := func(t *testing.T, resp *toolcall.Response, err error) {
		t.Helper()
		require.ErrorIs(t, err, toolcall.ErrFatal)
		assert.Contains(t, err.Error(), secret, "the caller gets the whole error")
		require.NotNil(t, resp)
		require.Len(t, resp.History, 3)
		assert.Equal(t, "tool login failed", resp.History[2].Content)
		for _, m := range resp.History {
			assert.NotContains(t, m.Content, secret)
		}
		for _, e := range resp.Executions {
			assert.NotContains(t, e.Result, secret)
		}
		assertValidHistory(t, resp.History)
	}
	t.Run("Call", func(t *testing.T) {
		resp, err := toolcall.NewClient(script(), toolcall.WithHooks(hooks)).Prompt("log in").Tools(login).Call(context.Background())
		check(t, resp, err)
	})
	t.Run("Stream", func(t *testing.T) {
		events, resp, err := collectStream(toolcall.NewClient(script(), toolcall.WithHooks(hooks)).Prompt("log in").Tools(login).Stream(context.Background()))
		check(t, resp, err)
		for _, e := range events {
			if strings.HasPrefix(e, "result") {
				assert.NotContains(t, e, secret)
			}
		}
	})
	t.Run("Manager", func(t *testing.T) {
		ex, err := toolcall.NewManager().Execute(context.Background(), []toolcall.Tool{login},
			&chat.Request{Messages: []chat.Message{chat.UserMessage("log in")}},
			&chat.Response{Message: chat.AssistantMessage("", tt.Call("c1", "login", `{}`))})
		require.ErrorIs(t, err, toolcall.ErrFatal)
		assert.Equal(t, "tool login failed", ex.History[2].Content)
		text, err := toolcall.DefaultToolErrorHandler(context.Background(), &toolcall.ToolError{Name: "login", Err: fmt.Errorf("%w: %s", toolcall.ErrFatal, secret)})
		assert.Equal(t, "tool login failed", text)
		assert.ErrorIs(t, err, toolcall.ErrFatal)
	})
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	for _, r := range seen {
		assert.Equal(t, "tool login failed", r, "hooks see the text the model would")
	}
}
