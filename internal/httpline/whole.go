package httpline

import (
	"mime"

	"github.com/toolcall-go/toolcall/chat"
)

// IsJSON reports whether the reply is one JSON body (application/json)
// rather than a stream: a server that does not stream may answer a stream
// request with its whole reply.
func (r *Reply) IsJSON() bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json"
}

// YieldWhole yields a reply received whole as a stream would have: its
// text, then each call with its id, name and arguments. It returns false
// as soon as yield does.
func YieldWhole(resp *chat.Response, yield func(chat.Delta) bool) bool {
	if resp.Message.Content != "" && !yield(chat.Delta{Content: resp.Message.Content}) {
		return false
	}
	for i, c := range resp.Message.ToolCalls {
		if !yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)}}) {
			return false
		}
	}
	return true
}
