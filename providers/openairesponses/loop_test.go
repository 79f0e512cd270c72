package openairesponses_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// TestClientLoop runs the tool loop of a Client over each server's
// recorded call and answer. Ollama's call leaves out required arguments:
// the loop does not run the tool and sends the model what is wrong. From
// llama-server, not streamed, the second request is the recorded
// c_tool_result request: the loop sends back the call as it came and the
// tool's result under its call_id.
// ollamaInvalid is what the loop tells the model of Ollama's call.
const ollamaInvalid = `invalid arguments for tool "get_weather": unit: required field is missing; days: required field is missing; options: required field is missing`

func TestClientLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, first, second string
		stream              bool
		callID, args        string
		result              string // sent back for the call
	}{
		{name: "llamacpp", first: "llamacpp/a_tools", second: "llamacpp/c_tool_result", callID: "call_sCQM7xn5FGWGZ7eLjqoN3ZFVBwIOn7Mg", args: llamaArgs, result: "18 degrees, light wind"},
		{name: "ollama", first: "ollama/a_tools", second: "ollama/c_tool_result", callID: "call_lk55ifok", args: ollamaArgs, result: ollamaInvalid},
		{name: "llamacpp stream", first: "llamacpp/b_tools_stream", second: "llamacpp/c_tool_result", stream: true, callID: "call_sWorHYLyrEXEop7F6BTWZdyjhQ8YDBL7", args: llamaArgs, result: "18 degrees, light wind"},
		{name: "ollama stream", first: "ollama/b_tools_stream", second: "ollama/c_tool_result", stream: true, callID: "call_txtgfnd9", args: ollamaArgs, result: ollamaInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.first, tc.second)
			weather, err := toolcall.NewTool(weatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
				assert.Equal(t, tc.args, string(args))
				return "18 degrees, light wind", nil
			})
			require.NoError(t, err)
			prompt := toolcall.NewClient(newModel(srv, openairesponses.Config{})).Prompt("What is the weather in Paris?").
				Tools(weather).Options(chat.Options{Temperature: ptr(0.0)})
			var resp *toolcall.Response
			if tc.stream {
				var calls []string
				for ev, e := range prompt.Stream(context.Background()) {
					if ev.Kind == toolcall.EventToolCall {
						calls = append(calls, ev.ToolCall.ID)
					}
					if ev.Kind == toolcall.EventDone || e != nil {
						resp, err = ev.Response, e
					}
				}
				assert.Equal(t, []string{tc.callID}, calls)
			} else {
				resp, err = prompt.Call(context.Background())
			}
			require.NoError(t, err)
			assert.Equal(t, "The weather is warm.", resp.Content())
			require.Len(t, resp.Executions, 1)
			assert.Equal(t, tc.callID, resp.Executions[0].Call.ID)
			assert.Equal(t, tc.result, resp.Executions[0].Result)
			require.NoError(t, toolcalltest.CheckHistory(resp.History))
			assert.Equal(t, 2, got.Count())
			var second struct {
				Input []struct {
					CallID string `json:"call_id"`
					Output *string
				}
			}
			require.NoError(t, json.Unmarshal(got.Get(t, 1).Body, &second))
			require.Len(t, second.Input, 3)
			assert.Equal(t, tc.callID, second.Input[2].CallID)
			require.NotNil(t, second.Input[2].Output)
			assert.Equal(t, tc.result, *second.Input[2].Output)
			if !tc.stream && tc.result != ollamaInvalid {
				checkRecordedRequest(t, tc.second, got.Get(t, 1).Body)
			}
		})
	}
}

// TestConcurrentCalls: one Model serves Chat and Stream from many
// goroutines at once (run with -race).
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	// Each request is answered as it asks: streamed or not.
	var got *providertest.Capture
	srv, got := serve(t, func(w http.ResponseWriter, i int) {
		name := "ollama/a_tools"
		if bytes.Contains(got.Get(t, i).Body, []byte(`"stream":true`)) {
			name = "ollama/b_tools_stream"
		}
		rec := providertest.LoadRecording(t, name)
		w.Header().Set("Content-Type", rec.ContentType)
		_, _ = w.Write(rec.Body)
	})
	m := newModel(srv, openairesponses.Config{})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("What is the weather in Paris?")}, Tools: []chat.ToolDefinition{weatherTool}}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var resp *chat.Response
			var err error
			if i%2 == 0 {
				resp, err = m.Chat(context.Background(), req)
			} else {
				resp, err = m.Stream(context.Background(), req, nil)
			}
			if assert.NoError(t, err) && assert.Len(t, resp.Message.ToolCalls, 1) {
				assert.Equal(t, ollamaArgs, string(resp.Message.ToolCalls[0].Arguments))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 16, got.Count())
}
