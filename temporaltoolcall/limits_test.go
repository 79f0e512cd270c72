package temporaltoolcall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// manyCalls answers the first request with n calls of tool, then with the
// number of results it got.
func manyCalls(n int, tool string) *toolcalltest.Model {
	return toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		if toolRounds(req) == 0 {
			cs := make([]chat.ToolCall, n)
			for i := range cs {
				cs[i] = toolcalltest.Call(fmt.Sprint("c", i), tool, `{}`)
			}
			return calls(cs...), nil
		}
		return text(fmt.Sprint(len(req.Messages)-3, " results")), nil // the user, the calls, the results, minus one
	})
}

// TestToolCallsCarryTheirCallOnly: 41 calls on a 1.2 MiB conversation, the
// case that once wrote 48 MiB of inputs and was ended by the server: each
// tool activity carries its own call, not the conversation, unless its
// tool is in ToolsWithHistory, whose calls see the whole history.
func TestToolCallsCarryTheirCallOnly(t *testing.T) {
	var seen atomic.Int64 // the longest history a tool saw
	see := func(ctx context.Context, _ struct{}) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		n := int64(0)
		for _, m := range info.History {
			n += int64(len(m.Content))
		}
		if n > seen.Load() {
			seen.Store(n)
		}
		return "ok", nil
	}
	big := strings.Repeat("a", 1200<<10)
	for _, withHistory := range []bool{false, true} {
		t.Run(fmt.Sprint("history=", withHistory), func(t *testing.T) {
			seen.Store(0)
			w := &Worker{Model: manyCalls(41, "look"), Tools: []toolcall.Tool{toolcall.MustFunc("look", "Looks", see)}}
			n := 41
			if withHistory {
				// Two calls with the history fit in a task; three would not.
				w.Model, n = manyCalls(2, "look"), 2
				w.ToolsWithHistory = []string{"look"}
			}
			env := newEnv(t, w)
			resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage(big)}, Concurrency: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Executions) != n {
				t.Fatalf("%d executions, want %d", len(resp.Executions), n)
			}
			if got := seen.Load(); withHistory != (got >= int64(len(big))) {
				t.Errorf("the tools saw %d bytes of history; with history %v", got, withHistory)
			}
		})
	}
}

// TestRoundTooLargeForATask: calls that carry a long history, scheduled
// together, would be more than one workflow task can carry: the
// conversation ends with ErrPayloadTooLarge, saying so, and no call ran.
func TestRoundTooLargeForATask(t *testing.T) {
	var runs atomic.Int64
	look := toolcall.MustFunc("look", "Looks", func(ctx context.Context, _ struct{}) (string, error) {
		runs.Add(1)
		return "ok", nil
	})
	w := &Worker{Model: manyCalls(10, "look"), Tools: []toolcall.Tool{look}, ToolsWithHistory: []string{"look"}}
	env := newEnv(t, w)
	_, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage(strings.Repeat("a", 400<<10))}, Concurrency: -1})
	if !errors.Is(err, ErrPayloadTooLarge) || !strings.Contains(err.Error(), "scheduled together are") {
		t.Fatalf("error %v, want ErrPayloadTooLarge for the calls scheduled together", err)
	}
	if runs.Load() != 0 {
		t.Errorf("%d calls ran", runs.Load())
	}
}

// TestToolsWithHistoryNamesWorkerTools: a name the worker has no tool of
// is refused at Register.
func TestToolsWithHistoryNamesWorkerTools(t *testing.T) {
	w := &Worker{Model: manyCalls(1, "x"), ToolsWithHistory: []string{"lok"}}
	err := w.Register(nil)
	if err == nil || !strings.Contains(err.Error(), `Worker.ToolsWithHistory names "lok", which is not among the worker's tools`) {
		t.Fatalf("error %v", err)
	}
}
