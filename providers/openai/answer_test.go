package openai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestTypedAnswerOnTheRecordedAPI: Prompt.Answer through this provider
// asks natively, with response_format json_schema, and decodes the
// answer api.openai.com gave in the recording tool_call_json_answer: a
// tool call, then the answer as JSON text.
func TestTypedAnswerOnTheRecordedAPI(t *testing.T) {
	t.Parallel()
	const rec = "cloud/openai-chat/tool_call_json_answer/"
	srv, got := providertest.Replay(t, "/v1/chat/completions", rec+"01", rec+"02")
	m := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test-key-123456", Model: "gpt-4o", HTTPClient: srv.Client()})
	country := toolcall.MustFunc("get_user_country", "", func(context.Context, struct{}) (string, error) { return "Mexico", nil })
	var answer struct {
		City    string `json:"city"`
		Country string `json:"country"`
	}
	resp, err := toolcall.NewClient(m, toolcall.WithTools(country)).Prompt("What is the largest city in the user country?").Answer(&answer).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Mexico City", answer.City)
	assert.Equal(t, "Mexico", answer.Country)
	assert.Zero(t, resp.Repairs)
	require.Equal(t, 2, got.Count())
	for i := range 2 {
		var body struct {
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Schema json.RawMessage `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
			Tools []json.RawMessage `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(got.Get(t, i).Body, &body))
		assert.Equal(t, "json_schema", body.ResponseFormat.Type)
		assert.Equal(t, "answer", body.ResponseFormat.JSONSchema.Name)
		assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"],"additionalProperties":false}`,
			string(body.ResponseFormat.JSONSchema.Schema))
		assert.Len(t, body.Tools, 1, "no answer tool in the native mode")
	}
}

// TestStructuredOutput: the provider says it sends Request.Output.
func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	var m chat.Model = openai.New(openai.Config{Model: "x", BaseURL: "http://localhost:1/v1"})
	sm, ok := m.(chat.StructuredModel)
	require.True(t, ok)
	assert.True(t, sm.StructuredOutput())
}
