package toolcall_test

import (
	"context"
	"errors"
	"strings"
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

// sizedAnswer has fields whose Go types bound what the schema does not:
// SchemaFor gives {"type":"integer"} for both, with no minimum/maximum.
type sizedAnswer struct {
	N int8 `json:"n"`
	U uint `json:"u"`
}

// TestAnswerRefusedByItsType: in the tool mode, an answer that passes the
// schema but not the type (300 for an int8) goes back to the model with
// what was wrong, as in the native mode, and the AnswerError says it; the
// model is never told that such an answer was received.
func TestAnswerRefusedByItsType(t *testing.T) {
	model := tt.NewModel(answer("a1", `{"n":300,"u":1}`), answer("a2", `{"n":300,"u":1}`), answer("a3", `{"n":300,"u":1}`))
	var v sizedAnswer
	resp, err := toolcall.NewClient(model).Prompt("x").Answer(&v).Call(context.Background())
	var ae *toolcall.AnswerError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v, want an AnswerError", err)
	}
	for _, m := range resp.History {
		if m.Role == chat.RoleTool && m.Content == "answer received" {
			t.Errorf("a refused answer's tool result is %q: the model is not told what was wrong", m.Content)
		}
	}
	if strings.Contains(ae.Error(), "answer received") || !strings.Contains(ae.Error(), "-128") {
		t.Errorf("AnswerError %q (violations %+v): want the decode's violation (n: must be between -128 and 127)", ae, ae.Violations)
	}
}
