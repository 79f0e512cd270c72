package gemini_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/gemini"
)

// thoughtfulReply has a thought, text with a signature, and two parallel
// calls, the first with a signature and an id of the API's, the second
// with neither.
const thoughtfulReply = `{"candidates":[{"content":{"role":"model","parts":[
	{"text":"Two cities.","thought":true},
	{"text":"Let me check.","thoughtSignature":"U0lHVEVYVA=="},
	{"functionCall":{"id":"api1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHQ0FMTA=="},
	{"functionCall":{"name":"get_weather","args":{"city":"Lyon"}}}]},"finishReason":"STOP","index":0}],
	"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":20,"thoughtsTokenCount":5,"cachedContentTokenCount":4,"toolUsePromptTokenCount":3,"totalTokenCount":38}}`

// roundTrip gets thoughtfulReply, lets edit change the reply's message,
// sends it back with results for its calls (in the order given by
// order), and returns the reply and the contents sent the second time.
func roundTrip(t *testing.T, edit func(*chat.Message), order ...int) (*chat.Response, []json.RawMessage) {
	t.Helper()
	srv, c := serve(t, reply(thoughtfulReply), reply(okText))
	m := newModel(srv, gemini.Config{})
	resp, err := m.Chat(context.Background(), hiRequest)
	require.NoError(t, err)
	msg := resp.Message
	if edit != nil {
		edit(&msg)
	}
	history := []chat.Message{chat.UserMessage("hi"), msg}
	results := []chat.Message{
		chat.ToolMessage(resp.Message.ToolCalls[0], `{"temp":21}`),
		{Role: chat.RoleTool, ToolCallID: resp.Message.ToolCalls[1].ID, ToolName: "get_weather", Content: "no data for Lyon", IsError: true},
	}
	for _, i := range order {
		history = append(history, results[i])
	}
	_, err = m.Chat(context.Background(), &chat.Request{Messages: history})
	require.NoError(t, err)
	var body struct {
		Contents []json.RawMessage `json:"contents"`
	}
	require.NoError(t, json.Unmarshal(c.Get(t, 1).Body, &body))
	return resp, body.Contents
}

// results is the results content of roundTrip's second request: in call
// order, each matched by name and position, the API's id only on the
// call that had it, an error result under "error", a JSON object result
// as an object.
const results = `{"role":"user","parts":[
	{"functionResponse":{"id":"api1","name":"get_weather","response":{"output":{"temp":21}}}},
	{"functionResponse":{"name":"get_weather","response":{"error":"no data for Lyon"}}}]}`

func TestReplyReadAndSentBack(t *testing.T) {
	t.Parallel()
	resp, contents := roundTrip(t, nil, 1, 0)
	assert.Equal(t, "Let me check.", resp.Message.Content)
	assert.Equal(t, "Two cities.", resp.Message.Reasoning)
	assert.Equal(t, []chat.ToolCall{call("api1", "get_weather", `{"city":"Paris"}`), call("call_1", "get_weather", `{"city":"Lyon"}`)}, resp.Message.ToolCalls)
	assert.Equal(t, chat.FinishToolCalls, resp.FinishReason)
	assert.Equal(t, chat.Usage{PromptTokens: 13, CompletionTokens: 25, TotalTokens: 38, CacheReadTokens: 4, ReasoningTokens: 5}, resp.Usage)
	require.Len(t, contents, 3)
	assert.JSONEq(t, `{"role":"model","parts":[
		{"text":"Two cities.","thought":true},
		{"text":"Let me check.","thoughtSignature":"U0lHVEVYVA=="},
		{"functionCall":{"id":"api1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHQ0FMTA=="},
		{"functionCall":{"name":"get_weather","args":{"city":"Lyon"}}}]}`, string(contents[1]))
	assert.JSONEq(t, results, string(contents[2]))
}

func TestEditedReplySentBack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		edit    func(*chat.Message)
		model   string
		foreign bool // the message's calls are not this package's: both ids go
	}{
		{name: "arguments changed: that call written anew, its id and signature kept",
			edit: func(m *chat.Message) {
				m.ToolCalls = append([]chat.ToolCall(nil), m.ToolCalls...)
				m.ToolCalls[0].Arguments = json.RawMessage(`{"city":"Paris, France"}`)
			},
			model: `{"role":"model","parts":[
				{"text":"Two cities.","thought":true},
				{"text":"Let me check.","thoughtSignature":"U0lHVEVYVA=="},
				{"functionCall":{"id":"api1","name":"get_weather","args":{"city":"Paris, France"}},"thoughtSignature":"U0lHQ0FMTA=="},
				{"functionCall":{"name":"get_weather","args":{"city":"Lyon"}}}]}`},
		{name: "text changed: thoughts, the new text without a signature, the calls as they came",
			edit: func(m *chat.Message) { m.Content = "Checking." },
			model: `{"role":"model","parts":[
				{"text":"Two cities.","thought":true},
				{"text":"Checking."},
				{"functionCall":{"id":"api1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHQ0FMTA=="},
				{"functionCall":{"name":"get_weather","args":{"city":"Lyon"}}}]}`},
		{name: "no ProviderData: the calls with their ids, the first with the documented signature",
			edit: func(m *chat.Message) { m.ProviderData = nil }, foreign: true,
			model: `{"role":"model","parts":[
				{"text":"Let me check."},
				{"functionCall":{"id":"api1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="},
				{"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Lyon"}}}]}`},
		{name: "another provider's data: the same", foreign: true,
			edit:  func(m *chat.Message) { m.ProviderData = json.RawMessage(`{"anthropic_content":[]}`) },
			model: `{"role":"model","parts":[{"text":"Let me check."},{"functionCall":{"id":"api1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="},{"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Lyon"}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, contents := roundTrip(t, tc.edit, 0, 1)
			require.Len(t, contents, 3)
			assert.JSONEq(t, tc.model, string(contents[1]))
			if tc.foreign {
				assert.JSONEq(t, `{"role":"user","parts":[
					{"functionResponse":{"id":"api1","name":"get_weather","response":{"output":{"temp":21}}}},
					{"functionResponse":{"id":"call_1","name":"get_weather","response":{"error":"no data for Lyon"}}}]}`, string(contents[2]))
				return
			}
			assert.JSONEq(t, results, string(contents[2]))
		})
	}
}

// TestStreamedPartsKept: a stream's text chunks are one part with the
// signature of any of them, its thought chunks another; an empty text
// part without a signature is not kept; the deltas are the text as it
// came and the call whole.
func TestStreamedPartsKept(t *testing.T) {
	t.Parallel()
	stream := sse(
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Think ","thought":true}]},"index":0}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"hard.","thought":true}]},"index":0}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"It is "}]},"index":0}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"sunny.","thoughtSignature":"U0lHMQ=="}]},"index":0}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHMg=="}]},"index":0}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"thoughtsTokenCount":2}}`,
	)
	srv, _ := serve(t, reply(stream))
	var deltas []chat.Delta
	resp, err := newModel(srv, gemini.Config{}).Stream(context.Background(), hiRequest, collect(&deltas))
	require.NoError(t, err)
	assert.Equal(t, []chat.Delta{{Content: "It is "}, {Content: "sunny."},
		{ToolCall: &chat.ToolCallDelta{Index: 0, ID: "call_0", Name: "get_weather", Arguments: `{"city":"Paris"}`}}}, deltas)
	assert.Equal(t, "It is sunny.", resp.Message.Content)
	assert.Equal(t, "Think hard.", resp.Message.Reasoning)
	assert.Equal(t, chat.FinishToolCalls, resp.FinishReason)
	assert.JSONEq(t, `{"gemini_parts":[{"text":"Think hard.","thought":true},{"text":"It is sunny.","thoughtSignature":"U0lHMQ=="},
		{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lHMg=="}]}`, string(resp.Message.ProviderData))
}

// TestPlainReplyKeepsNothing: a reply of text without signatures has no
// ProviderData, and its text goes back as a text part.
func TestPlainReplyKeepsNothing(t *testing.T) {
	t.Parallel()
	srv, c := serve(t, reply(okText), reply(okText))
	m := newModel(srv, gemini.Config{})
	resp, err := m.Chat(context.Background(), hiRequest)
	require.NoError(t, err)
	assert.Empty(t, resp.Message.ProviderData)
	assert.Equal(t, "gemini-test-001", resp.Model)
	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi"), resp.Message, chat.UserMessage(""), chat.AssistantMessage("")}})
	require.NoError(t, err)
	var body struct {
		Contents json.RawMessage `json:"contents"`
	}
	require.NoError(t, json.Unmarshal(c.Get(t, 1).Body, &body))
	assert.JSONEq(t, `[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"ok"}]},{"role":"user","parts":[{"text":""}]}]`, string(body.Contents))
}
