package temporaltoolcall

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolcall-go/toolcall"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// ErrPayloadTooLarge: a payload the conversation had to record (a model
// request with the whole conversation, a tool call, the response) is
// larger than Input.MaxPayloadBytes, which stays under the server's limit.
var ErrPayloadTooLarge = errors.New("temporaltoolcall: payload too large")

// Decide delivers decisions for waiting calls, by call id, as an Update
// of the conversation's workflow, and returns once the workflow accepted
// them (the calls then run in the workflow). Decisions for calls that do
// not wait, and decisions that decide nothing or several things (Allow
// with Deny, Arguments without Allow) are refused with an error before
// they enter the history.
//
// A worker of the conversation's task queue applies the Update: with none
// running, Decide waits for one until ctx ends, and then returns an error
// that says so; the decisions may still be applied when a worker starts
// (Pending tells).
//
// Decide is safe to call again after an error: each call is decided once,
// as a decision for a call that no longer waits is refused. The Update has
// no id of its own made from the decisions: a model may give a call of a
// later round the id of an earlier one, and that later decision would be
// taken for a repeat and dropped.
func Decide(ctx context.Context, c client.Client, workflowID, runID string, decisions map[string]toolcall.Decision) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		RunID:        runID,
		UpdateName:   UpdateDecide,
		Args:         []any{decisions},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	if err != nil && (ctx.Err() != nil || errors.As(err, new(*client.WorkflowUpdateServiceTimeoutOrCanceledError))) {
		return fmt.Errorf("temporaltoolcall: Decide: no worker applied the decisions before the context ended (is a worker of the conversation's task queue running?): %w", err)
	}
	return err
}

// Pending returns the calls of a conversation that wait for a decision.
// A worker of the conversation's task queue answers: with none running,
// the query fails after the server's timeout (or when ctx ends) with an
// error that says so.
func Pending(ctx context.Context, c client.Client, workflowID, runID string) ([]toolcall.PendingCall, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, runID, QueryPending)
	if err != nil {
		if ctx.Err() != nil || errors.As(err, new(*serviceerror.DeadlineExceeded)) {
			return nil, fmt.Errorf("temporaltoolcall: Pending: no worker answered (is a worker of the conversation's task queue running?): %w", err)
		}
		return nil, err
	}
	var out []toolcall.PendingCall
	if err := v.Get(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// Result waits for a conversation to end and returns its Response, as
// Prompt.Call would. A conversation that failed returns an error that
// errors.Is matches with the same sentinel as Call's (toolcall.ErrMaxIterations,
// ErrReplyCut, ErrEmptyAnswer, ErrFatal, the chat errors of a model request,
// ErrPayloadTooLarge), and, as Call does, the Response so far when it could
// be recorded with the failure. A typed answer (Input.Output) that still
// broke its schema after the repairs is a *toolcall.AnswerError, for
// errors.As; decode one that passed with Answer.
func Result(ctx context.Context, run client.WorkflowRun) (*toolcall.Response, error) {
	var resp *toolcall.Response
	err := run.Get(ctx, &resp)
	if err == nil {
		return resp, nil
	}
	return failed(err)
}

// failed returns the Response and error of a failed conversation, from
// the workflow's error.
func failed(err error) (*toolcall.Response, error) {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return nil, err
	}
	var partial *toolcall.Response
	out := &conversationError{err: err}
	switch {
	case !app.HasDetails():
	case app.Type() == typeAnswer:
		var r refusal
		if derr := app.Details(&r); derr == nil && r.Answer != nil {
			partial = r.Response
			out.is = append(out.is, r.Answer)
		}
	default:
		if derr := app.Details(&partial); derr != nil {
			partial = nil
		}
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if a, ok := e.(*temporal.ApplicationError); ok {
			if s := sentinel(a.Type()); s != nil {
				out.is = append(out.is, s)
			}
		}
	}
	return partial, out
}

// A refusal is the detail of a conversation that failed with an
// AnswerError: the error, and the Response so far when it fits.
type refusal struct {
	Response *toolcall.Response    `json:"response,omitempty"`
	Answer   *toolcall.AnswerError `json:"answer"`
}

// sentinel returns the error an error type stands for.
func sentinel(typ string) error {
	switch typ {
	case typeMaxIterations:
		return toolcall.ErrMaxIterations
	case typeReplyCut:
		return toolcall.ErrReplyCut
	case typeEmptyAnswer:
		return toolcall.ErrEmptyAnswer
	case typeFatal:
		return toolcall.ErrFatal
	case typeTooLarge:
		return ErrPayloadTooLarge
	}
	for _, e := range modelErrors {
		if e.typ == typ {
			return e.err
		}
	}
	return nil
}

// A conversationError is a failed conversation: Temporal's error, which
// also matches the sentinels its error types stand for.
type conversationError struct {
	err error
	is  []error
}

func (e *conversationError) Error() string { return e.err.Error() }

func (e *conversationError) Unwrap() []error { return append([]error{e.err}, e.is...) }
