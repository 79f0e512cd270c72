package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestTypedAnswerOnTheRecordedAPI: Prompt.Answer through this provider
// asks natively, with output_config.format json_schema, as the recording
// parallel_tool_use_no_text of api.anthropic.com did; two tools run, and
// the answer Claude gave in text decodes. The output_config sent is the
// recorded one.
func TestTypedAnswerOnTheRecordedAPI(t *testing.T) {
	t.Parallel()
	const rec = "cloud/anthropic-messages/parallel_tool_use_no_text/"
	srv, got := replay(t, rec+"01", rec+"02")
	m := newModel(srv, anthropic.Config{Model: "claude-sonnet-4-5"})
	type cityIn struct {
		City string `json:"city"`
	}
	country := toolcall.MustFunc("lookup_country", "", func(context.Context, cityIn) (string, error) { return "Japan", nil }, toolcall.WithStrict(true))
	founded := toolcall.MustFunc("get_founded_year", "", func(context.Context, cityIn) (string, error) { return "1457", nil })
	var answer struct {
		City       string `json:"city"`
		Country    string `json:"country"`
		Population int    `json:"population"`
	}
	resp, err := toolcall.NewClient(m, toolcall.WithTools(country, founded)).Prompt("Give me complete details about Tokyo").Answer(&answer).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Tokyo", answer.City)
	assert.Equal(t, "Japan", answer.Country)
	assert.Equal(t, 14000000, answer.Population)
	assert.Zero(t, resp.Repairs)
	for i := range 2 {
		var sent, recorded struct {
			OutputConfig json.RawMessage `json:"output_config"`
		}
		require.NoError(t, json.Unmarshal(got.Get(t, i).Body, &sent))
		raw, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("%s%02d.request.json", rec, i+1)))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &recorded))
		assert.JSONEq(t, string(recorded.OutputConfig), string(sent.OutputConfig), "request %d", i+1)
	}
}

// TestOutputRefusedByTheOldVersion: version 2023-06-01 has no
// output_config: the provider does not offer it, and refuses a request
// with Request.Output rather than send it without.
func TestOutputRefusedByTheOldVersion(t *testing.T) {
	t.Parallel()
	srv, got := serve(t)
	m := newModel(srv, anthropic.Config{Version: anthropic.Version20230601})
	assert.False(t, m.StructuredOutput())
	assert.True(t, newModel(srv, anthropic.Config{}).StructuredOutput())
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")},
		Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)}})
	require.ErrorIs(t, err, chat.ErrBadRequest)
	assert.ErrorContains(t, err, "API version 2023-06-01 has no output schema; ask for the answer with chat.OutputTool")
	assert.Zero(t, got.Count())
}

// toolUseReply is a reply whose one block is a tool_use of name with input.
func toolUseReply(id, name, input string) string {
	return `{"id":"msg_` + id + `","type":"message","role":"assistant","model":"claude-test","content":[{"type":"tool_use","id":"` + id +
		`","name":"` + name + `","input":` + input + `}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":1}}`
}

// answerThroughTool runs a prompt whose answer is asked for with mode
// through a model of cfg: the model calls get_weather, then final_answer.
// It returns the two request bodies.
func answerThroughTool(t *testing.T, cfg anthropic.Config, mode chat.OutputMode) [][]byte {
	t.Helper()
	srv, got := serve(t,
		reply(toolUseReply("toolu_1", "get_weather", providertest.AnswerCalls[0])),
		reply(toolUseReply("toolu_2", "final_answer", providertest.AnswerCalls[1])))
	providertest.AnswerByTool(t, newModel(srv, cfg), mode)
	require.Equal(t, 2, got.Count())
	return [][]byte{got.Get(t, 0).Body, got.Get(t, 1).Body}
}

// TestTypedAnswerToolMode pins, in testdata/golden/answer_tool_round_*.json,
// the requests a Client sends for Prompt.Answer with chat.OutputTool: the
// tool final_answer, whose input_schema is the answer's schema, offered
// beside the prompt's tool, and tool_choice {"type": "any"} in every round
// (no output_config). A Model of Version20230601, which is not structured,
// sends the same bodies when the mode is left to the loop. Every body
// passes checkSDK.
func TestTypedAnswerToolMode(t *testing.T) {
	t.Parallel()
	bodies := answerThroughTool(t, anthropic.Config{}, chat.OutputTool)
	for i, body := range bodies {
		providertest.CheckGolden(t, fmt.Sprintf("answer_tool_round_%d", i+1), body, *update)
		var p sdk.MessageNewParams
		require.NoError(t, json.Unmarshal(body, &p))
		assert.Zero(t, p.OutputConfig, "no output_config in the tool mode")
		require.NotNil(t, p.ToolChoice.OfAny, "round %d: tool_choice any", i+1)
		require.Len(t, p.Tools, 2)
		answerTool := p.Tools[1].OfTool
		require.NotNil(t, answerTool)
		assert.Equal(t, "final_answer", answerTool.Name)
		assert.Equal(t, []string{"city", "sky", "temperature"}, answerTool.InputSchema.Required)
	}
	legacy := answerThroughTool(t, anthropic.Config{Version: anthropic.Version20230601}, "")
	for i := range bodies {
		assert.JSONEq(t, string(bodies[i]), string(legacy[i]), "round %d under 2023-06-01", i+1)
	}
}

// TestOutputInSDK: anthropic-sdk-go's MessageNewParams (v2.15.0) reads the
// native body's output_config as OutputConfigParam, its format as a
// JSONOutputFormatParam of type json_schema with the schema; the tools
// stay beside it. Strict has no field there and is not sent. (checkSDK,
// run on every body the test server receives, checks that the body
// survives the type whole.)
func TestOutputInSDK(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	var sent [][]byte
	for _, strict := range []bool{false, true} {
		srv, got := serve(t, reply(okReply))
		_, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), &chat.Request{
			Messages: []chat.Message{chat.UserMessage("Weather in Paris?")}, Tools: []chat.ToolDefinition{shortTool},
			Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(schema), Strict: strict}})
		require.NoError(t, err)
		body := got.Get(t, 0).Body
		sent = append(sent, body)
		var p sdk.MessageNewParams
		require.NoError(t, json.Unmarshal(body, &p))
		assert.Equal(t, "json_schema", string(p.OutputConfig.Format.Type))
		s, err := json.Marshal(p.OutputConfig.Format.Schema)
		require.NoError(t, err)
		assert.JSONEq(t, schema, string(s))
		assert.Len(t, p.Tools, 1)
	}
	assert.JSONEq(t, string(sent[0]), string(sent[1]), "Strict changes nothing on the wire")
}
