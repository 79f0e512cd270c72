package temporaltoolcall

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/seal"
	"go.temporal.io/sdk/workflow"
)

// The decisions on waiting calls: the Update that delivers them (checked
// before they enter the history), the query of the calls that wait, and
// the signature a decision travels with.
//
// Any workflow of the namespace can schedule ToolActivity on the task
// queue, with any input. A decision in that input is therefore honoured
// only when it is signed, with the worker's DecisionKey, for the call and
// the workflow run it reaches: the Conversation workflow signs the
// decisions its Update accepted, for calls that waited; the activity
// checks the signature against the run Temporal says scheduled it.

// errNoDecisionKey is the error of a decided call on a worker without a
// DecisionKey.
var errNoDecisionKey = errors.New("temporaltoolcall: a decided call needs Worker.DecisionKey, the same on every worker of the task queue")

// decisionKeys returns the keys that sign decisions: nil when the worker
// has no DecisionKey, an error for a key that is too short.
func (w *Worker) decisionKeys() (*seal.Keys, error) {
	if len(w.DecisionKey) == 0 {
		return nil, nil
	}
	keys := map[string][]byte{keyID(w.DecisionKey): w.DecisionKey}
	for _, k := range w.OldDecisionKeys {
		keys[keyID(k)] = k
	}
	k, err := seal.New(keyID(w.DecisionKey), keys)
	if err != nil {
		return nil, fmt.Errorf("temporaltoolcall: Worker.DecisionKey or OldDecisionKeys: %w", err)
	}
	return k, nil
}

// keyID names a key in a signature by a digest of it, so that a worker
// that holds the key, as DecisionKey or among OldDecisionKeys, finds it.
func keyID(key []byte) string {
	sum := sha256.Sum256(append([]byte("toolcall decision key\x00"), key...))
	return hex.EncodeToString(sum[:8])
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

// pending answers QueryPending.
func (c *conversation) pending() ([]toolcall.PendingCall, error) {
	out := []toolcall.PendingCall{}
	for _, w := range c.waiting {
		if w.decision == nil {
			out = append(out, w.call)
		}
	}
	return out, nil
}

// validate refuses decisions before they enter the history: each must
// name a call that waits and decide it one way.
func (c *conversation) validate(_ workflow.Context, decisions map[string]toolcall.Decision) error {
	if len(decisions) == 0 {
		return errors.New("no decisions given")
	}
	ids := slices.Sorted(maps.Keys(decisions)) // the first problem named is always the same
	for _, id := range ids {
		if !slices.ContainsFunc(c.waiting, func(w *waiting) bool { return w.call.ID == id && w.decision == nil }) {
			return fmt.Errorf("call %q does not wait for a decision", id)
		}
		if err := checkDecision(decisions[id]); err != nil {
			return fmt.Errorf("call %q: %w", id, err)
		}
	}
	return nil
}

// checkDecision refuses a decision that decides nothing or several things.
func checkDecision(d toolcall.Decision) error {
	var set []string
	if d.Allow {
		set = append(set, "allow")
	}
	if d.Deny != "" {
		set = append(set, "deny")
	}
	if d.Result != "" {
		set = append(set, "result")
	}
	switch {
	case len(set) == 0:
		return errors.New("the decision decides nothing: give one of allow, deny or result")
	case len(set) > 1:
		return fmt.Errorf("the decision is contradictory: it sets %s; give exactly one", strings.Join(set, " and "))
	case len(d.Arguments) > 0 && !d.Allow:
		return errors.New("arguments are given without allow")
	case len(d.Arguments) > 0 && !json.Valid(d.Arguments):
		return errors.New("the arguments are not valid JSON")
	}
	return nil
}

// decide records decisions that validate passed.
func (c *conversation) decide(_ workflow.Context, decisions map[string]toolcall.Decision) error {
	for _, w := range c.waiting { // call order, not the map's
		if d, ok := decisions[w.call.ID]; ok && w.decision == nil {
			w.decision = &d
		}
	}
	return nil
}
