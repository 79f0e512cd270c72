package temporaltoolcall

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
	"go.temporal.io/sdk/testsuite"
)

// approvalWorker has a tool "transfer" that needs approval, and a model
// that calls it once and then answers with its result.
func approvalWorker(t *testing.T, runs *atomic.Int64, args *atomic.Value) *Worker {
	t.Helper()
	transfer := toolcall.MustFunc("transfer", "Move money", func(ctx context.Context, in stepIn) (string, error) {
		runs.Add(1)
		args.Store(in.N)
		return fmt.Sprintf("moved %d", in.N), nil
	}, toolcall.WithNeedsApproval(true))
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		if toolRounds(req) == 0 {
			return calls(toolcalltest.Call("t1", "transfer", `{"n":5}`)), nil
		}
		return text("result: " + lastTool(req)), nil
	})
	return &Worker{Model: model, Tools: []toolcall.Tool{transfer}, DecisionKey: testDecisionKey}
}

type updateResult struct {
	rejected, accepted atomic.Int64
	err                atomic.Value
}

func (u *updateResult) callbacks() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{
		OnReject: func(err error) { u.rejected.Add(1); u.err.Store(err.Error()) },
		OnAccept: func() { u.accepted.Add(1) },
		OnComplete: func(_ any, err error) {
			if err != nil {
				u.err.Store(err.Error())
			}
		},
	}
}

// TestApprovalWaitsDaysForUpdate: the call waits, the query shows it, and
// an Update a day later approves it: the tool then runs once.
func TestApprovalWaitsDaysForUpdate(t *testing.T) {
	var runs atomic.Int64
	var args atomic.Value
	env := newEnv(t, approvalWorker(t, &runs, &args))
	var pending []toolcall.PendingCall
	var rejected updateResult
	var approved updateResult
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryPending)
		if err != nil {
			t.Error(err)
			return
		}
		if err := v.Get(&pending); err != nil {
			t.Error(err)
		}
		if runs.Load() != 0 {
			t.Error("the tool ran before it was approved")
		}
		env.UpdateWorkflow(UpdateDecide, "bad", rejected.callbacks(), map[string]toolcall.Decision{"t9": {Allow: true}})
		env.UpdateWorkflow(UpdateDecide, "ok", approved.callbacks(), map[string]toolcall.Decision{"t1": {Allow: true}})
	}, 24*time.Hour)
	start := env.Now()
	resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("pay")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].ID != "t1" || pending[0].Reason != "approval" {
		t.Fatalf("pending = %+v, want call t1 waiting for approval", pending)
	}
	if rejected.rejected.Load() != 1 || !strings.Contains(fmt.Sprint(rejected.err.Load()), `call "t9" does not wait`) {
		t.Errorf("a decision for an unknown call: rejected %d times, error %v", rejected.rejected.Load(), rejected.err.Load())
	}
	if approved.accepted.Load() != 1 {
		t.Errorf("the approval was not accepted: %v", approved.err.Load())
	}
	if runs.Load() != 1 {
		t.Errorf("the tool ran %d times, want 1", runs.Load())
	}
	if resp.Content() != "result: moved 5" {
		t.Errorf("answer %q", resp.Content())
	}
	if waited := env.Now().Sub(start); waited < 24*time.Hour {
		t.Errorf("the conversation ended %s after it started, before the approval", waited)
	}
}

// TestDecisionsValidated: the validator refuses, before history,
// decisions that decide nothing or contradict themselves; then a denial
// goes to the model and an approval with edited arguments runs them.
func TestDecisionsValidated(t *testing.T) {
	for _, tc := range []struct {
		name     string
		bad      toolcall.Decision
		wantBad  string
		good     toolcall.Decision
		wantRuns int64
		wantArgs int
		answer   string
	}{
		{"allow and deny", toolcall.Decision{Allow: true, Deny: "no"}, "contradictory: it sets allow and deny",
			toolcall.Decision{Deny: "not today"}, 0, 0, "result: tool call denied: not today"},
		{"nothing", toolcall.Decision{}, "decides nothing",
			toolcall.Decision{Allow: true, Arguments: []byte(`{"n":7}`)}, 1, 7, "result: moved 7"},
		{"arguments without allow", toolcall.Decision{Result: "x", Arguments: []byte(`{"n":1}`)}, "arguments are given without allow",
			toolcall.Decision{Result: "done by hand"}, 0, 0, "result: done by hand"},
		{"deny and result", toolcall.Decision{Deny: "no", Result: "x"}, "it sets deny and result",
			toolcall.Decision{Allow: true, Arguments: []byte(`{"n":"x"}`)}, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int64
			var args atomic.Value
			env := newEnv(t, approvalWorker(t, &runs, &args))
			var bad, good updateResult
			env.RegisterDelayedCallback(func() {
				env.UpdateWorkflow(UpdateDecide, "bad", bad.callbacks(), map[string]toolcall.Decision{"t1": tc.bad})
				env.UpdateWorkflow(UpdateDecide, "good", good.callbacks(), map[string]toolcall.Decision{"t1": tc.good})
			}, time.Minute)
			resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("pay")}})
			if err != nil {
				t.Fatal(err)
			}
			if bad.rejected.Load() != 1 || !strings.Contains(fmt.Sprint(bad.err.Load()), tc.wantBad) {
				t.Errorf("bad decision: rejected %d times with %v, want %q", bad.rejected.Load(), bad.err.Load(), tc.wantBad)
			}
			if good.accepted.Load() != 1 {
				t.Errorf("good decision not accepted: %v", good.err.Load())
			}
			if runs.Load() != tc.wantRuns {
				t.Errorf("the tool ran %d times, want %d", runs.Load(), tc.wantRuns)
			}
			if tc.wantArgs != 0 && args.Load() != tc.wantArgs {
				t.Errorf("the tool ran with n=%v, want %d", args.Load(), tc.wantArgs)
			}
			if tc.answer != "" && resp.Content() != tc.answer {
				t.Errorf("answer %q, want %q", resp.Content(), tc.answer)
			}
			if tc.answer == "" && (strings.Contains(resp.Content(), "moved") || !strings.Contains(resp.Content(), "integer")) {
				t.Errorf("edited arguments that fail the schema: answer %q should carry the schema error", resp.Content())
			}
			if err := toolcalltest.CheckHistory(resp.History); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestDecisionTimeoutDenies: past the deadline the waiting call is denied
// and the model told so; the tool never runs.
func TestDecisionTimeoutDenies(t *testing.T) {
	var runs atomic.Int64
	var args atomic.Value
	env := newEnv(t, approvalWorker(t, &runs, &args))
	resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("pay")}, DecisionTimeout: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 0 {
		t.Errorf("the tool ran %d times", runs.Load())
	}
	if want := "result: tool call denied: no decision was made within 48h0m0s"; resp.Content() != want {
		t.Errorf("answer %q, want %q", resp.Content(), want)
	}
}

// TestLongRunningToolPauses: a tool that pauses (toolcall.Pause) waits
// like an approval; its final result comes with the Update.
func TestLongRunningToolPauses(t *testing.T) {
	var runs atomic.Int64
	report := toolcall.MustFunc("report", "Build a report", func(ctx context.Context, in struct{}) (string, error) {
		runs.Add(1)
		return "", toolcall.Pause("the report is being built")
	})
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		if toolRounds(req) == 0 {
			return calls(toolcalltest.Call("r1", "report", `{}`)), nil
		}
		return text(lastTool(req)), nil
	})
	env := newEnv(t, &Worker{Model: model, Tools: []toolcall.Tool{report}, DecisionKey: testDecisionKey})
	var u updateResult
	var pending []toolcall.PendingCall
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryPending)
		if err == nil {
			err = v.Get(&pending)
		}
		if err != nil {
			t.Error(err)
		}
		env.UpdateWorkflow(UpdateDecide, "u", u.callbacks(), map[string]toolcall.Decision{"r1": {Result: "report: 42 pages"}})
	}, 3*time.Hour)
	resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("report")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].Reason != "the report is being built" {
		t.Errorf("pending = %+v", pending)
	}
	if resp.Content() != "report: 42 pages" || runs.Load() != 1 {
		t.Errorf("answer %q after %d runs", resp.Content(), runs.Load())
	}
}
