package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// chatRequest is the body of POST /chat/completions, with the fields this
// package sends and no others (toolcalltest.WireJSON renders the same
// bytes). Temperature and top_p are pointers, so that a temperature of 0,
// the usual setting for tool calling, is sent.
type chatRequest struct {
	Model               string          `json:"model"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Stream              bool            `json:"stream"`
	Stop                []string        `json:"stop,omitempty"`
	Seed                *int            `json:"seed,omitempty"`
	Tools               []wireTool      `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"` // a mode, or a wireToolChoice
	StreamOptions       *streamOptions  `json:"stream_options,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	ResponseFormat      *responseFormat `json:"response_format,omitempty"`
	Messages            []wireMessage   `json:"messages"`
}

// responseFormat asks for an answer in a JSON Schema (Request.Output), as
// OpenAI, llama.cpp's server, vLLM and Ollama's /v1 take it.
type responseFormat struct {
	Type       string             `json:"type"` // "json_schema"
	JSONSchema *chat.OutputFormat `json:"json_schema"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireTool struct {
	Function wireFunctionDecl `json:"function"`
	Type     string           `json:"type"` // "function"
}

type wireFunctionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Strict      bool            `json:"strict,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// wireToolChoice names the one function the model must call.
type wireToolChoice struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is null only in an assistant turn that has tool calls and
	// no text, as OpenAI documents.
	Content *string `json:"content"`
	// ReasoningContent is an assistant message's Reasoning, sent back as
	// DeepSeek's thinking mode requires during tool calls; llama.cpp's
	// server uses the same field.
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
	// ExtraContent and ThoughtSignature go back as the reply had them:
	// Gemini's OpenAI-compatible endpoint puts a thought signature on the
	// message, in both fields, when it is not on a call.
	ExtraContent     json.RawMessage `json:"extra_content,omitempty"`
	ThoughtSignature json.RawMessage `json:"thought_signature,omitempty"`
}

// wireToolCall is a replayed tool call, with extra_content, where Gemini's
// OpenAI-compatible endpoint sends a call's thought signature and wants it
// back (cloudwego/eino#621).
type wireToolCall struct {
	ID           string          `json:"id,omitempty"`
	Type         string          `json:"type"` // "function"
	Function     wireCallFunc    `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type wireCallFunc struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// reservedKeys are the request fields Options.Extra cannot set: they follow
// from the request itself.
var reservedKeys = []string{"model", "messages", "stream", "stream_options", "tools", "tool_choice"}

// encode builds the request body and returns it with the model name used.
func (m *Model) encode(req *chat.Request, stream bool) ([]byte, string, error) {
	model, err := m.ep.ModelOf(req, m.model)
	if err != nil {
		return nil, model, err
	}
	invalid := func(format string, args ...any) ([]byte, string, error) {
		return nil, model, m.ep.BadRequest(model, fmt.Sprintf(format, args...))
	}
	if m.baseErr != "" {
		return invalid("%s", m.baseErr)
	}

	wr := chatRequest{Model: model, Stream: stream}
	wr.Messages = make([]wireMessage, len(req.Messages))
	for i := range req.Messages {
		msg := &req.Messages[i]
		wm := &wr.Messages[i]
		wm.Role = string(msg.Role)
		if msg.Content != "" || len(msg.ToolCalls) == 0 || msg.Role != chat.RoleAssistant {
			wm.Content = &msg.Content
		}
		if msg.Role == chat.RoleTool {
			wm.ToolCallID = msg.ToolCallID
		}
		if msg.Role == chat.RoleAssistant {
			wm.ReasoningContent = msg.Reasoning
			kept, err := keptFields(msg.ProviderData)
			if err != nil {
				return invalid("message %d: %v", i, err)
			}
			wm.ExtraContent, wm.ThoughtSignature = kept.ExtraContent, kept.ThoughtSignature
		}
		if len(msg.ToolCalls) > 0 {
			wm.ToolCalls = make([]wireToolCall, len(msg.ToolCalls))
			for j, tc := range msg.ToolCalls {
				wm.ToolCalls[j] = wireToolCall{
					ID:   tc.ID,
					Type: "function",
					// "{}" for empty or null arguments: servers reject a
					// replayed call whose arguments are missing or "".
					Function:     wireCallFunc{Name: tc.Name, Arguments: string(wire.Arguments(tc.Arguments))},
					ExtraContent: extraContent(tc.ProviderData),
				}
			}
		}
	}

	if len(req.Tools) > 0 {
		wr.Tools = make([]wireTool, len(req.Tools))
		for i, d := range req.Tools {
			wr.Tools[i] = wireTool{Type: "function", Function: wireFunctionDecl{Name: d.Name, Description: d.Description, Strict: d.Strict, Parameters: wire.Parameters(d.InputSchema)}}
		}
		// OpenAI rejects tool_choice and parallel_tool_calls without tools.
		switch c := req.ToolChoice; {
		case c.Name != "":
			tc := wireToolChoice{Type: "function"}
			tc.Function.Name = c.Name
			wr.ToolChoice = tc
		case c.Mode != "":
			wr.ToolChoice = string(c.Mode)
		}
		wr.ParallelToolCalls = req.Options.ParallelToolCalls
	}

	o := &req.Options
	wr.Temperature, wr.TopP, wr.Seed, wr.Stop = o.Temperature, o.TopP, o.Seed, o.Stop
	if o.MaxTokens != nil {
		if m.completionTokens {
			wr.MaxCompletionTokens = *o.MaxTokens
		} else {
			wr.MaxTokens = *o.MaxTokens
		}
	}
	if stream {
		wr.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if req.Output != nil {
		wr.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: req.Output}
	}

	body, err := wire.Encode(&wr)
	if err != nil {
		if err := wire.SchemaError(req.Tools); err != nil {
			return invalid("%v", err)
		}
		for i, msg := range req.Messages {
			for _, tc := range msg.ToolCalls {
				if extra := extraContent(tc.ProviderData); extra != nil && !json.Valid(extra) {
					return invalid("message %d: tool call %q: ProviderData is not valid JSON", i, tc.ID)
				}
			}
		}
		return invalid("encoding request: %v", err)
	}
	if body, err = wire.AddExtra(body, o.Extra, reservedKeys); err != nil {
		return invalid("Options.Extra: %v", err)
	}
	return body, model, nil
}

// extraContent returns a tool call's ProviderData as the extra_content
// object it was read from, or nil when it holds no JSON object (another
// provider's data, or none).
func extraContent(data json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return t
	}
	return nil
}

// messageFields are the fields of a reply's message that go back with it
// in later requests. Message.ProviderData holds them as this JSON object,
// {"extra_content":{...},"thought_signature":"..."}, the shape the reply
// had.
type messageFields struct {
	ExtraContent     json.RawMessage `json:"extra_content,omitempty"`
	ThoughtSignature json.RawMessage `json:"thought_signature,omitempty"`
}

// providerData returns the message's ProviderData for the kept fields
// extra (an object) and sig (a string), or nil when there are none.
func providerData(extra, sig json.RawMessage) json.RawMessage {
	f := messageFields{ExtraContent: extraContent(extra)}
	if t := bytes.TrimSpace(sig); len(t) > 0 && t[0] == '"' {
		f.ThoughtSignature = t
	}
	if f.ExtraContent == nil && f.ThoughtSignature == nil {
		return nil
	}
	data, err := json.Marshal(f)
	if err != nil { // not valid JSON; the decoder let it through as raw bytes
		return nil
	}
	return data
}

// keptFields reads the fields providerData kept from a message's
// ProviderData. Data that is no JSON object, or an object without those
// keys (another provider's), holds none; an object that does not parse, or
// whose kept fields have the wrong type, is an error.
func keptFields(data json.RawMessage) (messageFields, error) {
	var f messageFields
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return f, nil
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("ProviderData is not a valid JSON object: %v", err)
	}
	if f.ExtraContent != nil && extraContent(f.ExtraContent) == nil && string(f.ExtraContent) != "null" {
		return f, fmt.Errorf("ProviderData: extra_content is %s, want an object", jsonnode.Kind(f.ExtraContent[0]))
	}
	if t := f.ThoughtSignature; t != nil && t[0] != '"' && string(t) != "null" {
		return f, fmt.Errorf("ProviderData: thought_signature is %s, want a string", jsonnode.Kind(t[0]))
	}
	if string(f.ExtraContent) == "null" {
		f.ExtraContent = nil
	}
	if string(f.ThoughtSignature) == "null" {
		f.ThoughtSignature = nil
	}
	return f, nil
}

// A serverReply is what the server sends back: a reply that is not streamed
// (chatResponse), or one event of a stream (chatChunk); they differ in
// their choices. Their types are lenient where servers differ; see text
// and wire.RawArguments.
type serverReply[Choice any] struct {
	Model   string     `json:"model"`
	Choices []Choice   `json:"choices"`
	Usage   *wireUsage `json:"usage"`
	// Error is set by servers that report a failure in a 200 body or
	// mid-stream.
	Error json.RawMessage `json:"error"`
}

type (
	chatResponse = serverReply[replyChoice]
	chatChunk    = serverReply[chunkChoice]
)

type replyChoice struct {
	Message      wireResponse `json:"message"`
	FinishReason string       `json:"finish_reason"`
}

type chunkChoice struct {
	Index int          `json:"index"`
	Delta wireResponse `json:"delta"`
	// Message is what a server that answers a stream with whole messages
	// sends instead of Delta. A pointer keeps a choice small: a line of
	// many tiny choices must not decode into many times its size.
	Message      *wireResponse `json:"message"`
	FinishReason string        `json:"finish_reason"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// usage returns u as chat reads it. TotalTokens is the server's
// total_tokens, which Gemini's endpoint makes larger than prompt plus
// completion, since it counts thinking there only; it is the sum when the
// server sends no total. ReasoningTokens is only what
// completion_tokens_details reports, part of CompletionTokens, and is not
// inferred from such a difference.
func (u *wireUsage) usage() chat.Usage {
	c := chat.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if c.TotalTokens == 0 {
		c.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if d := u.PromptTokensDetails; d != nil {
		c.CacheReadTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		c.ReasoningTokens = d.ReasoningTokens
	}
	return c
}

type wireResponse struct {
	Content text `json:"content"`
	Refusal text `json:"refusal"`
	// ReasoningContent is the reasoning text of DeepSeek's thinking mode
	// and of llama.cpp's server with thinking models.
	ReasoningContent text       `json:"reasoning_content"`
	ToolCalls        []wireCall `json:"tool_calls"`
	// ExtraContent and ThoughtSignature are where Gemini's
	// OpenAI-compatible endpoint puts the message's thought signature.
	ExtraContent     json.RawMessage `json:"extra_content"`
	ThoughtSignature json.RawMessage `json:"thought_signature"`
}

func (r *wireResponse) empty() bool {
	return r.Content == "" && r.Refusal == "" && r.ReasoningContent == "" && len(r.ToolCalls) == 0 &&
		r.ExtraContent == nil && r.ThoughtSignature == nil
}

// message returns the reply's message: every element of tool_calls is a
// call, whatever its index says.
func (r *wireResponse) message() chat.Message {
	msg := chat.Message{Role: chat.RoleAssistant, Content: string(r.Content + r.Refusal), Reasoning: string(r.ReasoningContent),
		ProviderData: providerData(r.ExtraContent, r.ThoughtSignature)}
	if len(r.ToolCalls) > 0 {
		msg.ToolCalls = make([]chat.ToolCall, len(r.ToolCalls))
		for i := range r.ToolCalls {
			c := &r.ToolCalls[i]
			msg.ToolCalls[i] = chat.ToolCall{ID: callID(c.ID), Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments), ProviderData: extraContent(c.ExtraContent)}
		}
		finishCalls(msg.ToolCalls)
	}
	return msg
}

type wireCall struct {
	Index    *int         `json:"index"`
	ID       string       `json:"id"`
	Function wireFunction `json:"function"`
	// ExtraContent is kept when it is an object: Gemini sends a call's
	// thought signature in it, {"google":{"thought_signature":"..."}}.
	ExtraContent json.RawMessage `json:"extra_content"`
}

type wireFunction struct {
	Name      string            `json:"name"`
	Arguments wire.RawArguments `json:"arguments"`
}

// text is message content: a string, null, or an array of content parts,
// whose texts are joined, as some servers send.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		return json.Unmarshal(b, (*string)(t))
	case 'n':
		*t = ""
		return nil
	case '[':
		var parts []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var s strings.Builder
		for _, p := range parts {
			s.WriteString(p.Text)
		}
		*t = text(s.String())
		return nil
	}
	return fmt.Errorf("content is JSON %s, want a string", jsonnode.Kind(b[0]))
}

func hasError(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// An assembler collects one reply from stream chunks.
type assembler struct {
	model     string
	content   []byte
	reasoning []byte
	// calls are the calls so far, with the ids the server sent ("" for
	// none) and their arguments as far as they came.
	calls []chat.ToolCall
	// slots maps a streamed call's index to its position in calls.
	slots map[int]int
	// early holds extra_content that came before anything else of its call,
	// by index: it alone does not make a call.
	early map[int]json.RawMessage
	// extra and signature are the message's extra_content and
	// thought_signature, kept as its ProviderData.
	extra, signature json.RawMessage
	finish           string
	usage            *wireUsage
	// size counts what the reply keeps of a stream, for limit, the
	// response limit (negative: none): the bytes of text, reasoning,
	// arguments, ids, names and kept extra_content, and httpline.ItemCost for each
	// call, so that the number of calls is bounded too.
	size, limit int64
}

// addFragment merges a streamed fragment of a tool call, at position pos in
// its chunk, into the call it continues, or starts a new call. Fragments
// are matched by index (the position in the chunk when the server sends
// none), unless a different non-empty id arrives: some servers send
// parallel calls all with index 0 (ai-dynamo/dynamo#4723, Grok). It
// returns the delta to yield, with the id and the name only the first time
// the call has them, and false when the fragment carries nothing to yield.
// The first extra_content object a call's fragments bring is kept.
func (a *assembler) addFragment(pos int, c *wireCall) (chat.ToolCallDelta, bool) {
	id := callID(c.ID)
	k := pos
	if c.Index != nil {
		k = *c.Index
	}
	i, ok := a.slots[k]
	if ok && id != "" && a.calls[i].ID != "" && id != a.calls[i].ID {
		ok = false
	}
	extra := extraContent(c.ExtraContent)
	if !ok {
		if id == "" && c.Function.Name == "" && len(c.Function.Arguments) == 0 {
			if extra != nil && a.early[k] == nil {
				if !a.take(httpline.ItemCost + len(extra)) {
					return chat.ToolCallDelta{}, false
				}
				if a.early == nil {
					a.early = make(map[int]json.RawMessage)
				}
				a.early[k] = extra
			}
			return chat.ToolCallDelta{}, false
		}
		if !a.take(httpline.ItemCost) {
			return chat.ToolCallDelta{}, false
		}
		if a.slots == nil {
			a.slots = make(map[int]int)
		}
		i = len(a.calls)
		a.calls = append(a.calls, chat.ToolCall{ProviderData: a.early[k]})
		a.slots[k] = i
	}
	p := &a.calls[i]
	d := chat.ToolCallDelta{Index: i, Arguments: string(c.Function.Arguments)}
	if p.ID == "" && id != "" {
		if !a.take(len(id)) {
			return chat.ToolCallDelta{}, false
		}
		p.ID, d.ID = id, id
	}
	if p.Name == "" && c.Function.Name != "" {
		if !a.take(len(c.Function.Name)) {
			return chat.ToolCallDelta{}, false
		}
		p.Name, d.Name = c.Function.Name, c.Function.Name
	}
	if p.ProviderData == nil && extra != nil {
		if !a.take(len(extra)) {
			return chat.ToolCallDelta{}, false
		}
		p.ProviderData = extra
	}
	if !a.take(len(c.Function.Arguments)) {
		return chat.ToolCallDelta{}, false
	}
	p.Arguments = append(p.Arguments, c.Function.Arguments...)
	return d, d.ID != "" || d.Name != "" || d.Arguments != ""
}

// callID drops the placeholder ids some servers put in continuation chunks
// (langchain-ai/langchainjs#11373).
func callID(id string) string {
	if id == "null" {
		return ""
	}
	return id
}

// response builds the reply the chunks brought.
func (a *assembler) response() *chat.Response {
	finishCalls(a.calls)
	msg := chat.Message{Role: chat.RoleAssistant, Content: string(a.content), Reasoning: string(a.reasoning), ToolCalls: a.calls,
		ProviderData: providerData(a.extra, a.signature)}
	return newResponse(a.model, msg, a.usage, a.finish)
}

// finishCalls gives the calls of a reply ids of their own, so that tool
// results can be matched to calls: a missing id becomes "call_<index>" and
// a repeated one gets a "_<n>" suffix. Empty or null arguments become "{}".
// A call's extra_content stays with it, as its ProviderData.
func finishCalls(calls []chat.ToolCall) {
	ids := wire.CallIDs{Prefix: "call_"}
	for i := range calls {
		c := &calls[i]
		c.ID = ids.Next(c.ID)
		c.Arguments = wire.Arguments(c.Arguments)
	}
}

// newResponse returns the reply with msg, from model, with usage u (nil:
// none reported) and the server's finish_reason.
func newResponse(model string, msg chat.Message, u *wireUsage, finish string) *chat.Response {
	r := &chat.Response{Message: msg, Model: model}
	if u != nil {
		r.Usage = u.usage()
	}
	r.FinishReason = finishReason(finish, len(msg.ToolCalls) > 0)
	return r
}

// finishReason normalises the server's finish_reason. A reply with tool
// calls finishes with FinishToolCalls, whatever the server said (some say
// "stop"), unless it was cut short ("length") or filtered: those calls may
// be incomplete, and the Client must not run them.
func finishReason(s string, calls bool) chat.FinishReason {
	switch s {
	case "length":
		return chat.FinishLength
	case "content_filter":
		return chat.FinishFiltered
	}
	if calls {
		return chat.FinishToolCalls
	}
	switch s {
	case "", "stop", "tool_calls", "function_call":
		// "tool_calls" without a call: there is nothing to run.
		return chat.FinishStop
	}
	return chat.FinishReason(s)
}
