package temporaltoolcall

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// TestReplayRecordedHistories replays the histories recorded from the
// real engine (go test -update -run 'TestKillWorkerMidCall|TestApprovalAcrossWorkerRestart|TestAbortCancelsTheRound|TestAnswerAcrossDecisionOnTheEngine')
// through the workflow: a change that would break running conversations
// fails here. The rule: a change of the commands the workflow issues goes
// behind workflow.GetVersion, and the histories recorded by each release
// stay in testdata, replayed by every later one (add new ones; never
// rewrite the old).
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("found %d recorded histories in testdata, want the crash, approval and abort ones", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions((&Worker{DecisionKey: testDecisionKey}).Conversation, workflow.RegisterOptions{Name: WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayDetectsChange: a workflow that schedules its activities
// otherwise fails the replay, so the replay test can fail.
func TestReplayDetectsChange(t *testing.T) {
	changed := func(ctx workflow.Context, in Input) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 1})
		var out string
		err := workflow.ExecuteActivity(ctx, ToolActivity, in).Get(ctx, &out)
		return out, err
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(changed, workflow.RegisterOptions{Name: WorkflowName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), filepath.Join("testdata", "crash-step.json")); err == nil {
		t.Fatal("a changed workflow replayed the recorded history without error")
	}
}
