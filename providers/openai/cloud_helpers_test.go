package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/require"
)

// recordedRequest is a Chat Completions request body as the recording
// client (pydantic-ai, through the official Python SDK) sent it.
type recordedRequest struct {
	Model      string            `json:"model"`
	Stream     bool              `json:"stream"`
	Messages   []recordedMessage `json:"messages"`
	Tools      []recordedTool    `json:"tools"`
	ToolChoice json.RawMessage   `json:"tool_choice"`
}

type recordedMessage struct {
	Role       string  `json:"role"`
	Content    *string `json:"content"`
	ToolCallID string  `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type recordedTool struct {
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	} `json:"function"`
}

// requestFields are the top-level fields chat.Request says itself; every
// other field of a recorded request goes in Options.Extra.
var requestFields = map[string]bool{"model": true, "stream": true, "stream_options": true, "messages": true, "tools": true, "tool_choice": true}

func parseRecorded(t testing.TB, body []byte) recordedRequest {
	t.Helper()
	var r recordedRequest
	require.NoError(t, json.Unmarshal(body, &r))
	return r
}

// firstRequest builds the chat.Request of a recorded first request: its
// messages, tools, tool choice, and its other fields (n, response_format,
// max_completion_tokens, ...) as Options.Extra.
func firstRequest(t testing.TB, body []byte) *chat.Request {
	t.Helper()
	r := parseRecorded(t, body)
	req := &chat.Request{Model: r.Model, Messages: chatMessages(t, r.Messages, nil)}
	for _, tool := range r.Tools {
		f := tool.Function
		req.Tools = append(req.Tools, chat.ToolDefinition{Name: f.Name, Description: f.Description, InputSchema: f.Parameters, Strict: f.Strict})
	}
	if len(r.ToolChoice) > 0 {
		var mode string
		if json.Unmarshal(r.ToolChoice, &mode) == nil {
			req.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceMode(mode)}
		} else {
			var named struct {
				Function struct{ Name string } `json:"function"`
			}
			require.NoError(t, json.Unmarshal(r.ToolChoice, &named))
			req.ToolChoice = chat.ToolChoice{Name: named.Function.Name}
		}
	}
	var all map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &all))
	for k, v := range all {
		if !requestFields[k] {
			if req.Options.Extra == nil {
				req.Options.Extra = map[string]any{}
			}
			req.Options.Extra[k] = v
		}
	}
	return req
}

// chatMessages converts recorded system, developer, user and tool
// messages; a tool message's tool_call_id goes through ids, the recorded
// call ids mapped to the ids of the provider's own reply. Assistant
// messages are never converted: the conversation keeps the provider's
// reply instead.
func chatMessages(t testing.TB, msgs []recordedMessage, ids map[string]string) []chat.Message {
	t.Helper()
	out := make([]chat.Message, 0, len(msgs))
	for i, m := range msgs {
		require.NotEqual(t, "assistant", m.Role, "message %d: an assistant turn must come from the provider's reply", i)
		require.NotNil(t, m.Content, "message %d has no content", i)
		msg := chat.Message{Role: chat.Role(m.Role), Content: *m.Content}
		if m.Role == "tool" {
			id, ok := ids[m.ToolCallID]
			require.True(t, ok, "message %d answers %q, a call the reply did not make", i, m.ToolCallID)
			msg.ToolCallID = id
		}
		out = append(out, msg)
	}
	return out
}

// expectedBody is the recorded request as this package is expected to
// send it, after normalizations that each say why:
//   - the call ids of assistant messages and tool messages are replaced
//     through ids (recorded id -> the id of the provider's reply): where a
//     server sent no id (Gemini's ""), both clients made one up, and only
//     the pairing of a call with its result matters;
//   - an assistant turn with tool calls and no text has "content": null,
//     which OpenAI documents; the recording client left the field out in
//     some cassettes and sent null in others;
//   - "strict": false and "description": "" are left out, as this
//     package sends them only when set (both are the API's defaults);
//   - "stream_options": {"include_usage": true} goes with every stream,
//     so usage is reported; the recording client sent it too;
//   - the assistant message of reply n gets the fields kept, whose key
//     and value sent must equal the reply's (extra_content and
//     thought_signature from Gemini): pydantic-ai dropped them.
func expectedBody(t *testing.T, recorded []byte, ids map[string]string, kept map[int]map[string]json.RawMessage) []byte {
	t.Helper()
	var body map[string]any
	require.NoError(t, json.Unmarshal(recorded, &body))
	msgs, _ := body["messages"].([]any)
	for i, raw := range msgs {
		m := raw.(map[string]any)
		if id, ok := m["tool_call_id"].(string); ok {
			require.Contains(t, ids, id)
			m["tool_call_id"] = ids[id]
		}
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			c := c.(map[string]any)
			id, _ := c["id"].(string)
			require.Contains(t, ids, id)
			c["id"] = ids[id]
		}
		if m["role"] == "assistant" && len(calls) > 0 {
			if _, ok := m["content"]; !ok {
				m["content"] = nil
			}
		}
		for k, v := range kept[i] {
			m[k] = v
		}
	}
	tools, _ := body["tools"].([]any)
	for _, tool := range tools {
		f := tool.(map[string]any)["function"].(map[string]any)
		if f["strict"] == false {
			delete(f, "strict")
		}
		if f["description"] == "" {
			delete(f, "description")
		}
	}
	if body["stream"] == true {
		require.Equal(t, map[string]any{"include_usage": true}, body["stream_options"], "the recording asked for usage")
	}
	out, err := json.Marshal(body)
	require.NoError(t, err)
	return out
}
