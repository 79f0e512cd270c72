package openai_test

import (
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
	"github.com/toolcall-go/toolcall/providers/openai"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// The reasoning and the thought signature of the h_deepseek_* and h_gemini_*
// recordings, as the server sent them.
const (
	deepseekReasoning = "The user asks about \"Paris\".\nI should call get_weather <city=Paris> & answer."
	geminiSignature   = `{"google":{"thought_signature":"CiQBcsjafE2x+Yk9sPW0/bmpQwM3qJ8GYq1R7X2tLvX8n0mZ1c8KYgFyyNp8Q4l3b0Vx+/w=="}}`
)

// TestLoopSendsBackReasoningAndProviderData runs the tool loop through a
// Client over replies that carry data the server wants back in the next
// request: DeepSeek's reasoning_content (its thinking mode requires it
// during tool calls) and Gemini's thought signature in a tool call's
// extra_content, on calls without ids (cloudwego/eino#621,
// cloudwego/eino-ext#550). The second request must carry them unchanged,
// the signature on the call it came with.
func TestLoopSendsBackReasoningAndProviderData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		recordings    []string
		stream        bool
		wantReasoning string
		wantCalls     []chat.ToolCall
	}{
		{
			name: "deepseek reasoning", recordings: []string{"h_deepseek_reasoning", "llamacpp/e_loop_none"},
			wantReasoning: deepseekReasoning,
			wantCalls:     []chat.ToolCall{call("call_00_jXvT0fKq2bsQ9wLmE3hR", "get_weather", `{"city":"Paris"}`)},
		},
		{
			name: "stream deepseek reasoning", recordings: []string{"h_stream_deepseek_reasoning", "llamacpp/e4_loop_none_stream"}, stream: true,
			wantReasoning: deepseekReasoning,
			wantCalls:     []chat.ToolCall{call("call_00_jXvT0fKq2bsQ9wLmE3hR", "get_weather", `{"city":"Paris"}`)},
		},
		{
			name: "gemini thought signature", recordings: []string{"h_gemini_thought_signature", "llamacpp/e_loop_none"},
			wantCalls: []chat.ToolCall{
				{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`), ProviderData: json.RawMessage(geminiSignature)},
				call("call_1", "get_weather", `{"city":"Lyon"}`),
			},
		},
		{
			name: "stream gemini thought signature", recordings: []string{"h_stream_gemini_thought_signature", "llamacpp/e4_loop_none_stream"}, stream: true,
			wantCalls: []chat.ToolCall{
				{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`), ProviderData: json.RawMessage(geminiSignature)},
				call("call_1", "get_weather", `{"city":"Lyon"}`),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recordings...)
			weather, err := toolcall.NewTool(shortWeatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
				return `{"temperature":21}`, nil
			})
			require.NoError(t, err)
			var mu sync.Mutex
			var sent []*chat.Request
			client := toolcall.NewClient(newModel(srv, openai.Config{}), toolcall.WithHooks(toolcall.Hooks{
				BeforeModel: func(ctx context.Context, req *chat.Request) context.Context {
					mu.Lock()
					defer mu.Unlock()
					sent = append(sent, req)
					return ctx
				},
			}))
			prompt := client.Prompt("What is the weather in Paris?").Model("tiny").Tools(weather)

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
			assert.Equal(t, "The weather is warm.", resp.Content())
			require.Len(t, resp.Intermediate, 2)
			first := resp.Intermediate[0].Message
			assert.Equal(t, tc.wantReasoning, first.Reasoning)
			assert.Equal(t, tc.wantCalls, first.ToolCalls)
			// The history keeps the reply's message whole.
			require.GreaterOrEqual(t, len(resp.History), 2)
			assert.Equal(t, first, resp.History[1])
			require.NoError(t, toolcalltest.CheckHistory(resp.History))

			body := got.Get(t, 1).Body
			var second struct {
				Messages []struct {
					Role             string  `json:"role"`
					Content          *string `json:"content"`
					ReasoningContent *string `json:"reasoning_content"`
					ToolCalls        []struct {
						ID           string          `json:"id"`
						ExtraContent json.RawMessage `json:"extra_content"`
					} `json:"tool_calls"`
					ToolCallID string `json:"tool_call_id"`
				} `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(body, &second))
			require.Len(t, second.Messages, 2+len(tc.wantCalls))
			replayed := second.Messages[1]
			assert.Equal(t, "assistant", replayed.Role)
			assert.Nil(t, replayed.Content, "an assistant turn with calls and no text has content null")
			if tc.wantReasoning != "" {
				require.NotNil(t, replayed.ReasoningContent)
				assert.Equal(t, tc.wantReasoning, *replayed.ReasoningContent)
			} else {
				assert.Nil(t, replayed.ReasoningContent)
			}
			require.Len(t, replayed.ToolCalls, len(tc.wantCalls))
			for i, want := range tc.wantCalls {
				assert.Equal(t, want.ID, replayed.ToolCalls[i].ID)
				// Byte for byte, on the call it came with.
				assert.Equal(t, string(want.ProviderData), string(replayed.ToolCalls[i].ExtraContent), "call %d", i)
				assert.Equal(t, want.ID, second.Messages[2+i].ToolCallID, "tool message %d", i)
			}
			for _, m := range second.Messages[1:] {
				if m.Role != "assistant" {
					assert.Nil(t, m.ReasoningContent, "reasoning only on the assistant message")
				}
			}

			// WireJSON renders the same request as the provider sent it.
			mu.Lock()
			require.Len(t, sent, 2)
			req := sent[1]
			mu.Unlock()
			wire := toolcalltest.WireJSON(req)
			if tc.stream {
				checkStreamBody(t, wire, body)
			} else {
				assert.Equal(t, string(wire), string(body))
			}
			providertest.CheckGolden(t, "loop_"+providertest.Slug(tc.name), body, *update)
		})
	}
}

// TestProviderDataNotJSON: a call's ProviderData that is an object but not
// valid JSON cannot be sent back; the request is refused before it is sent.
func TestProviderDataNotJSON(t *testing.T) {
	t.Parallel()
	sent := &providertest.Capture{}
	m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m",
		HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: "application/json", body: []byte(`{}`), sent: sent}}})
	req := &chat.Request{Messages: []chat.Message{chat.AssistantMessage("",
		chat.ToolCall{ID: "c1", Name: "now", ProviderData: json.RawMessage(`{"google":`)})}}
	_, err := m.Chat(context.Background(), req)
	pe := checkProviderError(t, err, chat.ErrBadRequest, 0, "m")
	assert.Equal(t, `message 0: tool call "c1": ProviderData is not valid JSON`, pe.Message)
	assert.Equal(t, 0, sent.Count())
	assert.Contains(t, string(toolcalltest.WireJSON(req)), `{"error":`)
}
