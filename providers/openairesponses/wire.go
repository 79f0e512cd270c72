package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// reasoning goes back to the model when nothing is stored.
	Include []string `json:"include"`
}

// include is the request's "include": reasoning items come with their
// encrypted content, to be sent back.
var include = []string{"reasoning.encrypted_content"}

// An item is one input item. Exactly one group of fields is set, by Type:
// "message" (Role, Content), "function_call" (CallID, Name, Arguments),
// "function_call_output" (CallID, Output). A reasoning item is sent as
// the raw JSON it came as (raw).
type item struct {
	Type      string  `json:"type"`
	Role      string  `json:"role,omitempty"`
	Content   *string `json:"content,omitempty"`
	CallID    string  `json:"call_id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
	Output    *string `json:"output,omitempty"`

	raw json.RawMessage
}

// MarshalJSON writes a reasoning item byte for byte as it was received.
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

	wr := request{Model: model, Stream: stream, Include: include,
		Temperature: o.Temperature, TopP: o.TopP, MaxOutputTokens: o.MaxTokens}
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

	body, err := wire.EncodeRequest(&wr, req.Tools, o.Extra, reservedKeys)
	if err != nil {
		return invalid("%v", err)
	}
	return body, model, nil
}

// appendAssistant appends the items of an assistant message: its
// reasoning items each before the item it preceded in the reply, its text
// as a message item, its tool calls as function_call items.
func appendAssistant(items []item, msg *chat.Message) ([]item, error) {
	pd, err := readProviderData(msg.ProviderData)
	if err != nil {
		return nil, err
	}
	reasoning := func(before int) {
		for _, r := range pd.Reasoning {
			if r.before() == before {
				items = append(items, item{raw: r.Item})
			}
		}
	}
	reasoning(-1)
	if msg.Content != "" {
		items = append(items, item{Type: "message", Role: "assistant", Content: &msg.Content})
	}
	for j := range msg.ToolCalls {
		tc := &msg.ToolCalls[j]
		if tc.ID == "" {
			return nil, fmt.Errorf("tool call %d (%q) has no ID", j, tc.Name)
		}
		reasoning(j)
		args := string(wire.Arguments(tc.Arguments))
		items = append(items, item{Type: "function_call", CallID: tc.ID, Name: tc.Name, Arguments: &args})
	}
	for _, r := range pd.Reasoning {
		if c := r.before(); c >= len(msg.ToolCalls) {
			return nil, fmt.Errorf("ProviderData: a reasoning item goes before tool call %d, but the message has %d", c, len(msg.ToolCalls))
		}
	}
	return items, nil
}

// providerData is what an assistant message keeps of a reply for the next
// requests, in Message.ProviderData under the key "openai_responses".
type providerData struct {
	Reasoning []reasoningItem `json:"reasoning,omitempty"`
}

// A reasoningItem is a reasoning item of a reply with encrypted content,
// as the server sent it (whitespace removed), and the tool call it
// preceded, by index in the message's ToolCalls; Call is nil when it
// preceded the text or ended the reply.
type reasoningItem struct {
	Call *int            `json:"call,omitempty"`
	Item json.RawMessage `json:"item"`
}

func (r reasoningItem) before() int {
	if r.Call == nil {
		return -1
	}
	return *r.Call
}

// providerDataKey names this package's data in Message.ProviderData, so
// that another provider's data there is told apart and left alone.
const providerDataKey = "openai_responses"

// readProviderData reads this package's part of an assistant message's
// ProviderData. Anything that is not a JSON object with the key
// providerDataKey is another provider's and gives nothing.
func readProviderData(raw json.RawMessage) (providerData, error) {
	var pd providerData
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return pd, nil
	}
	var outer map[string]json.RawMessage
	if json.Unmarshal(t, &outer) != nil {
		return pd, nil
	}
	mine, ok := outer[providerDataKey]
	if !ok {
		return pd, nil
	}
	dec := json.NewDecoder(bytes.NewReader(mine))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pd); err != nil {
		return pd, fmt.Errorf("ProviderData: %q is not this package's data: %v", providerDataKey, err)
	}
	for _, r := range pd.Reasoning {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(r.Item, &head) != nil || head.Type != "reasoning" {
			return pd, fmt.Errorf("ProviderData: %q holds an item that is not a reasoning item", providerDataKey)
		}
		if r.Call != nil && *r.Call < 0 {
			return pd, fmt.Errorf("ProviderData: a reasoning item goes before tool call %d", *r.Call)
		}
	}
	return pd, nil
}

// writeProviderData returns the ProviderData of a reply with the given
// reasoning items, or nil when there are none.
func writeProviderData(items []reasoningItem) json.RawMessage {
	if len(items) == 0 {
		return nil
	}
	// Not escaping HTML, the items stay byte for byte as received.
	b, _ := wire.Encode(map[string]providerData{providerDataKey: {Reasoning: items}})
	return bytes.TrimSpace(b)
}
