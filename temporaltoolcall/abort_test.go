package temporaltoolcall

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// TestAbortKeepsTheRound: one call of a reply aborts (toolcall.ErrFatal)
// while another is still running and a third is done. The conversation
// ends with ErrFatal and a Response that records the whole round: the
// done call's result, the fatal call's text for the model, and the
// call cancelled while it ran as such. (That the running call is cancelled and
// waited for is shown on the real engine: TestAbortCancelsTheRound.)
func TestAbortKeepsTheRound(t *testing.T) {
	quick := toolcall.MustFunc("quick", "Quick", func(ctx context.Context, _ struct{}) (string, error) { return "quick done", nil })
	slow := toolcall.MustFunc("slow", "Slow", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
			return "slow done", nil
		}
	})
	fatal := toolcall.MustFunc("fatal", "Fail for good", func(ctx context.Context, _ struct{}) (string, error) {
		time.Sleep(50 * time.Millisecond) // after quick, while slow runs
		return "", fmt.Errorf("disk gone: %w", toolcall.ErrFatal)
	})
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		return calls(toolcalltest.Call("q", "quick", `{}`), toolcalltest.Call("s", "slow", `{}`), toolcalltest.Call("f", "fatal", `{}`)), nil
	})
	env := newEnv(t, &Worker{Model: model, Tools: []toolcall.Tool{quick, slow, fatal}})
	resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("go")}, HeartbeatTimeout: 200 * time.Millisecond})
	if !errors.Is(err, toolcall.ErrFatal) {
		t.Fatalf("error %v, want ErrFatal", err)
	}
	if resp == nil || len(resp.Executions) != 3 {
		t.Fatalf("Response %+v, want the round's three executions", resp)
	}
	want := []string{"quick done", cancelledCall, "tool fatal failed"}
	for i, e := range resp.Executions {
		if e.Result != want[i] {
			t.Errorf("execution %d (%s): %q, want %q", i, e.Call.ID, e.Result, want[i])
		}
	}
	if err := toolcalltest.CheckHistory(resp.History); err != nil {
		t.Errorf("history: %v", err)
	}
}
