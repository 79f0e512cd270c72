package httpline

import (
	"context"
	"strings"

	"github.com/toolcall-go/toolcall/chat"
)

// Stream is [Endpoint.Call] for a streamed reply: it posts body asking for
// accept and returns what read makes of the stream, read yielding each
// delta to yield as it arrives; a nil yield takes every delta.
//
// A server that does not stream may answer with its whole reply, one JSON
// body. When whole is not nil, such a reply is read by whole, as Chat
// reads it, and yielded as a stream would have been: its text, then each
// call with its id, name and arguments; if yield returns false, Stream
// returns chat.ErrStreamStopped. With whole nil, read reads it, for an API
// whose whole reply read can take as it is.
func (e *Endpoint) Stream(ctx context.Context, model, accept string, body []byte, yield func(chat.Delta) bool,
	read func(context.Context, *Reply, func(chat.Delta) bool) (*chat.Response, error),
	whole func(context.Context, *Reply) (*chat.Response, error)) (*chat.Response, error) {
	if yield == nil {
		yield = func(chat.Delta) bool { return true }
	}
	return e.Call(ctx, model, accept, body, func(ctx context.Context, rep *Reply) (*chat.Response, error) {
		if whole == nil || !rep.isJSON() {
			return read(ctx, rep, yield)
		}
		resp, err := whole(ctx, rep)
		if err == nil && !yieldWhole(resp, yield) {
			return nil, chat.ErrStreamStopped
		}
		return resp, err
	})
}

// isJSON reports whether the reply is one JSON body (application/json)
// rather than a stream. A stream asks it twice, so it reads the media
// type without mime.ParseMediaType, which allocates a map of parameters.
func (r *Reply) isJSON() bool {
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// yieldWhole yields a reply received whole as a stream would have: its
// text, then each call with its id, name and arguments. It returns false
// as soon as yield does.
func yieldWhole(resp *chat.Response, yield func(chat.Delta) bool) bool {
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
