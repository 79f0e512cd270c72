package oteltoolcall_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// structured is a scripted model that asks for a typed answer natively.
type structured struct{ *tt.Model }

func (structured) StructuredOutput() bool { return true }

// TestAnswerAttributes: a typed answer's mode is on each model span, the
// GenAI output type json when it is native, and its repairs on the call's
// span.
func TestAnswerAttributes(t *testing.T) {
	t.Parallel()
	type city struct {
		Name string `json:"name"`
	}
	for _, tc := range []struct {
		mode   chat.OutputMode
		model  chat.Model
		output any
	}{
		{chat.OutputTool, tt.NewModel(tt.ToolCalls(tt.Call("1", "final_answer", `{}`)), tt.ToolCalls(tt.Call("2", "final_answer", `{"name":"Lyon"}`))), nil},
		{chat.OutputNative, structured{tt.NewModel(tt.Text(`{}`), tt.Text(`{"name":"Lyon"}`))}, "json"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			var got city
			resp, err := toolcall.NewClient(tc.model, toolcall.WithHooks(r.hooks())).Prompt("a city").Answer(&got).Call(context.Background())
			require.NoError(t, err)
			require.Equal(t, 1, resp.Repairs)
			require.Equal(t, "Lyon", got.Name)
			call := named(r.ended(), "invoke_agent")
			require.Len(t, call, 1)
			assert.Equal(t, int64(1), attrs(call[0].Attributes)["toolcall.answer.repairs"])
			for _, s := range named(r.ended(), "chat") {
				a := attrs(s.Attributes)
				assert.Equal(t, string(tc.mode), a["toolcall.answer.mode"])
				if tc.output != nil {
					assert.Equal(t, tc.output, a["gen_ai.output.type"])
				} else {
					assert.NotContains(t, a, "gen_ai.output.type")
				}
			}
			assert.Len(t, named(r.ended(), "chat"), 2)
		})
	}
}
