package anthropic_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/require"
)

// The helpers of cloud_test.go: a recorded request turned into the
// chat.Request that stands for it, the next request of a conversation
// built from the provider's own reply, and the recorded bodies put in the
// forms this package sends.

// recordedBody is a request body of the cloud recordings.
type recordedBody struct {
	Model         string          `json:"model"`
	MaxTokens     *int            `json:"max_tokens"`
	System        json.RawMessage `json:"system"`
	Messages      []recordedTurn  `json:"messages"`
	Tools         []recordedTool  `json:"tools"`
	RawChoice     json.RawMessage `json:"tool_choice"`
	Thinking      json.RawMessage `json:"thinking"`
	OutputConfig  json.RawMessage `json:"output_config"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        bool            `json:"stream"`
}

// recordedFields are the top-level fields recordedBody reads: a recording
// with any other fails the test rather than have it left out unseen.
var recordedFields = []string{"model", "max_tokens", "system", "messages", "tools", "tool_choice", "thinking", "output_config", "stop_sequences", "stream"}

type recordedTurn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type recordedBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type recordedTool struct {
	Type        string          `json:"type"` // of a tool the API defines, such as its text editor
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Strict      bool            `json:"strict"`
}

func parseRecorded(t *testing.T, raw json.RawMessage) recordedBody {
	t.Helper()
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &fields))
	for k := range fields {
		require.Contains(t, recordedFields, k, "a field of the recorded request that the test does not convert")
	}
	var b recordedBody
	require.NoError(t, json.Unmarshal(raw, &b))
	return b
}

// chatRequest is the chat.Request that stands for the first request of a
// recording: its system prompt, user turn and tools, and its settings
// where chat has them (max_tokens, stop_sequences, tool_choice) or in
// Options.Extra (thinking, output_config).
func chatRequest(t *testing.T, raw json.RawMessage) *chat.Request {
	t.Helper()
	b := parseRecorded(t, raw)
	req := &chat.Request{Model: b.Model, Options: chat.Options{MaxTokens: b.MaxTokens, Stop: b.StopSequences}}
	if len(b.System) > 0 {
		var s string
		require.NoError(t, json.Unmarshal(b.System, &s), "a system prompt given as a string")
		req.Messages = append(req.Messages, chat.SystemMessage(s))
	}
	req.Messages = append(req.Messages, chatMessages(t, b.Messages)...)
	for _, tool := range b.Tools {
		req.Tools = append(req.Tools, chat.ToolDefinition{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchema, Strict: tool.Strict})
	}
	if len(b.RawChoice) > 0 {
		var c struct{ Type, Name string }
		require.NoError(t, json.Unmarshal(b.RawChoice, &c))
		switch c.Type {
		case "auto":
			req.ToolChoice.Mode = chat.ToolChoiceAuto
		case "any":
			req.ToolChoice.Mode = chat.ToolChoiceRequired
		default:
			t.Fatalf("tool_choice %q is not converted", c.Type)
		}
	}
	extra := map[string]any{}
	if len(b.Thinking) > 0 {
		extra["thinking"] = b.Thinking
	}
	if len(b.OutputConfig) > 0 {
		extra["output_config"] = b.OutputConfig
	}
	if len(extra) > 0 {
		req.Options.Extra = extra
	}
	return req
}

// chatMessages converts user turns: each text block is a user message,
// each tool_result a tool message (its text blocks joined).
func chatMessages(t *testing.T, turns []recordedTurn) []chat.Message {
	t.Helper()
	var out []chat.Message
	for _, turn := range turns {
		require.Equal(t, "user", turn.Role, "only user turns are new input")
		var blocks []recordedBlock
		require.NoError(t, json.Unmarshal(turn.Content, &blocks))
		for _, b := range blocks {
			switch b.Type {
			case "text":
				out = append(out, chat.UserMessage(b.Text))
			case "tool_result":
				out = append(out, chat.Message{Role: chat.RoleTool, ToolCallID: b.ToolUseID, Content: resultText(t, b.Content), IsError: b.IsError})
			default:
				t.Fatalf("a user block of type %q is not converted", b.Type)
			}
		}
	}
	return out
}

// resultText is a tool_result's content: a string, or text blocks joined.
func resultText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []recordedBlock
	require.NoError(t, json.Unmarshal(raw, &blocks))
	var b strings.Builder
	for _, blk := range blocks {
		require.Equal(t, "text", blk.Type)
		b.WriteString(blk.Text)
	}
	return b.String()
}

// nextRequest builds request n+1 of a conversation as the toolcall loop
// does: the messages of request n, the provider's own reply n kept whole,
// then the new input of recorded request n+1 (the turns after the
// assistant turn that stands for reply n).
func nextRequest(t *testing.T, req *chat.Request, resp *chat.Response, prev, next json.RawMessage) *chat.Request {
	t.Helper()
	before, after := parseRecorded(t, prev), parseRecorded(t, next)
	n := len(before.Messages)
	require.Greater(t, len(after.Messages), n+1, "request n+1 adds the reply and new input")
	require.Equal(t, "assistant", after.Messages[n].Role)
	out := *req
	out.Messages = append(slices.Clip(req.Messages), resp.Message)
	out.Messages = append(out.Messages, chatMessages(t, after.Messages[n+1:])...)
	return &out
}

// sentAs puts a recorded request body in the forms this package sends
// where the API reads both the same, each for a reason:
//   - "stream": false and "tools": null are left out: false and null are
//     the API's defaults, and this package writes neither;
//   - a system prompt given as a string is one text block, the API's
//     shorthand for it; this package sends blocks;
//   - a tool's empty "description" is left out: the field is optional;
//   - a tool_result's "is_error": false is left out (the default), and its
//     content given as text blocks is their text as a string, which the
//     API takes as one text block: chat.Message holds a result as one
//     string, which this package sends as is;
//   - a tool the API defines itself (with a "type", such as its text
//     editor) cannot be declared through chat.ToolDefinition: the tools
//     of such a request are left out of the comparison on both sides.
//
// The messages are otherwise compared as they are: roles, block order,
// ids, inputs, and thinking, signatures and redacted data unchanged.
func sentAs(t *testing.T, recorded, sent []byte) (want, got []byte) {
	t.Helper()
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(recorded, &w))
	require.NoError(t, json.Unmarshal(sent, &g))
	if w["stream"] == false {
		delete(w, "stream")
	}
	if v, ok := w["tools"]; ok && v == nil {
		delete(w, "tools")
	}
	if s, ok := w["system"].(string); ok {
		w["system"] = []any{map[string]any{"type": "text", "text": s}}
	}
	tools, _ := w["tools"].([]any)
	for _, tool := range tools {
		tool := tool.(map[string]any)
		if tool["description"] == "" {
			delete(tool, "description")
		}
		if _, ok := tool["type"]; ok {
			// The names at least are the same, in order.
			names := func(v any) (out []any) {
				ts, _ := v.([]any)
				for _, t := range ts {
					out = append(out, t.(map[string]any)["name"])
				}
				return out
			}
			require.Equal(t, names(w["tools"]), names(g["tools"]))
			delete(w, "tools")
			delete(g, "tools")
			break
		}
	}
	msgs, _ := w["messages"].([]any)
	for _, m := range msgs {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for _, b := range blocks {
			b := b.(map[string]any)
			if b["type"] != "tool_result" {
				continue
			}
			if b["is_error"] == false {
				delete(b, "is_error")
			}
			if parts, ok := b["content"].([]any); ok {
				raw, err := json.Marshal(parts)
				require.NoError(t, err)
				b["content"] = resultText(t, raw)
			}
		}
	}
	want, err := json.Marshal(w)
	require.NoError(t, err)
	got, err = json.Marshal(g)
	require.NoError(t, err)
	return want, got
}
