package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// weatherFunc is a get_weather tool that answers "sunny in CITY".
var weatherFunc = toolcall.MustFunc("get_weather", "Get weather", func(ctx context.Context, in struct {
	City string `json:"city"`
}) (string, error) {
	return "sunny in " + in.City, nil
})

// rawContent returns the content array of a recorded reply, as its bytes.
func rawContent(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".response.json"))
	require.NoError(t, err)
	var r struct {
		Content json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(raw, &r))
	return r.Content
}

// sentTurns returns the turns of a request body, each as its role and the
// bytes of its content.
func sentTurns(t *testing.T, body []byte) []struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
} {
	t.Helper()
	var r struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	return r.Messages
}

// TestThinkingRoundTrip: a conversation with thinking on, through the
// loop: a reply with a thinking block (and its signature), a
// redacted_thinking block, text and two calls; the results; a second reply
// with thinking and a call; its result; the answer. Each assistant turn
// goes back byte for byte as the server sent its content, blocks in
// place, and the results follow in one user turn each.
func TestThinkingRoundTrip(t *testing.T) {
	t.Parallel()
	srv, c := replay(t, "h_thinking_tools", "h_thinking_second", "h_thinking_answer")
	m := newModel(srv, anthropic.Config{Model: "claude-sonnet-4-5", Thinking: json.RawMessage(`{"type":"enabled","budget_tokens":2048}`)})
	resp, err := toolcall.NewClient(m).Prompt("Weather in Paris and Lyon? I am going to Nice too.").Tools(weatherFunc).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Sunny in Paris, Lyon and Nice.", resp.Content())
	require.Equal(t, 3, c.Count())

	first, second := rawContent(t, "h_thinking_tools"), rawContent(t, "h_thinking_second")
	turns := sentTurns(t, c.Get(t, 2).Body)
	require.Len(t, turns, 5)
	assert.Equal(t, "assistant", turns[1].Role)
	assert.Equal(t, string(first), string(turns[1].Content), "the first reply's blocks, byte for byte")
	assert.JSONEq(t, `[{"type":"tool_result","tool_use_id":"toolu_01A","content":"sunny in Paris"},{"type":"tool_result","tool_use_id":"toolu_01B","content":"sunny in Lyon"}]`, string(turns[2].Content))
	assert.Equal(t, "assistant", turns[3].Role)
	assert.Equal(t, string(second), string(turns[3].Content), "the second reply's blocks, byte for byte")
	assert.JSONEq(t, `[{"type":"tool_result","tool_use_id":"toolu_02C","content":"sunny in Nice"}]`, string(turns[4].Content))
	// The second request sent the first turn the same way.
	assert.Equal(t, string(first), string(sentTurns(t, c.Get(t, 1).Body)[1].Content))

	// The history keeps the thinking as Reasoning, and the blocks.
	h := resp.History[1]
	assert.Equal(t, "The user wants the weather in Paris and Lyon. I will call get_weather for each city.", h.Reasoning)
	assert.Equal(t, "Let me check <both> cities & report.", h.Content)
	assert.JSONEq(t, `{"anthropic_content":`+string(first)+`}`, string(h.ProviderData))
	assert.Equal(t, chat.Usage{PromptTokens: 2620, CompletionTokens: 180, TotalTokens: 2800, CacheReadTokens: 2000, CacheWriteTokens: 100},
		resp.Intermediate[0].Usage)
}

// TestStreamedThinkingRoundTrip: a streamed reply's thinking (in
// fragments, with its signature) goes back as one thinking block, in its
// place before the text and the call; it is not yielded.
func TestStreamedThinkingRoundTrip(t *testing.T) {
	t.Parallel()
	srv, c := replay(t, "h_stream_thinking_tools", "h_thinking_answer")
	m := newModel(srv, anthropic.Config{Model: "claude-sonnet-4-5", Thinking: json.RawMessage(`{"type":"adaptive"}`)})
	var deltas []chat.Delta
	resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather in Paris?")}, Tools: []chat.ToolDefinition{shortTool}}, collect(&deltas))
	require.NoError(t, err)
	assert.Equal(t, []chat.Delta{
		text("Checking."),
		callDelta(0, "toolu_04A", "get_weather", ""),
		callDelta(0, "", "", `{"city": `),
		callDelta(0, "", "", `"Paris"}`),
	}, deltas)
	assert.Equal(t, "The user wants the weather in Paris.", resp.Message.Reasoning)
	assert.Equal(t, []chat.ToolCall{call("toolu_04A", "get_weather", `{"city": "Paris"}`)}, resp.Message.ToolCalls)
	assert.Equal(t, chat.FinishToolCalls, resp.FinishReason)
	assert.Equal(t, chat.Usage{PromptTokens: 2500, CompletionTokens: 90, TotalTokens: 2590, CacheReadTokens: 2000}, resp.Usage)

	history := []chat.Message{chat.UserMessage("Weather in Paris?"), resp.Message, chat.ToolMessage(resp.Message.ToolCalls[0], "sunny")}
	_, err = m.Chat(context.Background(), &chat.Request{Messages: history, Tools: []chat.ToolDefinition{shortTool}})
	require.NoError(t, err)
	turns := sentTurns(t, c.Get(t, 1).Body)
	require.Len(t, turns, 3)
	assert.Equal(t, `[{"type":"thinking","thinking":"The user wants the weather in Paris.","signature":"EqQBCgIYAhIMsig4stream=="},{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_04A","name":"get_weather","input":{"city":"Paris"}}]`,
		string(turns[1].Content))
}

// TestEditedThinkingReply: when the caller changed the text or the calls
// of a reply with thinking, the thinking blocks still go first, then the
// message's text and calls as they are now; a changed call's arguments
// are written from the call. ProviderData of another provider is ignored.
func TestEditedThinkingReply(t *testing.T) {
	t.Parallel()
	srv, c := replay(t, "h_thinking_tools", "h_thinking_answer")
	m := newModel(srv, anthropic.Config{Model: "claude-sonnet-4-5"})
	ask := chat.UserMessage("Weather?")
	resp, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{ask}})
	require.NoError(t, err)
	first := rawContent(t, "h_thinking_tools")
	var blocks []json.RawMessage
	require.NoError(t, json.Unmarshal(first, &blocks))

	for _, tc := range []struct {
		name string
		edit func(*chat.Message)
		want []string
	}{
		{"new text", func(m *chat.Message) { m.Content = "Checking." },
			[]string{string(blocks[0]), string(blocks[1]), `{"type":"text","text":"Checking."}`, string(blocks[3]), string(blocks[4])}},
		{"call dropped", func(m *chat.Message) { m.ToolCalls = m.ToolCalls[:1] },
			[]string{string(blocks[0]), string(blocks[1]), `{"type":"text","text":"Let me check <both> cities & report."}`, string(blocks[3])}},
		{"arguments changed", func(m *chat.Message) { m.ToolCalls[1].Arguments = json.RawMessage(`{"city":"Lyon, FR"}`) },
			[]string{string(blocks[0]), string(blocks[1]), string(blocks[2]), string(blocks[3]), `{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":{"city":"Lyon, FR"}}`}},
		{"another provider's data", func(m *chat.Message) { m.ProviderData = json.RawMessage(`{"google":{"thought_signature":"x"}}`) },
			[]string{`{"type":"text","text":"Let me check <both> cities & report."}`, string(blocks[3]), string(blocks[4])}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := resp.Message
			msg.ToolCalls = append([]chat.ToolCall(nil), msg.ToolCalls...)
			tc.edit(&msg)
			n := c.Count()
			_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{ask, msg}})
			require.NoError(t, err)
			turns := sentTurns(t, c.Get(t, n).Body)
			require.Len(t, turns, 2)
			assert.Equal(t, "["+string(bytes.Join(toBytes(tc.want), []byte(",")))+"]", string(turns[1].Content))
		})
	}
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}
