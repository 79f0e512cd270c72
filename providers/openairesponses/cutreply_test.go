package openairesponses_test

import (
	"context"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestReplyCut: a response whose status is "incomplete" is a reply cut
// short, FinishLength for max_output_tokens and FinishFiltered for
// content_filter, whatever calls it holds; a Client runs none of them.
func TestReplyCut(t *testing.T) {
	t.Parallel()
	email := call("call_email", "send_email", `{"to":"ana@example.com","subject":"Invoice"}`)
	usage := chat.Usage{PromptTokens: 90, CompletionTokens: 12, TotalTokens: 102}
	for _, tc := range []struct {
		name, recording string
		stream          bool
		want            *chat.Response
		wantErr         string
	}{
		{
			name: "max_output_tokens", recording: "h_incomplete_tool_call",
			want: &chat.Response{Message: chat.AssistantMessage("", email), FinishReason: chat.FinishLength,
				Usage: usage, Model: "gpt-5-mini-2025-08-07", Attempts: 1},
			wantErr: `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`,
		},
		{
			name: "max_output_tokens streamed", recording: "h_stream_incomplete_tool_call", stream: true,
			want: &chat.Response{Message: chat.AssistantMessage("", email), FinishReason: chat.FinishLength,
				Usage: usage, Model: "gpt-5-mini-2025-08-07", Attempts: 1},
			wantErr: `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`,
		},
		{
			name: "content_filter", recording: "h_content_filter",
			want: &chat.Response{Message: chat.AssistantMessage("Here is how to", email), FinishReason: chat.FinishFiltered,
				Usage: usage, Model: "gpt-5-mini-2025-08-07", Attempts: 1},
			wantErr: `toolcall: model reply cut short: finish reason "content_filter"; its 1 tool call was not run`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			t.Run("model", func(t *testing.T) {
				t.Parallel()
				srv, _ := replay(t, tc.recording)
				m := newModel(srv, openairesponses.Config{})
				req := &chat.Request{Messages: []chat.Message{providertest.CutAsk}, Tools: []chat.ToolDefinition{providertest.EmailTool}}
				var resp *chat.Response
				var err error
				if tc.stream {
					resp, err = m.Stream(context.Background(), req, nil)
				} else {
					resp, err = m.Chat(context.Background(), req)
				}
				require.NoError(t, err)
				assert.Equal(t, tc.want, resp)
			})

			t.Run("client", func(t *testing.T) {
				t.Parallel()
				srv, got := replay(t, tc.recording)
				providertest.CutReply(t, newModel(srv, openairesponses.Config{}), chat.Options{}, got, tc.stream, tc.want, tc.wantErr)
			})
		})
	}
}
