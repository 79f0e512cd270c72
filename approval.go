package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/decision"
)

// A Decision says what happens to a tool call that waits: for approval
// ([WithApprover], [WithNeedsApproval]) or because its tool paused it ([Pause]).
// The zero Decision keeps it waiting.
type Decision struct {
	// Allow runs the call, with Arguments in place of the model's when
	// they are set; they are checked again, and arguments that fail go
	// back to the model as for any call.
	Allow     bool            `json:"allow,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Deny refuses the call; the model is told this reason.
	Deny string `json:"deny,omitempty"`
	// Result answers the call without running the tool, e.g. with the
	// final result of a long-running tool.
	Result string `json:"result,omitempty"`
}

// WithApprover sets the approver, which decides each tool call after its
// arguments passed the checks and before the tool or any [Middleware]
// runs. It sees the call, with the checked arguments, the tool's Metadata
// (NeedsApproval, and hints such as an MCP tool's Destructive), and ctx,
// whose [ToolContext] is the call's. A zero Decision pauses the call: the
// reply's other calls still run, and then the Call ends with a *[Paused].
// Without an approver, only calls of tools with NeedsApproval wait, and
// they always pause.
func WithApprover(approve func(ctx context.Context, call chat.ToolCall, md Metadata) Decision) ManagerOption {
	return execOption(func(c *config) { c.approver = approve })
}

// Pause, returned as a tool's error, pauses its call, for reason (say,
// "waiting for a manager to approve ticket 42" from a long-running tool,
// or "an API key for weather.example" from a tool that needs the user's
// credential). The Call ends with a *[Paused] listing the call with reason;
// resuming gives the call its final result (Decision.Result) or runs the
// tool again (Decision.Allow), for example with the credential now in its
// ToolContext.
func Pause(reason string) error { return &decision.Pause{Reason: reason} }

// A PendingCall is a tool call that waits for a [Decision].
type PendingCall struct {
	chat.ToolCall
	// Reason is what it waits for: "approval", or the reason its tool gave
	// to [Pause].
	Reason string `json:"reason"`
}

// Paused is the outcome of a call that stopped for decisions: the error
// Call returns (find it with errors.As), and the state to continue from
// with [Prompt.Resume]. The Response returned with it holds the history
// before the reply with the waiting calls, valid to resend.
//
// Paused is plain data: store it as JSON until the decisions are made, in
// this process or another. It holds no ToolContext: give the prompt its
// tool context again when resuming.
//
// Stored outside the process, it is input like any other: whoever can
// edit it could otherwise have the host run what the model never asked
// for. Seal it ([WithSealKeys]), and a resume refuses any edit before
// anything runs; unsealed, store it as you store code. A resume checks in
// any case that each waiting call is a call of the reply it pauses, and
// runs each approved call at most once: see [Prompt.Resume].
type Paused struct {
	// ID identifies this pause, for [WithResumeClaim]; random, 128 bits.
	ID string `json:"id"`
	// Pending are the calls that wait, in call order.
	Pending []PendingCall `json:"pending"`
	// History is the conversation up to and including the reply whose
	// calls wait.
	History []chat.Message `json:"history"`
	// Done are that reply's calls that completed before the pause; a
	// resume does not run them again.
	Done []ToolExecution `json:"done,omitempty"`
	// Round is the round of the reply, from 1.
	Round   int          `json:"round"`
	Model   string       `json:"model,omitempty"`
	Options chat.Options `json:"options,omitzero"`
	// State is the session state the call's tools wrote before the pause
	// ([SetState]); the resumed call's tools read it and its Response.State
	// starts from it.
	State map[string]any `json:"state,omitempty"`
	// Expires is when a resume starts to refuse this state, when the
	// client sets an expiry ([WithPauseExpiry]); zero otherwise.
	Expires time.Time `json:"expires,omitzero"`
	// Answer is the name of the type of the typed answer the paused call
	// asked for ([Prompt.Answer]), empty when it asked for none: a resume
	// must ask for an answer of the same type.
	Answer string `json:"answer,omitempty"`
	// Seal authenticates every other field, and the owner the call gave
	// ([Prompt.Owner]), when the client seals ([WithSealKeys]): the id of
	// the key, a dot, and the HMAC.
	Seal string `json:"seal,omitempty"`
}

// Error says how many calls wait.
func (p *Paused) Error() string {
	calls := "calls wait"
	if len(p.Pending) == 1 {
		calls = "call waits"
	}
	return fmt.Sprintf("toolcall: paused: %d tool %s for a decision", len(p.Pending), calls)
}

// gate is the middleware that decides a call before it runs, by preset
// (a resume's decision) or by the approver; nil when the call needs no
// decision.
func gate(cfg *config, tool *Metadata, preset *Decision) Middleware {
	if preset == nil && cfg.approver == nil && !tool.NeedsApproval {
		return nil
	}
	md := *tool
	return func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
		var d Decision
		switch {
		case preset != nil:
			d = *preset
		case cfg.approver != nil:
			d = cfg.approver(ctx, call, md)
		}
		return decision.Decision(d).Apply(ctx, next)
	}
}

// endRound records a round's executions: the history with one tool
// message per call, in call order, and whether every call returned
// directly. history ends with the reply whose calls ran; the tool messages
// are appended to it, in its array when it has room. When calls wait, the
// history ends before the reply and paused holds the state to resume from.
// It returns the round's error: abort, the error that ended it, else the
// *Paused when calls wait.
func endRound(ex *execution, history []chat.Message, execs []ToolExecution, round int, abort error) error {
	*ex = execution{Executions: execs}
	var paused *Paused
	for i := range execs {
		e := &execs[i]
		if reason, ok := decision.Paused(e.Err); ok {
			if paused == nil {
				paused = &Paused{History: slices.Clone(history), Round: round}
			}
			paused.Pending = append(paused.Pending, PendingCall{ToolCall: e.Call, Reason: reason})
		}
	}
	if paused != nil {
		for _, e := range execs {
			if _, ok := decision.Paused(e.Err); !ok {
				paused.Done = append(paused.Done, e)
			}
		}
		ex.History, ex.Executions, ex.paused = slices.Clip(history[:len(history)-1]), paused.Done, paused
		if abort != nil {
			return abort
		}
		return paused
	}
	n := len(history)
	history = slices.Grow(history, len(execs))[:n+len(execs)]
	direct := len(execs) > 0
	for i := range execs {
		e := &execs[i]
		history[n+i] = chat.ToolMessage(e.Call, e.Result)
		history[n+i].IsError = e.IsError
		if e.IsError || !e.ReturnDirect {
			direct = false
		}
	}
	ex.History, ex.ReturnDirect = history, direct
	return abort
}
