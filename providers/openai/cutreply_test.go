package openai_test

import (
	"context"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestReplyCutShort: a reply with a complete tool call and finish_reason
// "length" finishes with FinishLength, and a Client runs none of its
// calls, with Chat and with Stream.
func TestReplyCutShort(t *testing.T) {
	t.Parallel()
	const wantErr = `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`
	want := &chat.Response{
		Message:      chat.AssistantMessage("", call("call_email", "send_email", `{"to":"ana@example.com","subject":"Invoice"}`)),
		FinishReason: chat.FinishLength,
		Usage:        chat.Usage{PromptTokens: 90, CompletionTokens: 12, TotalTokens: 102},
		Model:        "gpt-4o-mini-2024-07-18",
		Attempts:     1,
	}
	for _, tc := range []struct {
		name, recording string
		stream          bool
	}{
		{name: "chat", recording: "h_length_tool_call"},
		{name: "stream", recording: "h_stream_length_tool_call", stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			t.Run("adapter", func(t *testing.T) {
				t.Parallel()
				srv, _ := replay(t, tc.recording)
				m := newModel(srv, openai.Config{})
				req := &chat.Request{Messages: []chat.Message{providertest.CutAsk}, Tools: []chat.ToolDefinition{providertest.EmailTool}}
				var resp *chat.Response
				var err error
				if tc.stream {
					resp, err = m.Stream(context.Background(), req, func(chat.Delta) bool { return true })
				} else {
					resp, err = m.Chat(context.Background(), req)
				}
				require.NoError(t, err)
				assert.Equal(t, want, resp)
			})

			t.Run("client", func(t *testing.T) {
				t.Parallel()
				srv, got := replay(t, tc.recording)
				providertest.CutReply(t, newModel(srv, openai.Config{}), chat.Options{}, got, tc.stream, want, wantErr)
			})
		})
	}
}
