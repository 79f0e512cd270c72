package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	openaisdk "github.com/openai/openai-go/v3"
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

// callReply is a reply whose one tool call has the name and arguments
// given.
func callReply(id, name, args string) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "model": "tiny",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
			"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}},
		}}}})
	return string(b)
}

// TestTypedAnswerToolMode pins, in testdata/golden/answer_tool_round_*.json,
// the requests a Client sends for Prompt.Answer with chat.OutputTool: the
// tool final_answer, whose parameters are the answer's schema, offered
// beside the prompt's tool, and tool_choice "required" in every round (no
// response_format). The model calls get_weather, then final_answer.
func TestTypedAnswerToolMode(t *testing.T) {
	t.Parallel()
	replies := []string{
		callReply("call_1", "get_weather", providertest.AnswerCalls[0]),
		callReply("call_2", "final_answer", providertest.AnswerCalls[1]),
	}
	srv, got := providertest.Serve(t, chatPath, func(w http.ResponseWriter, r *http.Request, i int) {
		providertest.Reply("application/json", replies[min(i, len(replies)-1)])(w, r)
	})
	providertest.AnswerByTool(t, newModel(srv, openai.Config{}), chat.OutputTool)
	require.Equal(t, 2, got.Count())
	for i := range 2 {
		body := got.Get(t, i).Body
		providertest.CheckGolden(t, fmt.Sprintf("answer_tool_round_%d", i+1), body, *update)
		p := checkOpenAIGo(t, body)
		assert.Nil(t, p.ResponseFormat.OfJSONSchema, "no response_format in the tool mode")
		assert.Equal(t, "required", p.ToolChoice.OfAuto.Or(""), "round %d", i+1)
		require.Len(t, p.Tools, 2)
		answerTool := p.Tools[1].OfFunction
		require.NotNil(t, answerTool)
		assert.Equal(t, "final_answer", answerTool.Function.Name)
		assert.Equal(t, []any{"city", "sky", "temperature"}, answerTool.Function.Parameters["required"])
	}
}

// TestOutputInOpenAIGo: native bodies, strict and not, as in
// testdata/wire/output_schema*.json, decode into openai-go's
// ChatCompletionNewParams, the official SDK's request type, and encode
// back the same; the SDK reads the schema, its name and strict from
// response_format's json_schema variant.
func TestOutputInOpenAIGo(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	for _, strict := range []bool{false, true} {
		req := &chat.Request{Model: wireModel, Tools: []chat.ToolDefinition{shortWeatherTool}, Messages: []chat.Message{chat.UserMessage("Weather in Paris?")},
			Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(schema), Strict: strict}}
		p := checkOpenAIGo(t, sentBody(t, req, false))
		rf := p.ResponseFormat.OfJSONSchema
		require.NotNil(t, rf, "response_format is the json_schema variant")
		assert.Equal(t, "answer", rf.JSONSchema.Name)
		assert.Equal(t, strict, rf.JSONSchema.Strict.Valid(), "strict is sent only when true")
		assert.Equal(t, strict, rf.JSONSchema.Strict.Or(false))
		got, err := json.Marshal(rf.JSONSchema.Schema)
		require.NoError(t, err)
		assert.JSONEq(t, schema, string(got))
		require.Len(t, p.Tools, 1, "the tools stay offered beside the schema")
	}
}

// checkOpenAIGo decodes a request body into openai-go's
// ChatCompletionNewParams and checks that it encodes back to the same JSON
// value, but for two forms of the SDK's: "stream" is not a field of it
// (its streaming call adds it), and an assistant message's "content":
// null is left out, which the API reads alike.
func checkOpenAIGo(t *testing.T, body []byte) openaisdk.ChatCompletionNewParams {
	t.Helper()
	var fields map[string]any
	require.NoError(t, json.Unmarshal(body, &fields))
	delete(fields, "stream")
	msgs, _ := fields["messages"].([]any)
	for _, m := range msgs {
		if m, ok := m.(map[string]any); ok && m["role"] == "assistant" {
			if c, ok := m["content"]; ok && c == nil {
				delete(m, "content")
			}
		}
	}
	rest, err := json.Marshal(fields)
	require.NoError(t, err)
	var p openaisdk.ChatCompletionNewParams
	require.NoError(t, json.Unmarshal(rest, &p), "openai-go cannot decode %s", rest)
	back, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, string(rest), string(back), "the body does not survive openai-go's ChatCompletionNewParams")
	return p
}

// TestOutputAsLlamaServerReadsIt: the native body's response_format is
// one llama.cpp's server reads the schema from. Its README (tools/server,
// POST /v1/chat/completions) says response_format takes
// {"type": "json_object"}, {"type": "json_object", "schema": ...} and
// {"type": "json_schema", ...}, "similar to other OpenAI-inspired API
// providers"; the parser that runs, oaicompat_chat_params_parse in
// tools/server/server-common.cpp, reads the schema of "json_schema" from
// response_format.json_schema.schema (OpenAI's shape, ours) and only from
// there: the README's example with "schema" flat under a json_schema
// response_format would constrain nothing. name and strict are not read.
// A request with tools and a schema is taken (common/chat.cpp: "Use
// generic handler when mixing tools + JSON schema").
func TestOutputAsLlamaServerReadsIt(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	req := &chat.Request{Model: wireModel, Tools: []chat.ToolDefinition{shortWeatherTool}, Messages: []chat.Message{chat.UserMessage("Weather in Paris?")},
		Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(schema), Strict: true}}
	for _, stream := range []bool{false, true} {
		got, err := llamaServerSchema(sentBody(t, req, stream))
		require.NoError(t, err)
		assert.JSONEq(t, schema, string(got), "stream %v", stream)
	}

	// The reading is not vacuous: the README's flat form gives no schema.
	got, err := llamaServerSchema([]byte(`{"response_format":{"type":"json_schema","schema":` + schema + `}}`))
	require.NoError(t, err)
	assert.Nil(t, got)
	_, err = llamaServerSchema([]byte(`{"response_format":{"type":"xml"}}`))
	assert.Error(t, err)
}

// llamaServerSchema returns the schema llama.cpp's server constrains a
// reply with, read from a /v1/chat/completions body as
// oaicompat_chat_params_parse reads it (nil for none).
func llamaServerSchema(body []byte) (json.RawMessage, error) {
	var b struct {
		ResponseFormat *struct {
			Type       string          `json:"type"`
			Schema     json.RawMessage `json:"schema"`
			JSONSchema struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.ResponseFormat == nil {
		return nil, err
	}
	switch rf := b.ResponseFormat; rf.Type {
	case "json_object":
		return rf.Schema, nil
	case "json_schema":
		return rf.JSONSchema.Schema, nil
	case "", "text":
		return nil, nil
	default:
		return nil, fmt.Errorf(`response_format type must be one of "text" or "json_object", but got: %s`, rf.Type)
	}
}
