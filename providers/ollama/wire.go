package ollama

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// chatRequest is the body of POST /api/chat.
type chatRequest struct {
	Model     string         `json:"model"`
	Messages  []wireMessage  `json:"messages"`
	Tools     []wireTool     `json:"tools,omitempty"`
	Stream    bool           `json:"stream"`
	Format    any            `json:"format,omitempty"`
	Think     any            `json:"think,omitempty"`
	KeepAlive any            `json:"keep_alive,omitempty"`
	Options   map[string]any `json:"options,omitempty"`
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Thinking is an assistant message's Reasoning, sent back so that a
	// thinking model sees its reasoning during its tool calls.
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// wireCall is a tool call in both directions. Servers before ollama#12956
// send no id.
type wireCall struct {
	ID       string       `json:"id,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Index     *int            `json:"index,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type wireTool struct {
	Type     string           `json:"type"`
	Function wireToolFunction `json:"function"`
}

type wireToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chatResponse is a non-streamed reply or one NDJSON line of a stream.
type chatResponse struct {
	Model           string              `json:"model"`
	Message         wireResponseMessage `json:"message"`
	Done            bool                `json:"done"`
	DoneReason      string              `json:"done_reason"`
	PromptEvalCount int                 `json:"prompt_eval_count"`
	EvalCount       int                 `json:"eval_count"`
	Error           string              `json:"error"`
}

type wireResponseMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Thinking is the reasoning text of a thinking model.
	Thinking  string     `json:"thinking"`
	ToolCalls []wireCall `json:"tool_calls"`
}

// noParameters stands in for an empty input schema; Ollama's templates
// expect an object schema.
var noParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// topLevelExtra are the option keys that are request fields rather than
// model options.
var topLevelExtra = []string{"format", "think", "keep_alive"}

// encode builds the request body and returns it with the model name used.
func (m *Model) encode(req *chat.Request, stream bool) ([]byte, string, error) {
	model, err := m.ep.ModelOf(req, m.model)
	if err != nil {
		return nil, model, err
	}
	invalid := func(format string, args ...any) ([]byte, string, error) {
		return nil, model, m.ep.BadRequest(model, fmt.Sprintf(format, args...))
	}

	wr := chatRequest{Model: model, Messages: make([]wireMessage, 0, len(req.Messages)), Stream: stream}
	for _, msg := range req.Messages {
		wm := wireMessage{Role: string(msg.Role), Content: msg.Content}
		if msg.Role == chat.RoleTool {
			wm.ToolName, wm.ToolCallID = msg.ToolName, msg.ToolCallID
		}
		if msg.Role == chat.RoleAssistant {
			wm.Thinking = msg.Reasoning
		}
		for _, tc := range msg.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, wireCall{
				ID:       tc.ID,
				Function: wireFunction{Name: tc.Name, Arguments: objectArguments(tc.Arguments)},
			})
		}
		wr.Messages = append(wr.Messages, wm)
	}

	// Ollama has no tool_choice; "none" is honoured by offering no tools.
	if req.ToolChoice.Mode != chat.ToolChoiceNone || req.ToolChoice.Name != "" {
		for _, d := range req.Tools {
			params := d.InputSchema
			if len(bytes.TrimSpace(params)) == 0 {
				params = noParameters
			}
			wr.Tools = append(wr.Tools, wireTool{
				Type:     "function",
				Function: wireToolFunction{Name: d.Name, Description: d.Description, Parameters: params},
			})
		}
	}

	if m.think != nil {
		wr.Think = *m.think
	}
	wr.KeepAlive = m.keepAlive
	wr.Options = m.modelOptions(&req.Options)
	for _, k := range topLevelExtra {
		v, ok := wr.Options[k]
		if !ok {
			continue
		}
		delete(wr.Options, k)
		switch k {
		case "format":
			wr.Format = v
		case "think":
			wr.Think = v
		case "keep_alive":
			if s, ok := v.(string); ok {
				v = keepAliveValue(s)
			}
			wr.KeepAlive = v
		}
	}
	if len(wr.Options) == 0 {
		wr.Options = nil
	}
	if req.Output != nil {
		if wr.Format != nil {
			return invalid("Request.Output and Options.Extra[\"format\"] both set the format; give one")
		}
		wr.Format = req.Output.Schema
	}

	body, err := wire.Encode(wr)
	if err != nil {
		// A tool's input schema that is not JSON, or a value in Options
		// or Extra that JSON cannot hold.
		if len(wr.Tools) > 0 {
			if err := wire.SchemaError(req.Tools); err != nil {
				return invalid("%v", err)
			}
		}
		return invalid("encoding request: %v", err)
	}
	return body, model, nil
}

// modelOptions merges Config.Options, then Options.Extra, then the typed
// options, each winning over the one before.
func (m *Model) modelOptions(o *chat.Options) map[string]any {
	opts := make(map[string]any, len(m.options)+len(o.Extra)+5)
	maps.Copy(opts, m.options)
	maps.Copy(opts, o.Extra)
	if o.Temperature != nil {
		opts["temperature"] = *o.Temperature
	}
	if o.TopP != nil {
		opts["top_p"] = *o.TopP
	}
	if o.Seed != nil {
		opts["seed"] = *o.Seed
	}
	if o.MaxTokens != nil {
		opts["num_predict"] = *o.MaxTokens
	}
	if len(o.Stop) > 0 {
		opts["stop"] = o.Stop
	}
	return opts
}

// objectArguments turns the neutral argument text into the JSON object
// Ollama requires; a string there is rejected (openclaw/openclaw#46745).
// Empty or null arguments become {}; so does anything that is not an
// object, such as a model's malformed call replayed from history, because
// failing the whole conversation over it would help no one.
func objectArguments(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil { // double-encoded arguments
			t = bytes.TrimSpace([]byte(s))
		}
	}
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(t)
}

// argumentsText turns a response's arguments into the neutral JSON text,
// keeping the server's key order. Missing or null arguments become {}; a
// string (a server that stringifies) is unwrapped.
func argumentsText(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			t = bytes.TrimSpace([]byte(s))
		}
	}
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) != nil {
		return json.RawMessage(bytes.Clone(t)) // invalid text from a string; the library reports it to the model
	}
	return json.RawMessage(buf.Bytes())
}

// An assembler collects one reply, from one response or many stream lines.
type assembler struct {
	role     string
	content  []byte
	thinking []byte
	calls    []chat.ToolCall
	ids      wire.CallIDs // the ids given to calls
}

func (a *assembler) addMessage(msg *wireResponseMessage) {
	if msg.Role != "" {
		a.role = msg.Role
	}
	a.content = append(a.content, msg.Content...)
	a.thinking = append(a.thinking, msg.Thinking...)
	for _, c := range msg.ToolCalls {
		a.addCall(c)
	}
}

// addCall appends a whole tool call and returns its index in the reply.
// A missing id is synthesised as "call_<index>" and a repeated id gets a
// "_<n>" suffix, so every call of the reply has its own id and tool results
// can be matched to calls.
func (a *assembler) addCall(c wireCall) (int, chat.ToolCall) {
	i := len(a.calls)
	if i == 0 {
		a.ids = wire.CallIDs{Prefix: "call_"}
	}
	tc := chat.ToolCall{ID: a.ids.Next(c.ID), Name: c.Function.Name, Arguments: argumentsText(c.Function.Arguments)}
	a.calls = append(a.calls, tc)
	return i, tc
}

// response builds the reply; final is the last (done) line.
func (a *assembler) response(final *chatResponse) *chat.Response {
	if final.Message.Role != "" {
		a.role = final.Message.Role
	}
	role := chat.RoleAssistant
	if a.role != "" {
		role = chat.Role(a.role)
	}
	r := &chat.Response{
		Message: chat.Message{Role: role, Content: string(a.content), Reasoning: string(a.thinking), ToolCalls: a.calls},
		Usage: chat.Usage{
			PromptTokens:     final.PromptEvalCount,
			CompletionTokens: final.EvalCount,
			TotalTokens:      final.PromptEvalCount + final.EvalCount,
		},
		Model: final.Model,
	}
	switch {
	case final.DoneReason == "length":
		// First, so that calls cut short are not taken for complete ones.
		r.FinishReason = chat.FinishLength
	case len(a.calls) > 0:
		// Ollama reports "stop" for a turn that ends in tool calls.
		r.FinishReason = chat.FinishToolCalls
	case final.DoneReason == "" || final.DoneReason == "stop":
		r.FinishReason = chat.FinishStop
	default:
		r.FinishReason = chat.FinishReason(final.DoneReason)
	}
	return r
}
