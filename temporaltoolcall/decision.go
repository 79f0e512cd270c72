package temporaltoolcall

import (
	"errors"
	"fmt"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/seal"
)

// Any workflow of the namespace can schedule ToolActivity on the task
// queue, with any input. A decision in that input is therefore honoured
// only when it is signed, with the worker's DecisionKey, for the call and
// the workflow run it reaches: the Conversation workflow signs the
// decisions its Update accepted, for calls that waited; the activity
// checks the signature against the run Temporal says scheduled it.

// decisionKeyID names the one key in the seal.
const decisionKeyID = "decision"

// errNoDecisionKey is the error of a decided call on a worker without a
// DecisionKey.
var errNoDecisionKey = errors.New("temporaltoolcall: a decided call needs Worker.DecisionKey, the same on every worker of the task queue")

// decisionKeys returns the keys that sign decisions: nil when the worker
// has no DecisionKey, an error for a key that is too short.
func (w *Worker) decisionKeys() (*seal.Keys, error) {
	if len(w.DecisionKey) == 0 {
		return nil, nil
	}
	k, err := seal.New(decisionKeyID, map[string][]byte{decisionKeyID: w.DecisionKey})
	if err != nil {
		return nil, fmt.Errorf("temporaltoolcall: Worker.DecisionKey: %w", err)
	}
	return k, nil
}

// signedDecision is what a decision's seal covers, with the workflow id
// and run id as its owner.
type signedDecision struct {
	Call     chat.ToolCall     `json:"call"`
	Decision toolcall.Decision `json:"decision"`
}

// signDecision signs d for call in the workflow run id/run.
func signDecision(keys *seal.Keys, id, run string, call chat.ToolCall, d toolcall.Decision) (string, error) {
	if keys == nil {
		return "", errNoDecisionKey
	}
	return keys.Seal(signedDecision{Call: call, Decision: d}, id+"\x00"+run)
}

// checkSignedDecision refuses a decision not signed for call in the run id/run.
func checkSignedDecision(keys *seal.Keys, id, run string, call chat.ToolCall, d toolcall.Decision, s string) error {
	if keys == nil {
		return errNoDecisionKey
	}
	if err := keys.Open(signedDecision{Call: call, Decision: d}, id+"\x00"+run, s); err != nil {
		return fmt.Errorf("temporaltoolcall: the decision for call %q is not one this conversation accepted, and is refused: %w", call.ID, err)
	}
	return nil
}
