package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// okReplyBody answers any request.
const okReplyBody = `{"type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`

// TestBlankTextNotSentBack: the API refuses a text block that is empty or
// only white space ("text content blocks must contain non-whitespace
// text"), which models write: claude-opus-4-6 answered "\n\n" before its
// thinking block (the recorded adaptive_thinking_leading_ws_text), and
// such blocks come before calls too. The reply keeps all its text, but
// such a block is not sent back; the thinking block, its signature and
// the other blocks go back unchanged and in their order.
func TestBlankTextNotSentBack(t *testing.T) {
	t.Parallel()
	recorded := providertest.LoadRecording(t, "cloud/anthropic-messages/adaptive_thinking_leading_ws_text/01")
	var body struct {
		Content []json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(recorded.Body, &body))
	require.Len(t, body.Content, 3)
	// They go back compacted, as the API writes them (the recording's
	// spaces are the recorder's).
	var blocks bytes.Buffer
	blocks.WriteString("[")
	require.NoError(t, json.Compact(&blocks, body.Content[1]))
	blocks.WriteString(",")
	require.NoError(t, json.Compact(&blocks, body.Content[2]))
	blocks.WriteString("]")

	getWeather := `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`
	args := `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}`
	for _, tc := range []struct {
		name    string
		reply   string
		content string // of the reply
		want    string // the assistant turn sent back
	}{
		{
			name:    "recorded: blank text before thinking",
			reply:   string(recorded.Body),
			content: "\n\n2 + 2 = **4**",
			want:    blocks.String(),
		},
		{
			name: "streamed: blank text before a call",
			reply: sse(msgStart, textStart,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\n\n"}}`,
				`{"type":"content_block_stop","index":0}`, getWeather, args, `{"type":"content_block_stop","index":1}`,
				msgDelta("tool_use"), msgStop),
			content: "\n\n",
			want:    `[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]`,
		},
		{
			name: "streamed: empty text and blank text around thinking",
			reply: sse(msgStart, textStart, `{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Paris."}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":" \t"}}`,
				`{"type":"content_block_stop","index":2}`,
				`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`,
				`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}`,
				`{"type":"content_block_stop","index":3}`,
				msgDelta("tool_use"), msgStop),
			content: " \t",
			want:    `[{"type":"thinking","thinking":"Paris.","signature":"c2ln"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := serve(t, reply(tc.reply), reply(okReplyBody))
			m := newModel(srv, anthropic.Config{})
			ask := chat.UserMessage("What is 2+2?")
			var resp *chat.Response
			var err error
			if strings.HasPrefix(tc.reply, "event:") {
				resp, err = m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{ask}}, nil)
			} else {
				resp, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{ask}})
			}
			require.NoError(t, err)
			assert.Equal(t, tc.content, resp.Message.Content, "the reply keeps its text")

			history := []chat.Message{ask, resp.Message}
			for _, call := range resp.Message.ToolCalls {
				history = append(history, chat.ToolMessage(call, "sunny"))
			}
			history = append(history, chat.UserMessage("And 3+3?"))
			_, err = m.Chat(context.Background(), &chat.Request{Messages: history})
			require.NoError(t, err)
			turns := sentTurns(t, c.Get(t, 1).Body)
			require.Len(t, turns, 3)
			assert.Equal(t, "assistant", turns[1].Role)
			assert.Equal(t, tc.want, string(turns[1].Content))
		})
	}
}

// TestBlankAssistantText: an assistant message written by the caller
// whose text is only white space sends its calls alone; with no calls
// either, it is left out, and the user turns around it become one.
func TestBlankAssistantText(t *testing.T) {
	t.Parallel()
	srv, c := serve(t, reply(okReplyBody))
	m := newModel(srv, anthropic.Config{})
	get := call("toolu_1", "get_weather", `{"city":"Paris"}`)
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{
		chat.UserMessage("Weather?"), chat.AssistantMessage(" \n", get), chat.ToolMessage(get, "sunny"),
		chat.AssistantMessage("\n\n"), chat.UserMessage("Thanks."),
	}})
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"role":"user","content":[{"type":"text","text":"Weather?"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"text","text":"Thanks."}]}
	]`, messagesOf(t, c.Get(t, 0).Body))
}

// messagesOf returns the messages of a request body, as JSON.
func messagesOf(t *testing.T, body []byte) string {
	t.Helper()
	var r struct {
		Messages json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	return string(r.Messages)
}
