package toolcall

import (
	"slices"

	"github.com/toolcall-go/toolcall/chat"
)

// The conversation of a call is built in an array the call owns: each
// round appends to it in place, and the requests see it clipped, so no one
// they are given to appends into it.

// startHistory returns the first request's messages: the system message, when
// there is one, then msgs, in an array with room for room more messages:
// for the model's reply, so that a call without tool rounds needs no other
// array for its history, or also for one tool result and the answer after
// it, the most common conversation with tools.
func startHistory(system string, msgs []chat.Message, room int) []chat.Message {
	n := len(msgs) + room
	if system != "" {
		n++
	}
	out := make([]chat.Message, 0, n)
	if system != "" {
		out = append(out, chat.SystemMessage(system))
	}
	return append(out, msgs...)
}

// ownedHistory returns the history m in own, the array the call owns, which has
// room to append to: m is a view of it unless something (a hook, the
// model) replaced the request's messages, and then m is returned clipped,
// so that appending to it makes a copy.
func ownedHistory(own, m []chat.Message) []chat.Message {
	if len(m) == len(own) && (len(m) == 0 || &m[0] == &own[0]) {
		return own
	}
	return slices.Clip(m)
}
