// Package toolcalltest provides a scripted chat model for tests of tools,
// prompts and loops, in the spirit of net/http/httptest: no network, no
// key, deterministic replies, and a record of every request.
//
//	model := toolcalltest.NewModel(
//		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "currentWeather", `{"location":"Paris"}`)),
//		toolcalltest.Text("It is sunny in Paris."),
//	)
//	client := toolcall.NewClient(model)
//	resp, err := client.Prompt("Weather in Paris?").Tools(weather).Call(ctx)
//	// model.Requests() holds both requests the loop sent.
package toolcalltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// A Reply is one scripted answer of a [Model].
type Reply struct {
	Response *chat.Response
	Err      error
	// Func, when set, computes the answer from the request instead.
	Func func(req *chat.Request) (*chat.Response, error)
	// Wait, when set, is waited on (or ctx) before answering; it lets a
	// test hold the model mid-request.
	Wait <-chan struct{}
	// Check, when set, asserts the request first: an error it returns is
	// the model's answer, so the call under test fails with it.
	Check func(req *chat.Request) error
}

// Expect returns r with a check of the request it answers; see
// [Reply.Check].
func Expect(check func(req *chat.Request) error, r Reply) Reply {
	r.Check = check
	return r
}

// Text returns a reply with the given text and finish reason stop.
func Text(text string) Reply {
	return Reply{Response: &chat.Response{
		Message:      chat.AssistantMessage(text),
		FinishReason: chat.FinishStop,
		Usage:        chat.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
	}}
}

// ToolCalls returns a reply asking for the given tool calls.
func ToolCalls(calls ...chat.ToolCall) Reply {
	return Reply{Response: &chat.Response{
		Message:      chat.AssistantMessage("", calls...),
		FinishReason: chat.FinishToolCalls,
		Usage:        chat.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
	}}
}

// Fail returns a reply that fails with err.
func Fail(err error) Reply { return Reply{Err: err} }

// Call returns a tool call with the given id, tool name and arguments.
func Call(id, name, arguments string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(arguments)}
}

// A Model is a [chat.Model] and [chat.StreamingModel] that
// answers with its scripted replies in order and records every request. A
// request past the script fails with an error saying so. A Model is safe
// for concurrent use; for many concurrent calls, script it with
// [NewFuncModel] instead, since replies are taken in arrival order.
type Model struct {
	mu       sync.Mutex
	replies  []Reply
	fn       func(req *chat.Request) (*chat.Response, error)
	requests []*chat.Request
	bodies   [][]byte
	received int // requests received, kept or not
	max      int // the most requests kept: 0 for every one, -1 for none
}

// NewModel returns a Model that answers with replies, in order.
func NewModel(replies ...Reply) *Model { return &Model{replies: replies} }

// NewFuncModel returns a Model that answers every request with fn. fn may
// be called concurrently.
func NewFuncModel(fn func(req *chat.Request) (*chat.Response, error)) *Model {
	return &Model{fn: fn}
}

// KeepRequests bounds what m records to its last n requests, for long or
// heavily concurrent runs, and returns m: [Model.Requests] and
// [Model.RequestBodies] then hold at most n. A negative n keeps every
// request, as a new Model does; 0 keeps none. Call it before m is used.
func (m *Model) KeepRequests(n int) *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case n < 0:
		m.max = 0
	case n == 0:
		m.max = -1
	default:
		m.max = n
	}
	return m
}

// Chat records req and returns the next scripted reply.
func (m *Model) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Copied and rendered outside the lock, which concurrent calls share.
	m.mu.Lock()
	bound := m.max
	m.mu.Unlock()
	var kept *chat.Request
	var body []byte
	if bound >= 0 {
		kept, body = clone(req), WireJSON(req)
	}
	m.mu.Lock()
	n := m.received
	m.received++
	if bound >= 0 {
		m.requests = append(m.requests, kept)
		m.bodies = append(m.bodies, body)
		if bound > 0 && len(m.requests) > bound {
			m.requests = slices.Delete(m.requests, 0, len(m.requests)-bound)
			m.bodies = slices.Delete(m.bodies, 0, len(m.bodies)-bound)
		}
	}
	var r Reply
	switch {
	case m.fn != nil:
		r = Reply{Func: m.fn}
	case len(m.replies) > 0:
		r, m.replies = m.replies[0], m.replies[1:]
	default:
		m.mu.Unlock()
		return nil, fmt.Errorf("toolcalltest: no reply scripted for request %d", n+1)
	}
	m.mu.Unlock()
	if r.Wait != nil {
		select {
		case <-r.Wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if r.Check != nil {
		if err := r.Check(req); err != nil {
			return nil, fmt.Errorf("toolcalltest: request %d: %w", n+1, err)
		}
	}
	if r.Func != nil {
		return r.Func(req)
	}
	if r.Err != nil {
		return nil, r.Err
	}
	resp := *r.Response
	resp.Message.ToolCalls = append([]chat.ToolCall(nil), resp.Message.ToolCalls...)
	return &resp, nil
}

// Stream is Chat, with the reply's text yielded word by word and each tool
// call yielded in two fragments (name first, then arguments), as real
// servers do.
func (m *Model) Stream(ctx context.Context, req *chat.Request, yield func(chat.Delta) bool) (*chat.Response, error) {
	resp, err := m.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, piece := range splitWords(resp.Message.Content) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !yield(chat.Delta{Content: piece}) {
			return nil, chat.ErrStreamStopped
		}
	}
	for i, c := range resp.Message.ToolCalls {
		if !yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name}}) ||
			!yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, Arguments: string(c.Arguments)}}) {
			return nil, chat.ErrStreamStopped
		}
	}
	return resp, nil
}

func splitWords(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s[min(1, len(s)):], ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// Requests returns copies of the requests received so far.
func (m *Model) Requests() []*chat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*chat.Request, len(m.requests))
	for i, r := range m.requests {
		out[i] = clone(r)
	}
	return out
}

// RequestBodies returns each request as the JSON body providers/openai
// would send for it (see [WireJSON]).
func (m *Model) RequestBodies() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

// Remaining returns the number of scripted replies not yet used.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.replies)
}

func clone(req *chat.Request) *chat.Request {
	c := *req
	c.Messages = make([]chat.Message, len(req.Messages))
	for i, msg := range req.Messages {
		msg.ToolCalls = append([]chat.ToolCall(nil), msg.ToolCalls...)
		c.Messages[i] = msg
	}
	c.Tools = append([]chat.ToolDefinition(nil), req.Tools...)
	return &c
}

// WireJSON renders req as the body providers/openai sends for it to a
// Chat Completions endpoint, byte for byte (TestWireJSONMatchesProvider in
// providers/openai holds it to that), so tests can assert what would go
// over the wire. It renders Chat's body, with the provider's default
// settings, and differs only where it cannot know the provider's
// configuration:
//
//   - an empty req.Model is rendered as "model":"", where the provider
//     sends its configured model;
//   - "stream" is false: the provider's Stream sends "stream":true and
//     "stream_options":{"include_usage":true} after it;
//   - Options.MaxTokens is max_tokens, which the provider sends as
//     max_completion_tokens to api.openai.com.
//
// A request the provider would refuse to send, such as one with an input
// schema that is not JSON, renders as {"error":"..."}.
//
// As the provider does, it sends an assistant message without text but
// with tool calls with "content":null, empty or null arguments as "{}",
// Reasoning as "reasoning_content", a call's ProviderData (when a JSON
// object) as its "extra_content" and a message's (an object with
// extra_content or thought_signature, as Gemini's OpenAI-compatible
// endpoint sends them) as the message's fields, and Output as
// response_format json_schema; it leaves out ToolName and IsError, an
// empty input schema becomes {"type":"object","properties":{}}, and
// tool_choice and parallel_tool_calls are sent only with tools. The keys
// of Options.Extra are added at the top level, except those the body
// already has and model, messages, stream, stream_options, tools and
// tool_choice; the body's keys are then in sorted order.
func WireJSON(req *chat.Request) []byte {
	out, err := wireJSON(req)
	if err != nil {
		return []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	return out
}

// The wire types below mirror the fields, their order and their encoding
// in providers/openai.
type (
	wireRequest struct {
		Model             string        `json:"model"`
		MaxTokens         int           `json:"max_tokens,omitempty"`
		Stream            bool          `json:"stream"`
		Stop              []string      `json:"stop,omitempty"`
		Seed              *int          `json:"seed,omitempty"`
		Tools             []wireTool    `json:"tools,omitempty"`
		ToolChoice        any           `json:"tool_choice,omitempty"`
		ParallelToolCalls any           `json:"parallel_tool_calls,omitempty"`
		Temperature       *float64      `json:"temperature,omitempty"`
		TopP              *float64      `json:"top_p,omitempty"`
		ResponseFormat    *wireFormat   `json:"response_format,omitempty"`
		Messages          []wireMessage `json:"messages"`
	}
	wireMessage struct {
		Role             string     `json:"role"`
		Content          *string    `json:"content"`
		ReasoningContent string     `json:"reasoning_content,omitempty"`
		ToolCalls        []wireCall `json:"tool_calls,omitempty"`
		ToolCallID       string     `json:"tool_call_id,omitempty"`
		// An assistant message's ProviderData, when it is the object
		// {"extra_content":{...},"thought_signature":"..."} that Gemini's
		// OpenAI-compatible endpoint put on a reply.
		ExtraContent     json.RawMessage `json:"extra_content,omitempty"`
		ThoughtSignature json.RawMessage `json:"thought_signature,omitempty"`
	}
	wireCall struct {
		ID       string `json:"id,omitempty"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name,omitempty"`
			Arguments string `json:"arguments,omitempty"`
		} `json:"function"`
		ExtraContent json.RawMessage `json:"extra_content,omitempty"`
	}
	wireTool struct {
		Function wireFunction `json:"function"`
		Type     string       `json:"type"`
	}
	wireFunction struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Strict      bool            `json:"strict,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	wireFormat struct {
		Type       string             `json:"type"`
		JSONSchema *chat.OutputFormat `json:"json_schema"`
	}
	wireToolChoice struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
)

// wireReserved are the keys Options.Extra cannot set.
var wireReserved = []string{"model", "messages", "stream", "stream_options", "tools", "tool_choice"}

func wireJSON(req *chat.Request) ([]byte, error) {
	o := &req.Options
	body := wireRequest{Model: req.Model, Stop: o.Stop, Seed: o.Seed, Temperature: o.Temperature, TopP: o.TopP,
		Messages: make([]wireMessage, len(req.Messages))}
	if o.MaxTokens != nil {
		body.MaxTokens = *o.MaxTokens
	}
	if req.Output != nil {
		body.ResponseFormat = &wireFormat{Type: "json_schema", JSONSchema: req.Output}
	}
	for i, m := range req.Messages {
		out := &body.Messages[i]
		out.Role = string(m.Role)
		if m.Content != "" || len(m.ToolCalls) == 0 || m.Role != chat.RoleAssistant {
			out.Content = &req.Messages[i].Content
		}
		switch m.Role {
		case chat.RoleTool:
			out.ToolCallID = m.ToolCallID
		case chat.RoleAssistant:
			out.ReasoningContent = m.Reasoning
			if err := messageFields(m.ProviderData, out); err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
		}
		for _, c := range m.ToolCalls {
			w := wireCall{ID: c.ID, Type: "function"}
			w.Function.Name = c.Name
			w.Function.Arguments = string(c.Arguments)
			if t := bytes.TrimSpace(c.Arguments); len(t) == 0 || string(t) == "null" {
				w.Function.Arguments = "{}"
			}
			if t := bytes.TrimSpace(c.ProviderData); len(t) > 0 && t[0] == '{' {
				w.ExtraContent = t
			}
			out.ToolCalls = append(out.ToolCalls, w)
		}
	}
	if len(req.Tools) > 0 {
		for _, d := range req.Tools {
			params := d.InputSchema
			if t := bytes.TrimSpace(params); len(t) == 0 || string(t) == "null" {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			body.Tools = append(body.Tools, wireTool{Type: "function",
				Function: wireFunction{Name: d.Name, Description: d.Description, Strict: d.Strict, Parameters: params}})
		}
		switch c := req.ToolChoice; {
		case c.Name != "":
			choice := wireToolChoice{Type: "function"}
			choice.Function.Name = c.Name
			body.ToolChoice = choice
		case c.Mode != "":
			body.ToolChoice = string(c.Mode)
		}
		if p := o.ParallelToolCalls; p != nil {
			body.ParallelToolCalls = *p
		}
	}
	out, err := wire.Encode(&body)
	if err != nil {
		return nil, err
	}
	return wire.AddExtra(out, o.Extra, wireReserved)
}

// messageFields renders an assistant message's ProviderData as the
// provider does: an object's extra_content (an object) and
// thought_signature (a string) go on the message; other data, or an
// object without those keys, adds nothing; those keys of another type
// are an error.
func messageFields(data json.RawMessage, out *wireMessage) error {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	var f struct {
		ExtraContent     json.RawMessage `json:"extra_content"`
		ThoughtSignature json.RawMessage `json:"thought_signature"`
	}
	if err := json.Unmarshal(t, &f); err != nil {
		return fmt.Errorf("ProviderData is not a valid JSON object: %v", err)
	}
	if e := f.ExtraContent; e != nil && string(e) != "null" {
		if e[0] != '{' {
			return errors.New("ProviderData: extra_content is not an object")
		}
		out.ExtraContent = e
	}
	if s := f.ThoughtSignature; s != nil && string(s) != "null" {
		if s[0] != '"' {
			return errors.New("ProviderData: thought_signature is not a string")
		}
		out.ThoughtSignature = s
	}
	return nil
}

// CheckHistory reports why msgs could not be sent to a model again, or nil:
// every assistant tool call must have an id of its own and be answered by
// exactly one of the tool messages right after its message, with the same
// id (and tool name, where the tool message names one), and no tool message
// may answer anything else. A history a [toolcall.Client] returns with tool
// execution on passes, also with an error.
func CheckHistory(msgs []chat.Message) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == chat.RoleTool {
			return fmt.Errorf("message %d: tool message for call %q answers no call", i, m.ToolCallID)
		}
		if m.Role != chat.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		pending := make(map[string]string, len(m.ToolCalls)) // id -> tool name
		for _, c := range m.ToolCalls {
			if c.ID == "" {
				return fmt.Errorf("message %d: a call of %s has no id", i, c.Name)
			}
			if _, dup := pending[c.ID]; dup {
				return fmt.Errorf("message %d: call id %q appears twice", i, c.ID)
			}
			pending[c.ID] = c.Name
		}
		call := i
		for i+1 < len(msgs) && msgs[i+1].Role == chat.RoleTool {
			i++
			name, ok := pending[msgs[i].ToolCallID]
			if !ok {
				return fmt.Errorf("message %d: tool message for call %q, which message %d does not make or has answered", i, msgs[i].ToolCallID, call)
			}
			if msgs[i].ToolName != "" && msgs[i].ToolName != name {
				return fmt.Errorf("message %d: tool message names %s, the call %q is to %s", i, msgs[i].ToolName, msgs[i].ToolCallID, name)
			}
			delete(pending, msgs[i].ToolCallID)
		}
		for _, c := range m.ToolCalls {
			if _, open := pending[c.ID]; open {
				return fmt.Errorf("message %d: call %q to %s has no tool message", call, c.ID, c.Name)
			}
		}
	}
	return nil
}
