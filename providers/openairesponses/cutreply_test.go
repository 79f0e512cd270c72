package openairesponses_test

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
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// emailTool is the tool called in the cut replies.
var emailTool = chat.ToolDefinition{
	Name:        "send_email",
	Description: "Send an email",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"}},"required":["to"]}`),
}

// TestReplyCut: a response whose status is "incomplete" is a reply cut
// short, FinishLength for max_output_tokens and FinishFiltered for
// content_filter, whatever calls it holds; a Client runs none of them.
func TestReplyCut(t *testing.T) {
	t.Parallel()
	ask := chat.UserMessage("Email Ana the invoice.")
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
				req := &chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{emailTool}}
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
				var runs atomic.Int32
				send, err := toolcall.NewTool(emailTool, func(ctx context.Context, args json.RawMessage) (string, error) {
					runs.Add(1)
					return "sent", nil
				})
				require.NoError(t, err)
				prompt := toolcall.NewClient(newModel(srv, openairesponses.Config{})).Prompt(ask.Content).Tools(send)
				streamed := providertest.CutReply(t, prompt, tc.stream, runs.Load, tc.want, ask, tc.wantErr)
				if tc.stream {
					assert.Equal(t, []string{"call_email"}, streamed)
				}
				assert.Equal(t, 1, got.Count(), "no request after the cut reply")
			})
		})
	}
}
