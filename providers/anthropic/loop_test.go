package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestRecordedLoop runs the loop on each server's recordings: the call
// (a_tools, or b_tools_stream streamed), then the answer to its result
// (c_tool_result). The second request sends the call back and its result
// in the next user turn, as the recorded c_tool_result request does.
func TestRecordedLoop(t *testing.T) {
	t.Parallel()
	for _, server := range []string{"llamacpp", "ollama"} {
		for _, stream := range []bool{false, true} {
			first := "a_tools"
			if stream {
				first = "b_tools_stream"
			}
			t.Run(server+"/"+first, func(t *testing.T) {
				t.Parallel()
				srv, c := replay(t, server+"/"+first, server+"/c_tool_result")
				// Ollama's call has only the city: the tool asks for no more.
				weather, err := toolcall.NewTool(shortTool, func(ctx context.Context, args json.RawMessage) (string, error) {
					return "18 degrees, light wind", nil
				})
				require.NoError(t, err)
				prompt := toolcall.NewClient(newModel(srv, anthropic.Config{Version: anthropic.Version20230601})).
					Prompt(askWeather).Tools(weather).Options(chat.Options{MaxTokens: ptr(200), Temperature: ptr(0.0)})
				var resp *toolcall.Response
				if stream {
					for ev, e := range prompt.Stream(context.Background()) {
						require.NoError(t, e)
						if ev.Response != nil {
							resp = ev.Response
						}
					}
				} else {
					resp, err = prompt.Call(context.Background())
					require.NoError(t, err)
				}
				require.NotNil(t, resp)
				assert.Equal(t, "The weather is warm.", resp.Content())
				require.Len(t, resp.Executions, 1)
				assert.False(t, resp.Executions[0].IsError)
				require.Equal(t, 2, c.Count())

				// The call goes back as the server made it, its result in
				// a user turn of its own.
				call := resp.History[1].ToolCalls[0]
				var sent struct {
					Messages []json.RawMessage `json:"messages"`
				}
				require.NoError(t, json.Unmarshal(c.Get(t, 1).Body, &sent))
				require.Len(t, sent.Messages, 3)
				assert.JSONEq(t, `{"role":"assistant","content":[{"type":"tool_use","id":"`+call.ID+`","name":"get_weather","input":`+string(call.Arguments)+`}]}`, string(sent.Messages[1]))
				assert.JSONEq(t, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+call.ID+`","content":"18 degrees, light wind"}]}`, string(sent.Messages[2]))
			})
		}
	}
}

// TestReplyCutShort: a reply with a complete call and stop_reason
// max_tokens finishes with FinishLength, and a Client runs none of its
// calls, with Chat and with Stream.
func TestReplyCutShort(t *testing.T) {
	t.Parallel()
	const wantErr = `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`
	want := &chat.Response{
		Message:      chat.AssistantMessage("", call("toolu_email", "send_email", `{"to":"ana@example.com","subject":"Invoice"}`)),
		FinishReason: chat.FinishLength,
		Usage:        chat.Usage{PromptTokens: 90, CompletionTokens: 12, TotalTokens: 102},
		Model:        "claude-test",
		Attempts:     1,
	}
	for _, tc := range []struct {
		name, recording string
		stream          bool
	}{
		{name: "chat", recording: "h_max_tokens_tool_call"},
		{name: "stream", recording: "h_stream_max_tokens_tool_call", stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recording)
			providertest.CutReply(t, newModel(srv, anthropic.Config{}), chat.Options{}, got, tc.stream, want, wantErr)
		})
	}
}
