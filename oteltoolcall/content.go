package oteltoolcall

import (
	"bytes"
	"encoding/json"

	"github.com/toolcall-go/toolcall/chat"
)

// The message form of the conventions' input and output message schemas
// (gen-ai-input-messages.json, gen-ai-output-messages.json): a role and a
// list of typed parts.
type (
	message struct {
		Role  string `json:"role"`
		Parts []any  `json:"parts"`
	}
	outputMessage struct {
		Role         string `json:"role"`
		Parts        []any  `json:"parts"`
		FinishReason string `json:"finish_reason"`
	}
	textPart struct {
		Type    string `json:"type"` // "text", or "reasoning"
		Content string `json:"content"`
	}
	toolCallPart struct {
		Type      string `json:"type"` // "tool_call"
		ID        string `json:"id,omitempty"`
		Name      string `json:"name"`
		Arguments any    `json:"arguments,omitempty"`
	}
	toolResponsePart struct {
		Type     string `json:"type"` // "tool_call_response"
		ID       string `json:"id,omitempty"`
		Response string `json:"response"`
	}
)

// inputMessages renders msgs as gen_ai.input.messages.
func inputMessages(msgs []chat.Message) string {
	out := make([]message, len(msgs))
	for i, m := range msgs {
		out[i] = message{Role: string(m.Role), Parts: parts(m)}
	}
	return encode(out)
}

// outputMessages renders the model's message m as gen_ai.output.messages.
func outputMessages(m chat.Message, finish chat.FinishReason) string {
	return encode([]outputMessage{{Role: string(m.Role), Parts: parts(m), FinishReason: string(finish)}})
}

// parts returns the parts of m: for a tool message its result, for
// others the reasoning, the text and the tool calls that m has. A message
// of another role with no text still has its (empty) text part.
func parts(m chat.Message) []any {
	ps := []any{}
	if m.Role == chat.RoleTool {
		return append(ps, toolResponsePart{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Content})
	}
	if m.Reasoning != "" {
		ps = append(ps, textPart{Type: "reasoning", Content: m.Reasoning})
	}
	if m.Content != "" || m.Role != chat.RoleAssistant {
		ps = append(ps, textPart{Type: "text", Content: m.Content})
	}
	for _, c := range m.ToolCalls {
		p := toolCallPart{Type: "tool_call", ID: c.ID, Name: c.Name}
		switch args := bytes.TrimSpace(c.Arguments); {
		case len(args) == 0:
		case json.Valid(args):
			p.Arguments = json.RawMessage(args)
		default: // not JSON: kept as the text it is
			p.Arguments = string(c.Arguments)
		}
		ps = append(ps, p)
	}
	return ps
}

// encode returns v as JSON, without escaping <, > and &.
func encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
