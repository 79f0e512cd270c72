// Package modelcall asks a model for one reply: streamed when the model
// streams, in one piece when it does not.
package modelcall

import (
	"context"
	"reflect"

	"github.com/toolcall-go/toolcall/chat"
)

// Stream asks model for its reply to req and passes the reply's text to
// text as it arrives: in pieces when model implements
// [chat.StreamingModel], else in one piece once the reply is complete.
// text returning false stops the reply, with [chat.ErrStreamStopped].
func Stream(ctx context.Context, model chat.Model, req *chat.Request, text func(string) bool) (*chat.Response, error) {
	if sm, ok := model.(chat.StreamingModel); ok {
		return sm.Stream(ctx, req, func(d chat.Delta) bool {
			return d.Content == "" || text(d.Content)
		})
	}
	mr, err := model.Chat(ctx, req)
	if err == nil && mr != nil && mr.Message.Content != "" && !text(mr.Message.Content) {
		return nil, chat.ErrStreamStopped
	}
	return mr, err
}

// IsNil reports whether v is nil or holds a nil pointer, map, func...,
// whose methods would panic.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Slice, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// Forced reports whether c makes the model call a tool.
func Forced(c chat.ToolChoice) bool { return c.Name != "" || c.Mode == chat.ToolChoiceRequired }
