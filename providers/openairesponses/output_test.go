package openairesponses_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestTypedAnswer: Prompt.Answer through this provider asks natively, with
// text.format json_schema (the body decodes into openai-go's request type,
// as every body here must), and the reply's text decodes; a caller's own
// text setting beside it is refused, not merged.
func TestTypedAnswer(t *testing.T) {
	t.Parallel()
	const reply = `{"id":"resp_1","object":"response","status":"completed","model":"tiny-toolcaller","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"{\"city\":\"Paris\"}","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":5,"total_tokens":10}}`
	srv, got := serve(t, func(w http.ResponseWriter, i int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply)
	})
	m := newModel(srv, openairesponses.Config{})
	assert.True(t, m.StructuredOutput())
	var answer struct {
		City string `json:"city"`
	}
	_, err := toolcall.NewClient(m).Prompt("Which city?").Answer(&answer).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Paris", answer.City)
	var body struct {
		Text json.RawMessage `json:"text"`
	}
	require.NoError(t, json.Unmarshal(got.Get(t, 0).Body, &body))
	assert.JSONEq(t, `{"format":{"type":"json_schema","name":"answer","schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}}`, string(body.Text))

	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")},
		Output:  &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)},
		Options: chat.Options{Extra: map[string]any{"text": map[string]any{"verbosity": "low"}}}})
	require.ErrorIs(t, err, chat.ErrBadRequest)
	assert.ErrorContains(t, err, `Request.Output and Options.Extra["text"] both set text; give one`)
	assert.Equal(t, 1, got.Count())
}
