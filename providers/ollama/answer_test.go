package ollama_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/providertest"
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

// TestOutputFormatAsDocumented: the native body has Ollama's documented
// shape for structured outputs on /api/chat: "format" at the top level,
// the JSON schema itself as its value ("format: the format to return a
// response in. Format can be `json` or a JSON schema", docs/api.md of
// ollama/ollama; the request example of https://ollama.com/blog/structured-outputs
// sends {"model", "messages", "stream": false, "format": {"type":
// "object", ...}}), not a string and not a wrapper with a name; with a
// stream too, and with tools beside it. Strict has no field and changes
// nothing.
func TestOutputFormatAsDocumented(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"name":{"type":"string"},"capital":{"type":"string"},"languages":{"type":"array","items":{"type":"string"}}},"required":["name","capital","languages"]}`
	var sent [][]byte
	for _, strict := range []bool{false, true} {
		for _, stream := range []bool{false, true} {
			srv, got := replay(t, map[bool]string{false: "b_plain", true: "d_plain_stream"}[stream])
			m := newModel(srv, ollama.Config{})
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Tell me about Canada.")}, Tools: []chat.ToolDefinition{weatherTool},
				Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(schema), Strict: strict}}
			var err error
			if stream {
				_, err = m.Stream(context.Background(), req, nil)
			} else {
				_, err = m.Chat(context.Background(), req)
			}
			require.NoError(t, err)
			body := got.Get(t, 0).Body
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(body, &top))
			assert.JSONEq(t, schema, string(top["format"]), "format is the schema, at the top level")
			assert.JSONEq(t, fmt.Sprint(stream), string(top["stream"]))
			assert.Contains(t, top, "tools")
			for _, k := range []string{"response_format", "json_schema"} {
				assert.NotContains(t, top, k)
			}
			if !stream {
				sent = append(sent, body)
			}
		}
	}
	assert.JSONEq(t, string(sent[0]), string(sent[1]), "Strict changes nothing on the wire")
}

// callReply is a reply whose one tool call has the name and arguments
// given.
func callReply(id, name, args string) string {
	return `{"model":"tiny-toolcaller","created_at":"2026-11-22T11:42:05.908677603Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"` + id +
		`","function":{"index":0,"name":"` + name + `","arguments":` + args + `}}]},"done":true,"done_reason":"stop"}`
}

// TestTypedAnswerToolMode pins, in testdata/golden/answer_tool_round_*.json,
// the requests a Client sends for Prompt.Answer with chat.OutputTool: the
// tool final_answer, whose parameters are the answer's schema, offered
// beside the prompt's tool, and no format. The loop's tool choice
// "required" has no /api/chat field and is not sent (see
// request_tool_choice_required_is_not_enforced.json): the model is asked
// again when it answers in text. The model calls get_weather, then
// final_answer.
func TestTypedAnswerToolMode(t *testing.T) {
	t.Parallel()
	replies := []string{
		callReply("call_1", "get_weather", providertest.AnswerCalls[0]),
		callReply("call_2", "final_answer", providertest.AnswerCalls[1]),
	}
	srv, got := providertest.Serve(t, chatPath, func(w http.ResponseWriter, r *http.Request, i int) {
		providertest.Reply("application/json; charset=utf-8", replies[min(i, len(replies)-1)])(w, r)
	})
	providertest.AnswerByTool(t, newModel(srv, ollama.Config{}), chat.OutputTool)
	require.Equal(t, 2, got.Count())
	for i := range 2 {
		body := got.Get(t, i).Body
		providertest.CheckGolden(t, fmt.Sprintf("answer_tool_round_%d", i+1), body, *update)
		var b struct {
			Format json.RawMessage `json:"format"`
			Tools  []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(body, &b))
		assert.Nil(t, b.Format, "no format in the tool mode")
		require.Len(t, b.Tools, 2)
		assert.Equal(t, "final_answer", b.Tools[1].Function.Name)
	}
}
