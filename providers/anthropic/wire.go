package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// messagesRequest is the body of POST /v1/messages. Fields are in the
// order Anthropic's documentation lists them.
type messagesRequest struct {
	Model         string          `json:"model"`
	MaxTokens     int             `json:"max_tokens"`
	System        []textBlock     `json:"system,omitempty"`
	Messages      []wireMessage   `json:"messages"`
	Tools         []wireTool      `json:"tools,omitempty"`
	ToolChoice    *toolChoice     `json:"tool_choice,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	TopP          *float64        `json:"top_p,omitempty"`
	StopSequences []string        `json:"stop_sequences,omitempty"`
	Thinking      json.RawMessage `json:"thinking,omitempty"`
	OutputConfig  *outputConfig   `json:"output_config,omitempty"`
	Stream        bool            `json:"stream,omitempty"`
}

// outputConfig asks for an answer in a JSON Schema (Request.Output).
type outputConfig struct {
	Format struct {
		Type   string          `json:"type"` // "json_schema"
		Schema json.RawMessage `json:"schema"`
	} `json:"format"`
}

// A wireMessage is one turn. Content is always a list of blocks: a
// textBlock, toolUseBlock, toolResultBlock, or a json.RawMessage for a
// block sent back as the server sent it.
type wireMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textBlock struct {
	Type         string        `json:"type"` // "text"
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type toolUseBlock struct {
	Type  string          `json:"type"` // "tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"` // "tool_result"
	ToolUseID string `json:"tool_use_id"`
	// Content is omitted when empty: the API takes a result without
	// content, and rejects an empty text block.
	Content string `json:"content,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	Strict       bool            `json:"strict,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"` // "ephemeral"
}

var ephemeral = &cacheControl{Type: "ephemeral"}

// emptyInput is the input of a call whose arguments are empty, null or
// not a JSON object: the API requires an object.
var emptyInput = json.RawMessage(`{}`)

// reservedKeys are the request fields Options.Extra cannot set: they
// follow from the request itself. "thinking" is read from Extra apart.
var reservedKeys = []string{"model", "messages", "system", "stream", "tools", "tool_choice", "max_tokens", "thinking"}

// removedKeys are the sampling fields API version 2026-10-21 removed; it
// rejects a request with any of them.
var removedKeys = []string{"temperature", "top_p", "top_k"}

// providerDataKey names the reply's content blocks in
// Message.ProviderData: {"anthropic_content":[...]}.
const providerDataKey = "anthropic_content"

// encode builds the request body and returns it with the model name used.
func (m *Model) encode(req *chat.Request, stream bool) ([]byte, string, error) {
	model, err := m.endpoint.ModelOf(req, m.model)
	if err != nil {
		return nil, model, err
	}
	invalid := func(format string, args ...any) ([]byte, string, error) {
		return nil, model, m.endpoint.BadRequest(model, fmt.Sprintf(format, args...))
	}
	if m.baseProblem != "" {
		return invalid("%s", m.baseProblem)
	}
	if req.Output != nil && m.legacy {
		// Version 2023-06-01 (Ollama, llama-server) has no output_config.
		return invalid("Request.Output: API version %s has no output schema; ask for the answer with chat.OutputTool", m.version)
	}

	o := &req.Options
	wr := messagesRequest{Model: model, MaxTokens: m.maxTokens, Stream: stream, StopSequences: o.Stop}
	if o.MaxTokens != nil {
		if *o.MaxTokens < 0 {
			return invalid("Options.MaxTokens is %d; it must not be negative", *o.MaxTokens)
		}
		wr.MaxTokens = *o.MaxTokens
	}
	if o.Seed != nil {
		return invalid("Options.Seed: the Messages API has no seed")
	}
	if !m.legacy {
		for _, k := range removedKeys {
			_, inExtra := o.Extra[k]
			if inExtra || k == "temperature" && o.Temperature != nil || k == "top_p" && o.TopP != nil {
				return invalid("%s: API version %s does not accept it (Config.Version %q does)", k, m.version, Version20230601)
			}
		}
	}
	wr.Temperature, wr.TopP = o.Temperature, o.TopP
	if req.Output != nil {
		if _, ok := o.Extra["output_config"]; ok {
			return invalid("Request.Output and Options.Extra[\"output_config\"] both set output_config; give one")
		}
		wr.OutputConfig = &outputConfig{}
		wr.OutputConfig.Format.Type, wr.OutputConfig.Format.Schema = "json_schema", req.Output.Schema
	}

	wr.Thinking = m.thinking
	if v, ok := o.Extra["thinking"]; ok {
		raw, err := json.Marshal(v)
		if err != nil {
			return invalid("Options.Extra: key %q: %v", "thinking", err)
		}
		wr.Thinking = raw
		if v == nil {
			wr.Thinking = nil // no thinking field, not Config's
		}
	}
	thinkingOn, err := thinkingEnabled(wr.Thinking)
	if err != nil {
		return invalid("thinking: %v", err)
	}

	var msgErr error
	wr.System, wr.Messages, msgErr = convertMessages(req.Messages)
	if msgErr != nil {
		return invalid("%v", msgErr)
	}
	if m.caching && len(wr.System) > 0 {
		wr.System[len(wr.System)-1].CacheControl = ephemeral
	}

	if len(req.Tools) > 0 {
		wr.Tools = make([]wireTool, len(req.Tools))
		for i, d := range req.Tools {
			wr.Tools[i] = wireTool{Name: d.Name, Description: d.Description, InputSchema: wire.Parameters(d.InputSchema), Strict: d.Strict}
		}
		if m.caching {
			wr.Tools[len(wr.Tools)-1].CacheControl = ephemeral
		}
		tc, err := convertToolChoice(req)
		if err != nil {
			return invalid("%v", err)
		}
		if tc != nil && thinkingOn && (tc.Type == "any" || tc.Type == "tool") {
			return invalid("tool choice %q: with thinking on, the Messages API allows only auto and none", tc.Type)
		}
		wr.ToolChoice = tc
	}

	body, err := wire.EncodeRequest(&wr, req.Tools, o.Extra, reservedKeys)
	if err != nil {
		return invalid("%v", err)
	}
	return body, model, nil
}

// thinkingEnabled reports whether a thinking setting turns thinking on:
// any object whose type is not "disabled".
func thinkingEnabled(raw json.RawMessage) (bool, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return false, nil
	}
	var v struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, fmt.Errorf("want an object such as {\"type\":\"enabled\",\"budget_tokens\":2048}: %v", err)
	}
	return v.Type != "disabled", nil
}

// convertToolChoice maps the request's tool choice and parallel setting
// to tool_choice, or nil when the server's default (auto, parallel calls
// allowed) is what the request asks for.
func convertToolChoice(req *chat.Request) (*toolChoice, error) {
	c := req.ToolChoice
	disable := req.Options.ParallelToolCalls != nil && !*req.Options.ParallelToolCalls
	var tc toolChoice
	switch {
	case c.Name != "" && c.Mode == chat.ToolChoiceNone:
		return nil, fmt.Errorf("ToolChoice names tool %q with mode none", c.Name)
	case c.Name != "":
		if !slices.ContainsFunc(req.Tools, func(d chat.ToolDefinition) bool { return d.Name == c.Name }) {
			return nil, fmt.Errorf("ToolChoice names tool %q, which the request does not offer", c.Name)
		}
		tc = toolChoice{Type: "tool", Name: c.Name}
	case c.Mode == "":
		if !disable {
			return nil, nil
		}
		tc = toolChoice{Type: "auto"}
	case c.Mode == chat.ToolChoiceAuto:
		tc = toolChoice{Type: "auto"}
	case c.Mode == chat.ToolChoiceRequired:
		tc = toolChoice{Type: "any"}
	case c.Mode == chat.ToolChoiceNone:
		// disable_parallel_tool_use has no meaning for none.
		return &toolChoice{Type: "none"}, nil
	default:
		return nil, fmt.Errorf("unknown tool choice mode %q", c.Mode)
	}
	tc.DisableParallelToolUse = disable
	return &tc, nil
}

// A turn is a message being built: consecutive messages of one role are
// merged into it.
type turn struct {
	role string
	// results are the tool results of a user turn, sent first, in the
	// order of the calls they answer.
	results []toolResultBlock
	blocks  []any
}

// convertMessages maps the conversation to the top-level system prompt
// and the turns. Consecutive messages of one role become one turn; tool
// messages are user turns with tool_result blocks, which come before any
// text of that turn, in the order of the calls of the assistant turn
// before them. A message with nothing to send (no text, calls, results or
// blocks to send back) is left out.
func convertMessages(msgs []chat.Message) ([]textBlock, []wireMessage, error) {
	var (
		system []textBlock
		turns  []turn
		calls  []chat.ToolCall // of the last assistant message
	)
	add := func(role string, blocks ...any) {
		if len(blocks) == 0 {
			return
		}
		if n := len(turns); n == 0 || turns[n-1].role != role {
			turns = append(turns, turn{role: role})
		}
		t := &turns[len(turns)-1]
		t.blocks = append(t.blocks, blocks...)
	}
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case chat.RoleSystem:
			if msg.Content != "" {
				system = append(system, textBlock{Type: "text", Text: msg.Content})
			}
		case chat.RoleUser:
			if msg.Content != "" {
				add("user", textBlock{Type: "text", Text: msg.Content})
			}
		case chat.RoleTool:
			if msg.ToolCallID == "" {
				return nil, nil, fmt.Errorf("message %d: tool result without ToolCallID", i)
			}
			if n := len(turns); n == 0 || turns[n-1].role != "user" {
				turns = append(turns, turn{role: "user"})
			}
			t := &turns[len(turns)-1]
			t.results = append(t.results, toolResultBlock{Type: "tool_result", ToolUseID: msg.ToolCallID, Content: msg.Content, IsError: msg.IsError})
			sortResults(t.results, calls)
		case chat.RoleAssistant:
			blocks, err := assistantBlocks(msg)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %v", i, err)
			}
			add("assistant", blocks...)
			calls = msg.ToolCalls
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	if len(turns) == 0 {
		return nil, nil, fmt.Errorf("no messages to send: the Messages API needs at least one user or assistant message with content")
	}
	out := make([]wireMessage, len(turns))
	for i := range turns {
		t := &turns[i]
		content := make([]any, 0, len(t.results)+len(t.blocks))
		for _, r := range t.results {
			content = append(content, r)
		}
		out[i] = wireMessage{Role: t.role, Content: append(content, t.blocks...)}
	}
	return system, out, nil
}

// sortResults orders tool results as the calls they answer; results for
// calls not in calls keep their order, after the others.
func sortResults(results []toolResultBlock, calls []chat.ToolCall) {
	pos := func(id string) int {
		for i, c := range calls {
			if c.ID == id {
				return i
			}
		}
		return len(calls)
	}
	sort.SliceStable(results, func(i, j int) bool { return pos(results[i].ToolUseID) < pos(results[j].ToolUseID) })
}

// assistantBlocks returns the content blocks of an assistant message.
// Text that is empty or only white space is left out: the API refuses such
// a block ("text content blocks must contain non-whitespace text"), and
// models write them, before a thinking block or a call.
//
// A reply with thinking blocks (or any block other than text and
// tool_use) kept all its blocks in ProviderData. When the message still
// has that reply's text and calls, the blocks go back as they came, with a
// call whose name or arguments were changed written from the call.
// Otherwise the kept blocks other than text and tool_use go first, then the
// text, then the calls.
func assistantBlocks(msg *chat.Message) ([]any, error) {
	kept, err := keptBlocks(msg.ProviderData)
	if err != nil {
		return nil, err
	}
	if kept != nil && sameReply(kept, msg) {
		out := make([]any, 0, len(kept))
		n := 0
		for _, b := range kept {
			switch {
			case b.Type == "tool_use":
				c := &msg.ToolCalls[n]
				n++
				if c.Name != b.Name || !bytes.Equal(callInput(c.Arguments), b.Input) {
					out = append(out, toolUse(c))
					continue
				}
			case b.Type == "text" && blank(b.Text):
				continue
			}
			out = append(out, b.raw)
		}
		return out, nil
	}
	var out []any
	for _, b := range kept {
		if b.Type != "text" && b.Type != "tool_use" {
			out = append(out, b.raw)
		}
	}
	if !blank(msg.Content) {
		out = append(out, textBlock{Type: "text", Text: msg.Content})
	}
	for i := range msg.ToolCalls {
		out = append(out, toolUse(&msg.ToolCalls[i]))
	}
	return out, nil
}

// blank reports whether s has no text other than white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

func toolUse(c *chat.ToolCall) toolUseBlock {
	return toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: callInput(c.Arguments)}
}

// callInput returns a call's arguments as the object the API requires:
// as they are, or {} when they are empty, null or not a JSON object (a
// model's malformed call, which the loop reported to it).
func callInput(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return emptyInput
	}
	return t
}

// A keptBlock is a content block of a reply, kept in ProviderData.
type keptBlock struct {
	raw   json.RawMessage
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// keptBlocks reads the blocks this package put in ProviderData, or nil
// when it holds none (no data, or another provider's).
func keptBlocks(data json.RawMessage) ([]keptBlock, error) {
	kept := wire.ProviderData(data, providerDataKey)
	if kept == nil {
		return nil, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(kept, &raws); err != nil {
		return nil, fmt.Errorf("ProviderData: %s is not a list of content blocks: %v", providerDataKey, err)
	}
	blocks := make([]keptBlock, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &blocks[i]); err != nil {
			return nil, fmt.Errorf("ProviderData: content block %d is not an object: %v", i, err)
		}
		if blocks[i].Type == "" {
			return nil, fmt.Errorf("ProviderData: content block %d has no type", i)
		}
		blocks[i].raw = raw
	}
	return blocks, nil
}

// sameReply reports whether msg still has the text and the calls (by id,
// in order) of the reply whose blocks were kept.
func sameReply(kept []keptBlock, msg *chat.Message) bool {
	var text bytes.Buffer
	n := 0
	for _, b := range kept {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if n >= len(msg.ToolCalls) || msg.ToolCalls[n].ID != b.ID {
				return false
			}
			n++
		}
	}
	return n == len(msg.ToolCalls) && text.String() == msg.Content
}
