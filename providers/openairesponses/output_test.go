package openairesponses_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
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

// callReply is a reply whose one output item is a call of name with args.
func callReply(id, name, args string) string {
	b, _ := json.Marshal(map[string]any{"id": "resp_" + id, "object": "response", "status": "completed", "model": "tiny-toolcaller",
		"output": []any{map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": name, "arguments": args, "status": "completed"}},
		"usage":  map[string]any{"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}})
	return string(b)
}

// TestTypedAnswerToolMode pins, in testdata/golden/answer_tool_round_*.json,
// the requests a Client sends for Prompt.Answer with chat.OutputTool: the
// function tool final_answer, whose parameters are the answer's schema,
// offered beside the prompt's tool, and tool_choice "required" in every
// round (no text). The model calls get_weather, then final_answer.
func TestTypedAnswerToolMode(t *testing.T) {
	t.Parallel()
	replies := []string{
		callReply("call_1", "get_weather", providertest.AnswerCalls[0]),
		callReply("call_2", "final_answer", providertest.AnswerCalls[1]),
	}
	srv, got := serve(t, func(w http.ResponseWriter, i int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, replies[min(i, len(replies)-1)])
	})
	providertest.AnswerByTool(t, newModel(srv, openairesponses.Config{}), chat.OutputTool)
	require.Equal(t, 2, got.Count())
	for i := range 2 {
		body := got.Get(t, i).Body
		providertest.CheckGolden(t, fmt.Sprintf("answer_tool_round_%d", i+1), body, *update)
		p := sdkParams(t, body)
		assert.Nil(t, p.Text.Format.OfJSONSchema, "no text.format in the tool mode")
		assert.Equal(t, "required", string(p.ToolChoice.OfToolChoiceMode.Or("")), "round %d", i+1)
		require.Len(t, p.Tools, 2)
		answerTool := p.Tools[1].OfFunction
		require.NotNil(t, answerTool)
		assert.Equal(t, "final_answer", answerTool.Name)
		assert.Equal(t, []any{"city", "sky", "temperature"}, answerTool.Parameters["required"])
	}
}

// TestOutputInSDK: openai-go's ResponseNewParams reads the native body's
// text.format as its json_schema variant, with the name, the schema and
// strict (sent only when true); the tools stay beside it. (checkSDK, run
// on every body the test server receives, checks that the body survives
// the type whole.)
func TestOutputInSDK(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	for _, strict := range []bool{false, true} {
		srv, got := replay(t, "llamacpp/e_unknown_model")
		_, err := newModel(srv, openairesponses.Config{}).Chat(context.Background(), &chat.Request{
			Messages: []chat.Message{chat.UserMessage("Weather in Paris?")}, Tools: []chat.ToolDefinition{weatherTool},
			Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(schema), Strict: strict}})
		require.NoError(t, err)
		p := sdkParams(t, got.Get(t, 0).Body)
		f := p.Text.Format.OfJSONSchema
		require.NotNil(t, f, "text.format is the json_schema variant")
		assert.Equal(t, "answer", f.Name)
		assert.Equal(t, strict, f.Strict.Valid())
		assert.Equal(t, strict, f.Strict.Or(false))
		s, err := json.Marshal(f.Schema)
		require.NoError(t, err)
		assert.JSONEq(t, schema, string(s))
		assert.Len(t, p.Tools, 1)
	}
}

// sdkParams decodes a body, without its input (see checkSDK), into
// openai-go's ResponseNewParams.
func sdkParams(t *testing.T, body []byte) responses.ResponseNewParams {
	t.Helper()
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &fields))
	delete(fields, "input")
	rest, err := json.Marshal(fields)
	require.NoError(t, err)
	var p responses.ResponseNewParams
	require.NoError(t, json.Unmarshal(rest, &p))
	return p
}
