package oteltoolcall

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
)

type customError struct{}

func (*customError) Error() string { return "custom" }

type typedError struct{}

func (typedError) Error() string     { return "typed" }
func (typedError) ErrorType() string { return "quota_exceeded" }

// The values of error.type, as the package documentation lists them.
func TestErrorType(t *testing.T) {
	t.Parallel()
	tool := func(err error) error { return &toolcall.ToolError{Name: "t", CallID: "1", Err: err} }
	for _, c := range []struct {
		err  error
		want string
	}{
		{tool(typedError{}), "quota_exceeded"},
		{fmt.Errorf("wrapped: %w", typedError{}), "quota_exceeded"},
		{&toolcall.ToolError{Panic: "oops", Err: errors.New("panic: oops")}, "panic"},
		{&chat.ProviderError{Provider: "openai", StatusCode: 503, Err: chat.ErrServer}, "503"},
		{fmt.Errorf("round 2: %w", &chat.ProviderError{StatusCode: 401, Err: chat.ErrUnauthorized}), "401"},
		{&chat.ProviderError{Provider: "ollama", Err: errors.New("connection refused")}, "*chat.ProviderError"},
		{tool(fmt.Errorf("timed out after 1s: %w", context.DeadlineExceeded)), "timeout"},
		{context.DeadlineExceeded, "timeout"},
		{tool(context.Canceled), "canceled"},
		{tool(fmt.Errorf("%w: no such tool", toolcall.ErrToolNotFound)), "tool_not_found"},
		{tool(&toolcall.ArgumentError{Tool: "t"}), "invalid_arguments"},
		{fmt.Errorf("%w: 10 rounds", toolcall.ErrMaxIterations), "max_iterations"},
		{fmt.Errorf("%w: finish reason length", toolcall.ErrReplyCut), "reply_cut"},
		{chat.ErrStreamStopped, "stream_stopped"},
		{tool(errors.New("boom")), "*errors.errorString"},
		{tool(fmt.Errorf("fetching: %w", &customError{})), "*oteltoolcall.customError"},
		{tool(fmt.Errorf("charge: %w", toolcall.ErrFatal)), "*errors.errorString"},
		{&customError{}, "*oteltoolcall.customError"},
	} {
		assert.Equal(t, c.want, errorType(c.err), "%v", c.err)
	}
}
