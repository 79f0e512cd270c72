package ollama_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// TestReplyCutShort: a reply whose final line says done_reason "length"
// finishes with FinishLength although it has a tool call (Ollama's "stop"
// for tool calls must not win), and a Client runs none of its calls, with
// Chat and with Stream.
func TestReplyCutShort(t *testing.T) {
	t.Parallel()
	const wantErr = `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`
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
				req := &chat.Request{Messages: []chat.Message{providertest.CutAsk}, Tools: []chat.ToolDefinition{providertest.EmailTool}, Options: opts}
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
				providertest.CutReply(t, newModel(srv, ollama.Config{}), opts, got, tc.stream, want, wantErr)
				checkCaptured(t, tc.recording, got.Get(t, 0).Body)
			})
		})
	}
}
