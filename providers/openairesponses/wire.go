package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// request is the body of POST /responses.
type request struct {
	Model        string `json:"model"`
	Instructions string `json:"instructions,omitempty"`
	Input        []item `json:"input"`
	Tools        []tool `json:"tools,omitempty"`
	// ToolChoice is "auto", "none", "required" or a toolChoice.
	ToolChoice        any      `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool    `json:"parallel_tool_calls,omitempty"`
	Temperature       *float64 `json:"temperature,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	MaxOutputTokens   *int     `json:"max_output_tokens,omitempty"`
	Stream            bool     `json:"stream,omitempty"`
	// Store is always false: nothing is kept on the server, every request
	// carries the whole conversation.
	Store bool `json:"store"`
	// Include asks for reasoning items' encrypted content, which is how
	// reasoning goes back to the model when nothing is stored. Models
	// without reasoning refuse it, so it is sent only with reasoning.
	Include []string `json:"include,omitempty"`
	// Text asks for an answer in a JSON Schema (Request.Output).
	Text *textConfig `json:"text,omitempty"`
}

// textConfig is the request's "text": {"format": {"type": "json_schema",
// "name", "schema", "strict"}}.
type textConfig struct {
	Format struct {
		Type   string          `json:"type"` // "json_schema"
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict,omitempty"`
	} `json:"format"`
}

// include is the request's "include" when it asks for reasoning:
// reasoning items come with their encrypted content, to be sent back.
var include = []string{"reasoning.encrypted_content"}

// An item is one input item. Exactly one group of fields is set, by Type:
// "message" (Role, Content), "function_call" (ID, CallID, Name,
// Arguments), "function_call_output" (CallID, Output). An output item of
// a reply sent back as it came (a reasoning item, a message item of a
// reasoning model's reply) is its raw JSON (raw).
type item struct {
	Type      string  `json:"type"`
	ID        string  `json:"id,omitempty"`
	Role      string  `json:"role,omitempty"`
	Content   *string `json:"content,omitempty"`
	CallID    string  `json:"call_id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
	Output    *string `json:"output,omitempty"`

	raw json.RawMessage
}

// MarshalJSON writes an output item sent back as it was received.
func (it item) MarshalJSON() ([]byte, error) {
	if it.raw != nil {
		return it.raw, nil
	}
	type plain item
	return json.Marshal(plain(it))
}

type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is always sent: without it the Responses API makes the
	// schema strict, which a schema written for non-strict use breaks.
	Strict bool `json:"strict"`
}

type toolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// reservedKeys are the request fields Options.Extra cannot set: they follow
// from the request itself. previous_response_id is among them because this
// package sends the whole conversation every time.
var reservedKeys = []string{"model", "input", "instructions", "stream", "tools", "tool_choice", "previous_response_id"}

// encode builds the request body and returns it with the model name used.
func (m *Model) encode(req *chat.Request, stream bool) ([]byte, string, error) {
	model, err := m.ep.ModelOf(req, m.model)
	if err != nil {
		return nil, model, err
	}
	invalid := func(format string, args ...any) ([]byte, string, error) {
		return nil, model, m.ep.BadRequest(model, fmt.Sprintf(format, args...))
	}
	o := &req.Options
	if len(o.Stop) > 0 {
		return invalid("Options.Stop: the Responses API has no stop sequences")
	}
	if o.Seed != nil {
		return invalid("Options.Seed: the Responses API has no seed")
	}

	wr := request{Model: model, Stream: stream,
		Temperature: o.Temperature, TopP: o.TopP, MaxOutputTokens: o.MaxTokens}
	// Models without reasoning answer 400 to include; a caller's own
	// include (even empty) replaces this package's.
	if _, own := o.Extra["include"]; !own && o.Extra["reasoning"] != nil {
		wr.Include = include
	}
	msgs := req.Messages
	// The system messages that open the conversation are its instructions.
	var sys []string
	for len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		sys = append(sys, msgs[0].Content)
		msgs = msgs[1:]
	}
	wr.Instructions = strings.Join(sys, "\n\n")
	wr.Input = make([]item, 0, len(msgs))
	for i := range msgs {
		n := i + len(sys) // the message's index in req.Messages
		msg := &msgs[i]
		switch msg.Role {
		case chat.RoleSystem, chat.RoleUser:
			wr.Input = append(wr.Input, item{Type: "message", Role: string(msg.Role), Content: &msg.Content})
		case chat.RoleAssistant:
			var err error
			if wr.Input, err = appendAssistant(wr.Input, msg); err != nil {
				return invalid("message %d: %v", n, err)
			}
		case chat.RoleTool:
			if msg.ToolCallID == "" {
				return invalid("message %d: a tool message needs the ToolCallID of its call", n)
			}
			wr.Input = append(wr.Input, item{Type: "function_call_output", CallID: msg.ToolCallID, Output: &msg.Content})
		default:
			return invalid("message %d: unknown role %q", n, msg.Role)
		}
	}

	if len(req.Tools) > 0 {
		wr.Tools = make([]tool, len(req.Tools))
		for i, d := range req.Tools {
			wr.Tools[i] = tool{Type: "function", Name: d.Name, Description: d.Description, Parameters: wire.Parameters(d.InputSchema), Strict: d.Strict}
		}
		switch c := req.ToolChoice; {
		case c.Name != "":
			wr.ToolChoice = toolChoice{Type: "function", Name: c.Name}
		case c.Mode != "":
			wr.ToolChoice = string(c.Mode)
		}
		wr.ParallelToolCalls = o.ParallelToolCalls
	}

	if out := req.Output; out != nil {
		if _, ok := o.Extra["text"]; ok {
			return invalid("Request.Output and Options.Extra[\"text\"] both set text; give one")
		}
		wr.Text = &textConfig{}
		f := &wr.Text.Format
		f.Type, f.Name, f.Schema, f.Strict = "json_schema", out.Name, out.Schema, out.Strict
	}
	body, err := wire.EncodeRequest(&wr, req.Tools, nil, nil)
	if err == nil {
		body, err = wr.addExtra(body, o.Extra)
	}
	if err != nil {
		return invalid("%v", err)
	}
	return body, model, nil
}

// addExtra adds to body, the encoding of r, the keys of extra that r does
// not set and that are not reserved, in key order, as
// wire.EncodeRequest would; but before the closing brace, where
// wire.AddExtra decodes and encodes the whole body again, tools and
// conversation included, to add a "reasoning" setting.
func (r *request) addExtra(body []byte, extra map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !r.has(k) && !slices.Contains(reservedKeys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return body, nil
	}
	slices.Sort(keys)
	end := bytes.LastIndexByte(body, '}')
	out := append([]byte(nil), body[:end]...)
	for _, k := range keys {
		v, err := wire.Encode(extra[k])
		if err != nil {
			return nil, fmt.Errorf("Options.Extra: key %q: %v", k, err)
		}
		out = append(out, ',')
		out = appendString(out, k)
		out = append(out, ':')
		out = append(out, bytes.TrimSpace(v)...)
	}
	return append(out, body[end:]...), nil
}

// has reports whether the request sets the field key.
func (r *request) has(key string) bool {
	switch key {
	case "model", "input", "store":
		return true
	case "instructions":
		return r.Instructions != ""
	case "tools":
		return len(r.Tools) > 0
	case "tool_choice":
		return r.ToolChoice != nil
	case "parallel_tool_calls":
		return r.ParallelToolCalls != nil
	case "temperature":
		return r.Temperature != nil
	case "top_p":
		return r.TopP != nil
	case "max_output_tokens":
		return r.MaxOutputTokens != nil
	case "stream":
		return r.Stream
	case "include":
		return len(r.Include) > 0
	case "text":
		return r.Text != nil
	}
	return false
}
