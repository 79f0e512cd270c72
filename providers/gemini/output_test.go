package gemini_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// TestTypedAnswerOnTheRecordedAPI: Prompt.Answer through this provider, as
// a stream, asks natively (responseMimeType application/json and
// responseJsonSchema, in generationConfig), as the recording
// stream_function_call_then_json of the Gemini API did: the tool runs,
// and the JSON text Gemini streamed decodes.
func TestTypedAnswerOnTheRecordedAPI(t *testing.T) {
	t.Parallel()
	const rec = "cloud/gemini/stream_function_call_then_json/"
	first, second := providertest.LoadRecording(t, rec+"01"), providertest.LoadRecording(t, rec+"02")
	srv, got := serve(t, first.ServeHTTP, second.ServeHTTP)
	m := newModel(srv, gemini.Config{Model: "gemini-2.5-flash"})
	country := toolcall.MustFunc("get_user_country", "", func(context.Context, struct{}) (string, error) { return "Mexico", nil })
	var answer struct {
		City    string `json:"city"`
		Country string `json:"country"`
	}
	var resp *toolcall.Response
	for ev, err := range toolcall.NewClient(m, toolcall.WithTools(country)).Prompt("What is the largest city in the user country?").Answer(&answer).Stream(context.Background()) {
		require.NoError(t, err)
		if ev.Kind == toolcall.EventDone {
			resp = ev.Response
		}
	}
	require.NotNil(t, resp)
	assert.Equal(t, "Mexico City", answer.City)
	assert.Equal(t, "Mexico", answer.Country)
	assert.Zero(t, resp.Repairs)
	for i := range 2 {
		var sent struct {
			GenerationConfig struct {
				ResponseMimeType   string          `json:"responseMimeType"`
				ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		require.NoError(t, json.Unmarshal(got.Get(t, i).Body, &sent))
		assert.Equal(t, "application/json", sent.GenerationConfig.ResponseMimeType)
		// The recorded schema, with the title its client gave and without
		// additionalProperties, which this one sets.
		assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"}},"required":["city","country"],"additionalProperties":false}`,
			string(sent.GenerationConfig.ResponseJSONSchema))
	}
}
