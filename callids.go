package toolcall

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/toolcall-go/toolcall/chat"
)

// uniqueCallIDs gives a call without an id "call_<index>" and a repeated id
// a "_<n>" suffix, as the providers do, so that every tool message answers
// one call and the history stays valid to resend. calls is copied only when
// something changes.
func uniqueCallIDs(calls []chat.ToolCall) (_ []chat.ToolCall, changed bool) {
	if len(calls) == 1 && calls[0].ID != "" {
		return calls, false // the common reply
	}
	for i := range calls {
		id := calls[i].ID
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		base := id
		for n := 1; slices.ContainsFunc(calls[:i], func(c chat.ToolCall) bool { return c.ID == id }); n++ {
			id = base + "_" + strconv.Itoa(n)
		}
		if id != calls[i].ID {
			if !changed {
				calls, changed = slices.Clone(calls), true
			}
			calls[i].ID = id
		}
	}
	return calls, changed
}

// withUniqueCallIDs returns mr, or a copy whose calls have the ids
// [uniqueCallIDs] gives them; the model's reply is never modified.
func withUniqueCallIDs(mr *chat.Response) *chat.Response {
	calls, changed := uniqueCallIDs(mr.Message.ToolCalls)
	if !changed {
		return mr
	}
	c := *mr
	c.Message.ToolCalls = calls
	return &c
}

// replyCut returns an error wrapping [ErrReplyCut] when mr has tool calls
// and was cut short, and nil otherwise.
func replyCut(mr *chat.Response) error {
	n := len(mr.Message.ToolCalls)
	if n == 0 || mr.FinishReason != chat.FinishLength && mr.FinishReason != chat.FinishFiltered {
		return nil
	}
	calls := "call was"
	if n > 1 {
		calls = "calls were"
	}
	return fmt.Errorf("%w: finish reason %q; its %d tool %s not run", ErrReplyCut, mr.FinishReason, n, calls)
}
