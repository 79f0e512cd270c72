package ollama_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// thinking is the thinking text of the h_*thinking_tools recordings.
const thinking = "The user wants the weather in \"Paris\".\nI will call get_weather <city=Paris> & then answer."

// TestLoopSendsBackThinking runs the tool loop through a Client over a
// thinking model's reply: its "thinking" becomes Message.Reasoning, stays
// in the history and goes back, unchanged, with the assistant message in
// the next request.
func TestLoopSendsBackThinking(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		recordings []string
		stream     bool
	}{
		{name: "thinking", recordings: []string{"h_thinking_tools", "e_loop"}},
		{name: "stream thinking", recordings: []string{"h_stream_thinking_tools", "d_plain_stream"}, stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recordings...)
			weather, err := toolcall.NewTool(weatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
				return `{"temperature":21}`, nil
			})
			require.NoError(t, err)
			client := toolcall.NewClient(newModel(srv, ollama.Config{Think: ptr(true)}))
			prompt := client.Prompt("What is the weather in Paris?").Tools(weather)

			var resp *toolcall.Response
			if tc.stream {
				for ev, err := range prompt.Stream(context.Background()) {
					require.NoError(t, err)
					if ev.Kind == toolcall.EventDone {
						resp = ev.Response
					}
				}
			} else {
				resp, err = prompt.Call(context.Background())
				require.NoError(t, err)
			}

			require.NotNil(t, resp)
			require.NotEmpty(t, resp.Intermediate)
			first := resp.Intermediate[0].Message
			assert.Equal(t, thinking, first.Reasoning)
			assert.Equal(t, []chat.ToolCall{{ID: "call_t1nk3r5x", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}},
				first.ToolCalls)
			require.GreaterOrEqual(t, len(resp.History), 3)
			assert.Equal(t, first, resp.History[1], "the history keeps the reply's message whole")
			require.NoError(t, toolcalltest.CheckHistory(resp.History))

			body := got.Get(t, 1).Body
			var second struct {
				Messages []struct {
					Role     string  `json:"role"`
					Thinking *string `json:"thinking"`
				} `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(body, &second))
			require.Len(t, second.Messages, 3)
			assert.Equal(t, "assistant", second.Messages[1].Role)
			require.NotNil(t, second.Messages[1].Thinking)
			assert.Equal(t, thinking, *second.Messages[1].Thinking)
			assert.Nil(t, second.Messages[0].Thinking)
			assert.Nil(t, second.Messages[2].Thinking)
			providertest.CheckGolden(t, "loop_"+providertest.Slug(tc.name), body, *update)
		})
	}
}
