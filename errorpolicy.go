package toolcall

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// fail applies the error policy to te and fills e. A non-nil result aborts.
func (cfg *config) fail(ctx context.Context, e *ToolExecution, te *ToolError) error {
	e.Err, e.IsError = te, true
	handler := cfg.errorHandler
	if handler == nil {
		handler = DefaultToolErrorHandler
	}
	text, err := handler(ctx, te)
	e.Result = failedText(te.Name, text)
	return err
}

// DefaultToolErrorHandler is the error policy used unless
// [WithToolErrorHandler] replaces it: the caller's context ending and errors
// wrapping [ErrFatal] abort the call; any other error's message is sent to
// the model, which may correct itself: a call to a tool that was not
// offered ([ErrToolNotFound]) gets the names of the tools that were, and
// bad arguments ([*ArgumentError]) what was wrong with them. A panic, or an
// error wrapping ErrFatal, gives "tool NAME failed" with no detail: that
// text is for the caller, and the history holding it may be sent to a
// model again.
func DefaultToolErrorHandler(ctx context.Context, te *ToolError) (string, error) {
	if ctx.Err() != nil {
		return "tool call cancelled", ctx.Err()
	}
	if errors.Is(te.Err, ErrFatal) {
		return toolErrorText(te), te
	}
	return toolErrorText(te), nil
}

// toolErrorText is the text the model gets for a failed call: the cause's
// message, or "tool NAME failed" when it is blank. A panic and an error
// wrapping [ErrFatal] also give "tool NAME failed": their text is for the
// caller, and the history holding this text may be sent to a model again.
func toolErrorText(te *ToolError) string {
	switch {
	case te.Panic != nil:
		return fmt.Sprintf("tool %s failed: internal error", te.Name)
	case te.Err == nil || errors.Is(te.Err, ErrFatal):
		return failedText(te.Name, "")
	}
	return failedText(te.Name, strings.TrimSpace(te.Err.Error()))
}
