package anthropic_test

import (
	"context"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestUsage: input_tokens leaves out the prompt tokens read from and
// written to the cache, which PromptTokens counts; output_tokens counts
// the thinking tokens, output_tokens_details.thinking_tokens, which are
// ReasoningTokens. In a stream, message_delta's counts are cumulative:
// each replaces message_start's (output_tokens 88 there, as recorded),
// and a count message_delta leaves out keeps message_start's.
func TestUsage(t *testing.T) {
	t.Parallel()
	const counts = `"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"cache_creation":{"ephemeral_5m_input_tokens":20,"ephemeral_1h_input_tokens":0},"output_tokens":50,"output_tokens_details":{"thinking_tokens":30},"service_tier":"standard","inference_geo":"global"}`
	want := chat.Usage{PromptTokens: 130, CompletionTokens: 50, TotalTokens: 180, CacheReadTokens: 100, CacheWriteTokens: 20, ReasoningTokens: 30}
	start := func(usage string) string {
		return `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":` + usage + `}}`
	}
	text := []string{textStart, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`, `{"type":"content_block_stop","index":0}`}
	for _, tc := range []struct {
		name string
		body string
		want chat.Usage
	}{
		{name: "reply", want: want,
			body: `{"type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_details":null,"stop_sequence":null,` + counts + `}`},
		{name: "stream: message_delta repeats every count", want: want, body: sse(append(append([]string{
			start(`{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":88}`)}, text...),
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null,"stop_details":null},`+counts+`}`, msgStop)...)},
		{name: "stream: message_delta has output tokens only", want: chat.Usage{PromptTokens: 130, CompletionTokens: 49, TotalTokens: 179, CacheReadTokens: 100, CacheWriteTokens: 20},
			body: sse(append(append([]string{
				start(`{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":20,"output_tokens":3}`)}, text...),
				`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":49}}`, msgStop)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, reply(tc.body))
			m := newModel(srv, anthropic.Config{})
			var resp *chat.Response
			var err error
			if tc.name == "reply" {
				resp, err = m.Chat(context.Background(), hiRequest)
			} else {
				resp, err = m.Stream(context.Background(), hiRequest, nil)
			}
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Message.Content)
			assert.Equal(t, tc.want, resp.Usage)
		})
	}
}
