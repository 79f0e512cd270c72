package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestOutputRefused: this provider does not send an output schema, so a
// request with one is refused, not sent without it.
func TestOutputRefused(t *testing.T) {
	t.Parallel()
	srv, got := serve(t)
	m := newModel(srv, anthropic.Config{})
	_, isStructured := any(m).(chat.StructuredModel)
	assert.False(t, isStructured)
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")},
		Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)}})
	require.ErrorIs(t, err, chat.ErrBadRequest)
	assert.ErrorContains(t, err, "this provider does not send an output schema; ask for the answer with chat.OutputTool")
	assert.Zero(t, got.Count())
}
