package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestEmptyAnswer replays the reply Ollama gave when its model called a
// tool that was not offered: no text, no calls, finish reason stop, tokens
// spent. The caller gets ErrEmptyAnswer, not an empty answer.
func TestEmptyAnswer(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "k_unoffered_tool_name")
	weather := toolcall.MustFunc("get_weather", "The weather", func(context.Context, struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny", nil
	})
	resp, err := toolcall.NewClient(newModel(srv, openai.Config{})).Prompt("What is the weather in Paris?").Tools(weather).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrEmptyAnswer)
	require.EqualError(t, err, `toolcall: empty answer: the model's reply has no text and no tool calls (finish reason "stop")`)
	require.NotNil(t, resp)
	assert.Empty(t, resp.Executions)
	assert.Equal(t, chat.RoleAssistant, resp.Message.Role)
	assert.Equal(t, 21, resp.Usage.CompletionTokens, "the tokens were spent")
}
