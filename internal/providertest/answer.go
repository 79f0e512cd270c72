package providertest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
)

// A forecast is the typed answer AnswerByTool asks for.
type forecast struct {
	City        string `json:"city" jsonschema:"description=City name"`
	Sky         string `json:"sky" jsonschema:"enum=sunny,enum=cloudy,enum=rainy"`
	Temperature int    `json:"temperature" jsonschema:"minimum=-50,maximum=60"`
}

// AnswerCalls are the arguments the model of AnswerByTool gives: first of
// get_weather, then of final_answer.
var AnswerCalls = [2]string{`{"city":"Paris"}`, `{"city":"Paris","sky":"sunny","temperature":21}`}

// AnswerByTool asks model, through a Client with a get_weather tool, for a
// typed answer in mode (chat.OutputTool, or "" for the loop's choice). The
// model is to call get_weather, then final_answer, with AnswerCalls; the
// answer must decode with no repair.
func AnswerByTool(t *testing.T, model chat.Model, mode chat.OutputMode) {
	t.Helper()
	weather := toolcall.MustFunc("get_weather", "Get the current weather for a city",
		func(context.Context, struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny, 21 C", nil
		})
	var answer forecast
	resp, err := toolcall.NewClient(model, toolcall.WithTools(weather)).
		Prompt("What is the weather in Paris?").Answer(&answer).AnswerMode(mode).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, forecast{City: "Paris", Sky: "sunny", Temperature: 21}, answer)
	assert.Zero(t, resp.Repairs)
}
