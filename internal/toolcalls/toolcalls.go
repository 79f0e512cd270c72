// Package toolcalls repairs and inspects the tool calls of a model's reply
// before they run: every call gets an id of its own, and a reply cut short
// is told apart from one whose calls can run.
package toolcalls

import (
	"fmt"
	"slices"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// UniqueIDs gives a call without an id "call_<index>" and a repeated id
// a "_<n>" suffix, as the providers do (with [wire.CallIDs], in time
// linear in the calls), so that every tool message answers one call and
// the history stays valid to resend. calls is copied only when something
// changes.
func UniqueIDs(calls []chat.ToolCall) (_ []chat.ToolCall, changed bool) {
	if len(calls) == 1 && calls[0].ID != "" {
		return calls, false // the common reply
	}
	ids := wire.CallIDs{Prefix: "call_"}
	for i := range calls {
		if id := ids.Next(calls[i].ID); id != calls[i].ID {
			if !changed {
				calls, changed = slices.Clone(calls), true
			}
			calls[i].ID = id
		}
	}
	return calls, changed
}

// WithUniqueIDs returns mr, or a copy whose calls have the ids
// [UniqueIDs] gives them; the model's reply is never modified.
func WithUniqueIDs(mr *chat.Response) *chat.Response {
	calls, changed := UniqueIDs(mr.Message.ToolCalls)
	if !changed {
		return mr
	}
	c := *mr
	c.Message.ToolCalls = calls
	return &c
}

// Cut says why none of mr's tool calls may run when mr has tool calls and
// was cut short (by the output limit or a content filter), and returns ""
// otherwise.
func Cut(mr *chat.Response) string {
	n := len(mr.Message.ToolCalls)
	if n == 0 || mr.FinishReason != chat.FinishLength && mr.FinishReason != chat.FinishFiltered {
		return ""
	}
	calls := "call was"
	if n > 1 {
		calls = "calls were"
	}
	return fmt.Sprintf("finish reason %q; its %d tool %s not run", mr.FinishReason, n, calls)
}

// Empty says why a reply with no text and no tool calls, finished for
// reason, is no answer.
func Empty(reason chat.FinishReason) string {
	return fmt.Sprintf("the model's reply has no text and no tool calls (finish reason %q)", reason)
}

// PastLimit says that the model still called tools after limit tool rounds.
func PastLimit(limit int) string {
	rounds := "rounds"
	if limit == 1 {
		rounds = "round"
	}
	return fmt.Sprintf("the model still called tools after %d tool %s", limit, rounds)
}
