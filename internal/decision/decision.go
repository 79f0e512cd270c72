// Package decision holds the decision on a waiting tool call: whether it
// says one thing, and how it is applied, through the errors by which it
// reaches the executor: the call pauses, is denied, or runs again with
// other arguments.
package decision

import (
	"context"
	"encoding/json"
	"errors"
)

// A Decision is toolcall.Decision, field for field, which converts to
// and from it.
type Decision struct {
	Allow     bool
	Arguments json.RawMessage
	Deny      string
	Result    string
}

// Waits reports that d decides nothing: the call keeps waiting.
func (d Decision) Waits() bool { return !d.Allow && d.Deny == "" && d.Result == "" }

// Check refuses a decision that sets more than one of Allow, Deny and
// Result, or Arguments without Allow; its error completes "the decision
// for call X ...".
func (d Decision) Check() error {
	said := 0
	for _, b := range []bool{d.Allow, d.Deny != "", d.Result != ""} {
		if b {
			said++
		}
	}
	switch {
	case said > 1:
		return errors.New("sets more than one of Allow, Deny and Result")
	case len(d.Arguments) > 0 && !d.Allow:
		return errors.New("gives Arguments without Allow")
	}
	return nil
}

// Apply answers a call as d decides: a denial is a *Denial, a result is
// the call's, allowed arguments are a *Rerun, an allowed call runs next,
// and a call that keeps waiting is a *Pause for approval.
func (d Decision) Apply(ctx context.Context, next func(context.Context) (string, error)) (string, error) {
	switch {
	case d.Deny != "":
		return "", &Denial{Reason: d.Deny}
	case d.Result != "":
		return d.Result, nil
	case d.Allow && len(d.Arguments) > 0:
		return "", &Rerun{Args: d.Arguments}
	case d.Allow:
		return next(ctx)
	}
	return "", &Pause{Reason: "approval"}
}

// ErrPending is what every Pause is: a call that waits and did not run.
var ErrPending = errors.New("toolcall: call pending")

// A Pause is the error of a call that waits, for Reason: "approval", or
// the reason its tool gave.
type Pause struct{ Reason string }

// Error gives the reason.
func (e *Pause) Error() string { return "toolcall: call paused: " + e.Reason }

// Is makes a Pause match ErrPending.
func (e *Pause) Is(target error) bool { return target == ErrPending }

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
