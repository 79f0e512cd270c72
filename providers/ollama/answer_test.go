package ollama_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// TestOutputFormat: Request.Output's schema goes out as Ollama's format;
// given together with Options.Extra's format, the request is refused and
// not sent.
func TestOutputFormat(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	srv, got := replay(t, "b_plain")
	m := newModel(srv, ollama.Config{})
	var sm chat.StructuredModel = m
	assert.True(t, sm.StructuredOutput())
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Output: &chat.OutputFormat{Name: "answer", Schema: schema}}
	_, err := m.Chat(context.Background(), req)
	require.NoError(t, err)
	var body struct {
		Format json.RawMessage `json:"format"`
	}
	require.NoError(t, json.Unmarshal(got.Get(t, 0).Body, &body))
	assert.JSONEq(t, string(schema), string(body.Format))

	req.Options.Extra = map[string]any{"format": "json"}
	_, err = m.Chat(context.Background(), req)
	require.ErrorIs(t, err, chat.ErrBadRequest)
	assert.ErrorContains(t, err, `Request.Output and Options.Extra["format"] both set the format; give one`)
	assert.Equal(t, 1, got.Count(), "nothing sent")
}
