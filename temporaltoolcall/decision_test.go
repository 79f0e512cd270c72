package temporaltoolcall

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// rogue is a workflow of another application in the namespace: it
// schedules ToolActivity itself, with a decision and a signature of its
// choosing.
func rogue(ctx workflow.Context, req toolRequest) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	var out toolOutcome
	return workflow.ExecuteActivity(ctx, ToolActivity, req).Get(ctx, &out)
}

// TestForgedDecisionsAreRefused: a workflow that schedules the tool
// activity with an "allow" of its own runs nothing, whether it signs
// nothing, copies a signature made for another run, or signs another
// call; a worker without a DecisionKey runs no decided call.
func TestForgedDecisionsAreRefused(t *testing.T) {
	call := chat.ToolCall{ID: "t1", Name: "transfer", Arguments: []byte(`{"n":5}`)}
	allow := &toolcall.Decision{Allow: true}
	keys, err := (&Worker{DecisionKey: testDecisionKey}).decisionKeys()
	if err != nil {
		t.Fatal(err)
	}
	otherRun, err := signDecision(keys, "conversation-1", "run-1", call, *allow)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		key  []byte
		seal func(id, run string) string
		want string
	}{
		{"unsigned", testDecisionKey, func(string, string) string { return "" }, "is not one this conversation accepted"},
		{"another run's signature", testDecisionKey, func(string, string) string { return otherRun }, "is not one this conversation accepted"},
		{"another call's signature", testDecisionKey, func(id, run string) string {
			other := call
			other.Arguments = []byte(`{"n":1}`)
			s, _ := signDecision(keys, id, run, other, *allow)
			return s
		}, "is not one this conversation accepted"},
		{"no key on the worker", nil, func(id, run string) string {
			s, _ := signDecision(keys, id, run, call, *allow)
			return s
		}, "a decided call needs Worker.DecisionKey"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int64
			var args atomic.Value
			w := approvalWorker(t, &runs, &args)
			w.DecisionKey = tc.key
			env := newEnv(t, w)
			env.RegisterWorkflowWithOptions(rogue, workflow.RegisterOptions{Name: "rogue"})
			const id = "default-test-workflow-id" // the test environment's
			req := toolRequest{Reply: chat.AssistantMessage("", call), Decision: allow,
				DecisionSeal: tc.seal(id, "default-test-run-id"), MaxBytes: 1 << 20}
			env.ExecuteWorkflow("rogue", req)
			err := env.GetWorkflowError()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if runs.Load() != 0 {
				t.Fatal("the tool ran")
			}
		})
	}
	// The control: signed with the key for this call of this run, as only
	// the Conversation workflow can, the decision is honoured.
	t.Run("signed for this run", func(t *testing.T) {
		var runs atomic.Int64
		var args atomic.Value
		env := newEnv(t, approvalWorker(t, &runs, &args))
		env.RegisterWorkflowWithOptions(rogue, workflow.RegisterOptions{Name: "rogue"})
		s, err := signDecision(keys, "default-test-workflow-id", "default-test-run-id", call, *allow)
		if err != nil {
			t.Fatal(err)
		}
		env.ExecuteWorkflow("rogue", toolRequest{Reply: chat.AssistantMessage("", call), Decision: allow, DecisionSeal: s, MaxBytes: 1 << 20})
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if runs.Load() != 1 {
			t.Fatalf("the tool ran %d times, want once", runs.Load())
		}
	})
	t.Run("several calls in one activity", func(t *testing.T) {
		var runs atomic.Int64
		var args atomic.Value
		env := newEnv(t, approvalWorker(t, &runs, &args))
		env.RegisterWorkflowWithOptions(rogue, workflow.RegisterOptions{Name: "rogue"})
		env.ExecuteWorkflow("rogue", toolRequest{Reply: chat.AssistantMessage("", call, call), MaxBytes: 1 << 20})
		if err := env.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "a tool activity runs one call, and was given 2") {
			t.Fatalf("error %v", err)
		}
		if runs.Load() != 0 {
			t.Fatal("the tool ran")
		}
	})
}

// TestDecisionNeedsAKey: a conversation whose worker has no DecisionKey
// fails when a waiting call is decided, and runs nothing.
func TestDecisionNeedsAKey(t *testing.T) {
	var runs atomic.Int64
	var args atomic.Value
	w := approvalWorker(t, &runs, &args)
	w.DecisionKey = nil
	env := newEnv(t, w)
	var approved updateResult
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateDecide, "ok", approved.callbacks(), map[string]toolcall.Decision{"t1": {Allow: true}})
	}, time.Hour)
	_, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("pay")}})
	if err == nil || !strings.Contains(err.Error(), "a decided call needs Worker.DecisionKey") {
		t.Fatalf("error %v", err)
	}
	if runs.Load() != 0 {
		t.Fatal("the tool ran")
	}
}
