package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
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

// TestOutputRequest pins, in testdata/golden/request_output_schema.json,
// a typed answer asked for natively: generationConfig's responseMimeType
// application/json and responseJsonSchema, the schema as given, beside
// the tools. The API has no strict flag: Strict changes nothing sent.
// genai's GenerationConfig reads the two fields (checkGenai, run on every
// body the test server receives, checks that the body survives genai's
// types whole).
func TestOutputRequest(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"summary":{"type":"string","description":"One line"}},"required":["summary"],"additionalProperties":false}`
	var sent [][]byte
	for _, strict := range []bool{false, true} {
		body := sendOne(t, gemini.Config{}, &chat.Request{
			Messages: []chat.Message{chat.UserMessage("Weather in Paris?")}, Tools: []chat.ToolDefinition{weatherTool},
			Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(schema), Strict: strict}})
		sent = append(sent, body)
		var r genaiRequest
		require.NoError(t, json.Unmarshal(body, &r))
		require.NotNil(t, r.GenerationConfig)
		assert.Equal(t, "application/json", r.GenerationConfig.ResponseMIMEType)
		assert.Nil(t, r.GenerationConfig.ResponseSchema, "the JSON Schema goes in responseJsonSchema, not in the OpenAPI subset of responseSchema")
		s, err := json.Marshal(r.GenerationConfig.ResponseJsonSchema)
		require.NoError(t, err)
		assert.JSONEq(t, schema, string(s))
		require.Len(t, r.Tools, 1)
		assert.Len(t, r.Tools[0].FunctionDeclarations, 1)
	}
	assert.JSONEq(t, string(sent[0]), string(sent[1]), "Strict changes nothing on the wire")
	providertest.CheckGolden(t, "request_output_schema", sent[0], *update)
}

// callChunk is a reply whose one part calls name with args, without an
// id, as the Gemini API sends calls.
func callChunk(name, args string) string {
	return `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"` + name + `","args":` + args +
		`}}]},"finishReason":"STOP","index":0}],"modelVersion":"gemini-test-001"}`
}

// TestTypedAnswerToolMode pins, in testdata/golden/answer_tool_round_*.json,
// the requests a Client sends for Prompt.Answer with chat.OutputTool: the
// function final_answer, whose parametersJsonSchema is the answer's
// schema, declared beside the prompt's tool, and toolConfig's
// functionCallingConfig mode ANY in every round (no responseJsonSchema).
// The model calls get_weather, then final_answer.
func TestTypedAnswerToolMode(t *testing.T) {
	t.Parallel()
	srv, got := serve(t,
		reply(callChunk("get_weather", providertest.AnswerCalls[0])),
		reply(callChunk("final_answer", providertest.AnswerCalls[1])))
	providertest.AnswerByTool(t, newModel(srv, gemini.Config{}), chat.OutputTool)
	require.Equal(t, 2, got.Count())
	for i := range 2 {
		body := got.Get(t, i).Body
		providertest.CheckGolden(t, fmt.Sprintf("answer_tool_round_%d", i+1), body, *update)
		var r genaiRequest
		require.NoError(t, json.Unmarshal(body, &r))
		if r.GenerationConfig != nil {
			assert.Nil(t, r.GenerationConfig.ResponseJsonSchema, "no responseJsonSchema in the tool mode")
		}
		require.NotNil(t, r.ToolConfig)
		require.NotNil(t, r.ToolConfig.FunctionCallingConfig)
		assert.Equal(t, "ANY", string(r.ToolConfig.FunctionCallingConfig.Mode), "round %d", i+1)
		require.Len(t, r.Tools, 1)
		decls := r.Tools[0].FunctionDeclarations
		require.Len(t, decls, 2)
		assert.Equal(t, "final_answer", decls[1].Name)
		s, err := json.Marshal(decls[1].ParametersJsonSchema)
		require.NoError(t, err)
		assert.Contains(t, string(s), `"required":["city","sky","temperature"]`)
	}
}
