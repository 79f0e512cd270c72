package temporaltoolcall

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"go.temporal.io/sdk/workflow"
)

// TestDecisionKeyRotation: a decision signed with the key before a
// rotation runs on a worker that keeps that key among OldDecisionKeys, and
// is refused by one that does not.
func TestDecisionKeyRotation(t *testing.T) {
	call := chat.ToolCall{ID: "t1", Name: "transfer", Arguments: []byte(`{"n":5}`)}
	allow := &toolcall.Decision{Allow: true}
	oldKeys, err := (&Worker{DecisionKey: testDecisionKey}).decisionKeys()
	if err != nil {
		t.Fatal(err)
	}
	s, err := signDecision(oldKeys, "default-test-workflow-id", "default-test-run-id", call, *allow)
	if err != nil {
		t.Fatal(err)
	}
	newKey := []byte("the-new-decision-key-of-32-bytes-at-least")
	for _, tc := range []struct {
		name string
		old  [][]byte
		runs int64
	}{{"old key kept", [][]byte{testDecisionKey}, 1}, {"old key dropped", nil, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int64
			var args atomic.Value
			w := approvalWorker(t, &runs, &args)
			w.DecisionKey, w.OldDecisionKeys = newKey, tc.old
			env := newEnv(t, w)
			env.RegisterWorkflowWithOptions(rogue, workflow.RegisterOptions{Name: "rogue"})
			env.ExecuteWorkflow("rogue", toolRequest{Reply: chat.AssistantMessage("", call), Decision: allow, DecisionSeal: s, MaxBytes: 1 << 20})
			err := env.GetWorkflowError()
			if tc.runs == 1 && err != nil {
				t.Fatal(err)
			}
			if tc.runs == 0 && (err == nil || !strings.Contains(err.Error(), "is not one this conversation accepted")) {
				t.Fatalf("error %v", err)
			}
			if runs.Load() != tc.runs {
				t.Fatalf("the tool ran %d times, want %d", runs.Load(), tc.runs)
			}
		})
	}
}
