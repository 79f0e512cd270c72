package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestUsage reads the usage of a reply and of a stream's usage chunk (the
// last one, with "choices":[], after chunks with "usage":null): cached
// prompt tokens and reasoning tokens included, and the server's total
// kept as it is.
func TestUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		usage string
		want  chat.Usage
	}{
		{
			name:  "openai details",
			usage: `{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":256,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`,
			want:  chat.Usage{PromptTokens: 2006, CompletionTokens: 300, TotalTokens: 2306, CacheReadTokens: 1920, ReasoningTokens: 256},
		},
		{
			// Gemini's OpenAI-compatible endpoint counts thinking in the
			// total only: the total stays the server's, and no reasoning
			// tokens are made up from the difference.
			name:  "gemini total beyond prompt and completion",
			usage: `{"completion_tokens":12,"prompt_tokens":35,"total_tokens":109}`,
			want:  chat.Usage{PromptTokens: 35, CompletionTokens: 12, TotalTokens: 109},
		},
		{
			name:  "no total",
			usage: `{"completion_tokens":12,"prompt_tokens":35}`,
			want:  chat.Usage{PromptTokens: 35, CompletionTokens: 12, TotalTokens: 47},
		},
		{
			name:  "null details",
			usage: `{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"prompt_tokens_details":null,"completion_tokens_details":null}`,
			want:  chat.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reply := `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","refusal":null,"annotations":[]},"finish_reason":"stop"}],"usage":` + tc.usage + `}`
			resp, err := cannedModel(200, "application/json", reply).Chat(context.Background(), fuzzRequest)
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.Usage, "reply")

			stream := `data: {"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}],"usage":null,"obfuscation":"xY"}` + "\n\n" +
				`data: {"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null,"obfuscation":"abcdef"}` + "\n\n" +
				`data: {"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null,"obfuscation":"q"}` + "\n\n" +
				`data: {"model":"m","choices":[],"usage":` + tc.usage + `,"obfuscation":"zz"}` + "\n\n" +
				"data: [DONE]\n\n"
			resp, err = cannedModel(200, "text/event-stream", stream).Stream(context.Background(), fuzzRequest, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.Usage, "stream")
			assert.Equal(t, "hi", resp.Message.Content)
		})
	}
}

// cannedModel returns a model whose every request is answered with body.
func cannedModel(status int, contentType, body string) *openai.Model {
	return openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m", MaxRetries: openai.NoRetries,
		HTTPClient: &http.Client{Transport: cannedBody{status: status, contentType: contentType, body: []byte(body)}}})
}
