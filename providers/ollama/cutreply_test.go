package ollama_test

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
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// emailTool is the tool offered in the h_*length_tool_call recordings.
var emailTool = chat.ToolDefinition{
	Name:        "send_email",
	Description: "Send an email",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"}},"required":["to"]}`),
}

// TestReplyCutShort: a reply whose final line says done_reason "length"
// finishes with FinishLength although it has a tool call (Ollama's "stop"
// for tool calls must not win), and a Client runs none of its calls, with
// Chat and with Stream.
func TestReplyCutShort(t *testing.T) {
	t.Parallel()
	const wantErr = `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`
	ask := chat.UserMessage("Email Ana the invoice.")
	for _, tc := range []struct {
		name, recording, callID string
		stream                  bool
	}{
		{name: "chat", recording: "h_length_tool_call", callID: "call_x4k9p2qa"},
		{name: "stream", recording: "h_stream_length_tool_call", callID: "call_r7m2w8zd", stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := &chat.Response{
				Message: chat.AssistantMessage("", chat.ToolCall{
					ID: tc.callID, Name: "send_email", Arguments: json.RawMessage(`{"to":"ana@example.com","subject":"Invoice"}`),
				}),
				FinishReason: chat.FinishLength,
				Usage:        chat.Usage{PromptTokens: 160, CompletionTokens: 12, TotalTokens: 172},
				Model:        "tiny-toolcaller",
				Attempts:     1,
			}
			opts := chat.Options{MaxTokens: ptr(12)}

			t.Run("adapter", func(t *testing.T) {
				t.Parallel()
				srv, got := replay(t, tc.recording)
				m := newModel(srv, ollama.Config{})
				req := &chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{emailTool}, Options: opts}
				var resp *chat.Response
				var err error
				if tc.stream {
					resp, err = m.Stream(context.Background(), req, func(chat.Delta) bool { return true })
				} else {
					resp, err = m.Chat(context.Background(), req)
				}
				require.NoError(t, err)
				checkCaptured(t, tc.recording, got.Get(t, 0).Body)
				assert.Equal(t, want, resp)
			})

			t.Run("client", func(t *testing.T) {
				t.Parallel()
				srv, got := replay(t, tc.recording)
				var runs atomic.Int32
				send, err := toolcall.NewTool(emailTool, func(ctx context.Context, args json.RawMessage) (string, error) {
					runs.Add(1)
					return "sent", nil
				})
				require.NoError(t, err)
				prompt := toolcall.NewClient(newModel(srv, ollama.Config{})).Prompt(ask.Content).Tools(send).Options(opts)

				streamed := providertest.CutReply(t, prompt, tc.stream, runs.Load, want, ask, wantErr)
				if tc.stream {
					assert.Equal(t, []string{tc.callID}, streamed)
				}
				assert.Equal(t, 1, got.Count(), "no request after the cut reply")
				checkCaptured(t, tc.recording, got.Get(t, 0).Body)
			})
		})
	}
}
