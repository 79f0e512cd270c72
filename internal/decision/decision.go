// Package decision holds the errors by which the decision on a waiting
// tool call reaches the executor: the call pauses, is denied, or runs
// again with other arguments.
package decision

import (
	"encoding/json"
	"errors"
)

// A Pause is the error of a call that waits, for Reason: "approval", or
// the reason its tool gave.
type Pause struct{ Reason string }

// Error gives the reason.
func (e *Pause) Error() string { return "toolcall: call paused: " + e.Reason }

// A Denial is the error of a call that was refused.
type Denial struct{ Reason string }

// Error gives the reason, for the model.
func (d *Denial) Error() string { return "tool call denied: " + d.Reason }

// Rerun asks the executor to run the call again with other arguments.
type Rerun struct{ Args json.RawMessage }

// Error says what is asked; a Rerun never reaches the caller.
func (*Rerun) Error() string { return "toolcall: run again with edited arguments" }

// Paused reports whether an execution's error paused the call, and why.
func Paused(err error) (string, bool) {
	if err == nil {
		return "", false // and no allocation for pe, which escapes
	}
	var pe *Pause
	if errors.As(err, &pe) {
		return pe.Reason, true
	}
	return "", false
}
