package openai_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestClientLoop runs the library's whole tool loop through the adapter
// against a server scripted with captured exchanges: the model calls
// get_weather, the tool runs, the model answers.
func TestClientLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		recordings []string
		tool       chat.ToolDefinition
		stream     bool
		wantCalls  []chat.ToolCall
	}{
		{
			name: "chat", recordings: []string{"llamacpp/c2_tools_auto", "llamacpp/e_loop_none"}, tool: weatherTool,
			wantCalls: []chat.ToolCall{call("bV8QPhBwjnr8swJ3TeacS0uh9AwvlJsL", "get_weather",
				`{"city":"Paris","unit":"fahrenheit","options":{"days": -9,"detail":{"wind":false}}}`)},
		},
		{
			name: "chat ollama v1", recordings: []string{"ollama-v1/c_tools_required", "llamacpp/e_loop_none"}, tool: shortWeatherTool,
			wantCalls: []chat.ToolCall{call("call_pjrjwp0p", "get_weather", `{"city":"Paris"}`)},
		},
		{
			name: "chat without ids", recordings: []string{"h_missing_ids", "llamacpp/e_loop_none"}, tool: shortWeatherTool,
			wantCalls: []chat.ToolCall{call("call_0", "get_weather", `{"city":"Paris"}`), call("call_1", "get_weather", `{"city":"Lyon"}`)},
		},
		{
			// The second reply of a streamed loop must be a stream too.
			name: "stream", recordings: []string{"llamacpp/d_tools_required_stream", "llamacpp/e4_loop_none_stream"}, tool: weatherTool, stream: true,
			wantCalls: []chat.ToolCall{call("1eqy8GtjAgRUt087fhEQFDvi8Cc2gasn", "get_weather",
				`{"city":"Paris","unit":"fahrenheit","options":{"days":5,"detail":{"wind":false}}}`)},
		},
		{
			name: "stream ollama v1", recordings: []string{"ollama-v1/d_tools_stream", "llamacpp/e4_loop_none_stream"}, tool: shortWeatherTool, stream: true,
			wantCalls: []chat.ToolCall{call("call_vueq4ugy", "get_weather", `{"city":"Paris"}`)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recordings...)
			var runs atomic.Int32
			weather, err := toolcall.NewTool(tc.tool, func(ctx context.Context, args json.RawMessage) (string, error) {
				runs.Add(1)
				return `{"temperature":21,"condition":"sunny"}`, nil
			})
			require.NoError(t, err)
			client := toolcall.NewClient(newModel(srv, openai.Config{}))
			prompt := client.Prompt("What is the weather in Paris?").Tools(weather)

			var resp *toolcall.Response
			var kinds []toolcall.EventKind
			var streamed string
			if tc.stream {
				for ev, err := range prompt.Stream(context.Background()) {
					require.NoError(t, err)
					kinds = append(kinds, ev.Kind)
					streamed += ev.Text
					if ev.Kind == toolcall.EventDone {
						resp = ev.Response
					}
				}
			} else {
				resp, err = prompt.Call(context.Background())
				require.NoError(t, err)
			}

			require.NotNil(t, resp)
			assert.Equal(t, "The weather is warm.", resp.Content())
			assert.Equal(t, 2, resp.Rounds)
			assert.Equal(t, int32(len(tc.wantCalls)), runs.Load(), "tool runs")
			require.Len(t, resp.Executions, len(tc.wantCalls))
			for i, want := range tc.wantCalls {
				assert.Equal(t, want, resp.Executions[i].Call)
			}
			assert.Equal(t, 2, got.Count())
			if tc.stream {
				assert.Equal(t, "The weather is warm.", streamed)
				assert.Equal(t, toolcall.EventToolCall, kinds[0])
				assert.Equal(t, toolcall.EventToolResult, kinds[1])
				assert.Equal(t, toolcall.EventText, kinds[2])
				assert.Equal(t, toolcall.EventDone, kinds[len(kinds)-1])
			}
			// The second request replays the assistant's call and answers
			// it with a tool message carrying tool_call_id.
			providertest.CheckGolden(t, "loop_"+providertest.Slug(tc.name), got.Get(t, 1).Body, *update)
		})
	}
}
