// Package paused checks a paused state given back to be resumed, as the
// untrusted input it is once stored: the calls it lists must be those of
// the reply it pauses.
package paused

import (
	"errors"
	"fmt"
	"slices"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/check"
)

// Check checks that a paused state holds together and returns the reply
// it pauses, the last message of history: round is at least 1, each
// waiting call (pending) is a call of that reply, with the same id, name
// and arguments (as JSON values), each done call one with the same id and
// name, and each of the reply's calls is one or the other, once.
func Check(history []chat.Message, round int, pending, done []chat.ToolCall) (chat.Message, error) {
	n := len(history)
	if n == 0 || history[n-1].Role != chat.RoleAssistant || len(history[n-1].ToolCalls) == 0 {
		return chat.Message{}, errors.New("the history does not end with a reply with tool calls")
	}
	if round < 1 {
		return chat.Message{}, fmt.Errorf("round %d", round)
	}
	if len(pending) == 0 {
		return chat.Message{}, errors.New("no call waits")
	}
	reply := history[n-1]
	seen := make(map[string]bool, len(reply.ToolCalls))
	find := func(c chat.ToolCall, what string) (chat.ToolCall, error) {
		if seen[c.ID] {
			return c, fmt.Errorf("call %q is listed twice", c.ID)
		}
		seen[c.ID] = true
		j := slices.IndexFunc(reply.ToolCalls, func(rc chat.ToolCall) bool { return rc.ID == c.ID })
		if j < 0 {
			return c, fmt.Errorf("%s call %q is not a call of the reply", what, c.ID)
		}
		rc := reply.ToolCalls[j]
		if rc.Name != c.Name {
			return c, fmt.Errorf("%s call %q is of tool %q, the reply's of %q", what, c.ID, c.Name, rc.Name)
		}
		return rc, nil
	}
	for _, pc := range pending {
		rc, err := find(pc, "waiting")
		if err != nil {
			return reply, err
		}
		if !check.SameJSON(check.Normalize(rc.Arguments), check.Normalize(pc.Arguments)) {
			return reply, fmt.Errorf("waiting call %q has other arguments than the reply's call", pc.ID)
		}
	}
	for _, c := range done {
		if _, err := find(c, "done"); err != nil {
			return reply, err
		}
	}
	for _, rc := range reply.ToolCalls {
		if !seen[rc.ID] {
			return reply, fmt.Errorf("call %q of the reply is neither done nor waiting", rc.ID)
		}
	}
	return reply, nil
}
