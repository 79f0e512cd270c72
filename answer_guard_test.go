package toolcall_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// TestAnswerDeclinedByEligibility: a reply with the answer's call that
// WithEligibility declines ends the call with an error, never with a nil
// error and the caller's value unwritten.
func TestAnswerDeclinedByEligibility(t *testing.T) {
	// A provider that reports "stop" on a reply with tool calls (several do).
	r := tt.ToolCalls(tt.Call("a1", "final_answer", `{"item":"x","qty":99,"size":"XXL"}`))
	r.Response.FinishReason = chat.FinishStop
	model := tt.NewModel(r)
	client := toolcall.NewClient(model, toolcall.WithTools(stockTool()),
		toolcall.WithEligibility(func(r *chat.Response) bool { return r.FinishReason == chat.FinishToolCalls }))
	var got Order
	_, err := client.Prompt("order").Answer(&got).Call(context.Background())
	require.Error(t, err, "the call ended without a typed answer, and says nothing: got = %+v", got)
}

// TestAnswerOverAsModel: a Client used as a model (AsModel) does not offer
// the caller's tools, so a typed answer through the answer tool is refused
// up front, and the inner client's tools never run for it.
func TestAnswerOverAsModel(t *testing.T) {
	runs := 0
	charge := toolcall.MustFunc("charge", "Charge the card", func(ctx context.Context, _ struct{}) (string, error) {
		runs++
		return "charged", nil
	})
	inner := tt.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		if req.ToolChoice.Mode == chat.ToolChoiceRequired {
			return tt.ToolCalls(tt.Call("c1", "charge", `{}`)).Response, nil
		}
		return tt.Text(`{"item":"x","qty":1,"size":"S"}`).Response, nil
	})
	outer := toolcall.NewClient(toolcall.NewClient(inner, toolcall.WithTools(charge)).AsModel())
	var got Order
	_, err := outer.Prompt("order").Answer(&got).Call(context.Background())
	require.Error(t, err)
	require.Equal(t, 0, runs, "the inner client's tool ran %d times for one outer call (error: %v)", runs, err)
}
