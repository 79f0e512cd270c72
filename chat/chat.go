// Package chat is the contract between a tool-calling loop and a language
// model: the conversation ([Message], [ToolCall]), what is sent
// ([Request], with each tool's [ToolDefinition]) and what comes back
// ([Response]), and the [Model] interface that provider packages such as
// providers/openai and providers/ollama implement.
//
// Package toolcall runs the loop on these types; a program needs this
// package to keep a conversation ([UserMessage], a [Response]'s history),
// to write a provider, or to script a model in tests (package toolcalltest).
package chat

import (
	"context"
	"encoding/json"
)

// A Model sends one request to a language model and returns its reply.
// Provider packages (providers/openai, providers/ollama) implement it; so does
// the scripted model in package toolcalltest.
//
// Chat must be safe for concurrent use. It must not modify req. Errors are
// returned for transport and server failures; a reply with tool calls is not
// an error.
type Model interface {
	Chat(ctx context.Context, req *Request) (*Response, error)
}

// A StreamingModel can also stream its reply. Stream calls yield for each
// event in order and returns the complete reply, assembled from the events, as
// Chat would have. If yield returns false, Stream stops reading, releases the
// connection and returns [ErrStreamStopped].
type StreamingModel interface {
	Model
	Stream(ctx context.Context, req *Request, yield func(Delta) bool) (*Response, error)
}

// A Delta is one piece of a streamed reply: some text, or a fragment of
// a tool call. Fragments of one tool call share Index; ID and Name usually
// come only with the first fragment, and Arguments arrive in pieces.
type Delta struct {
	Content  string
	ToolCall *ToolCallDelta
}

// A ToolCallDelta is a fragment of a streamed tool call.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// A Role says who wrote a [Message].
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// A Message is one turn of a conversation, in a form every provider can map.
//
// An assistant message may carry ToolCalls; a tool message carries the result
// of one call in Content, with ToolCallID and ToolName naming the call.
//
// A provider may need parts of a reply back in later requests, such as the
// reasoning of a thinking model during its tool calls; keep the assistant
// message whole in the history (the toolcall loop does) and they are sent back.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	// IsError marks a tool message whose content reports a failure.
	IsError bool `json:"is_error,omitempty"`
	// Reasoning is the model's reasoning text ("thinking"), apart from
	// Content, as some servers return it; providers that know such a
	// field send it back with the assistant message.
	Reasoning string `json:"reasoning,omitempty"`
	// ProviderData is opaque data a provider read from a reply and sends
	// back unchanged with this message; other providers ignore it.
	ProviderData json.RawMessage `json:"provider_data,omitempty"`
}

// SystemMessage returns a system message with the given text.
func SystemMessage(text string) Message { return Message{Role: RoleSystem, Content: text} }

// UserMessage returns a user message with the given text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: text} }

// AssistantMessage returns an assistant message with text and tool calls.
func AssistantMessage(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: text, ToolCalls: calls}
}

// ToolMessage returns the tool message that answers call with result.
func ToolMessage(call ToolCall, result string) Message {
	return Message{Role: RoleTool, Content: result, ToolCallID: call.ID, ToolName: call.Name}
}

// A ToolCall is the model's request to run one tool. Arguments is the JSON
// text the model produced; it may be empty or invalid.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// ProviderData is opaque data a provider read with the call, such as
	// a thought signature, and sends back unchanged with it; other
	// providers ignore it.
	ProviderData json.RawMessage `json:"provider_data,omitempty"`
}

// ToolChoiceMode says whether the model may, must or must not call tools.
type ToolChoiceMode string

// Tool choice modes. The zero value lets the provider decide (usually auto).
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceNone     ToolChoiceMode = "none"
	ToolChoiceRequired ToolChoiceMode = "required"
)

// A ToolChoice constrains the model's use of tools. A non-empty Name forces a
// call to that tool.
type ToolChoice struct {
	Mode ToolChoiceMode `json:"mode,omitempty"`
	Name string         `json:"name,omitempty"`
}

// IsZero reports whether c leaves the choice to the provider.
func (c ToolChoice) IsZero() bool { return c.Mode == "" && c.Name == "" }

// Options are the sampling settings of a request. Nil pointers mean the
// provider's default. Extra holds provider-specific settings (for Ollama,
// e.g. "num_ctx"); providers document which keys they read.
type Options struct {
	Temperature       *float64       `json:"temperature,omitempty"`
	TopP              *float64       `json:"top_p,omitempty"`
	MaxTokens         *int           `json:"max_tokens,omitempty"`
	Seed              *int           `json:"seed,omitempty"`
	Stop              []string       `json:"stop,omitempty"`
	ParallelToolCalls *bool          `json:"parallel_tool_calls,omitempty"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// A Request is what a [Model] sends: the conversation, the tools offered
// and the settings. Model, when set, overrides the provider's configured model.
type Request struct {
	Model      string           `json:"model,omitempty"`
	Messages   []Message        `json:"messages"`
	Tools      []ToolDefinition `json:"tools,omitempty"`
	ToolChoice ToolChoice       `json:"tool_choice,omitzero"`
	Options    Options          `json:"options,omitzero"`
	// Output, when set, asks for a final answer in text that is one JSON
	// value of its schema. Only a [StructuredModel] whose
	// StructuredOutput reports true sends it; any other provider refuses
	// the request.
	Output *OutputFormat `json:"output,omitempty"`
}

// An OutputFormat is the schema a final answer must follow, sent in the
// API's own field (Chat Completions' response_format json_schema,
// Ollama's format).
type OutputFormat struct {
	// Name names the schema, where the API wants a name.
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	// Strict asks the API to constrain the answer to Schema, where it can;
	// Schema is then a strict schema (see ToolDefinition.Strict).
	Strict bool `json:"strict,omitempty"`
}

// A StructuredModel can ask its API for a final answer that follows a
// JSON Schema (Request.Output).
type StructuredModel interface {
	Model
	// StructuredOutput reports whether the model sends Request.Output.
	StructuredOutput() bool
}

// OutputMode says how a final answer as data is asked for.
type OutputMode string

// Output modes. The zero value asks natively when the model is a
// StructuredModel that supports it, and through a tool otherwise.
const (
	// OutputNative sends Request.Output, and the answer is the reply's text.
	OutputNative OutputMode = "native"
	// OutputTool offers a tool whose arguments are the answer: any model
	// that calls tools can give it.
	OutputTool OutputMode = "tool"
)

// A FinishReason says why the model stopped.
type FinishReason string

// Finish reasons, normalised across providers. A reply finishing with
// FinishLength or FinishFiltered was cut short; the toolcall loop does not
// run its tool calls.
const (
	FinishStop      FinishReason = "stop"
	FinishToolCalls FinishReason = "tool_calls"
	FinishLength    FinishReason = "length"
	FinishFiltered  FinishReason = "content_filter"
)

// Usage counts tokens. Providers that do not report usage leave it zero.
type Usage struct {
	// PromptTokens counts the whole prompt, cached tokens included.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CacheReadTokens are the prompt tokens read from the provider's
	// prompt cache; CacheWriteTokens those written to it (providers that
	// charge for cache writes report them). Both are part of PromptTokens.
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens are the completion tokens spent on reasoning, part
	// of CompletionTokens.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
	}
}

// A Response is one reply of a model: an assistant message, possibly
// with tool calls.
type Response struct {
	Message      Message      `json:"message"`
	FinishReason FinishReason `json:"finish_reason,omitempty"`
	Usage        Usage        `json:"usage"`
	// Model is the model name the provider reported, if any.
	Model string `json:"model,omitempty"`
	// Attempts is how many requests the provider made for this reply,
	// retries included: 1 when the first request succeeded. It is 0 when
	// the model does not say (a scripted model, a Client used as a Model).
	Attempts int `json:"attempts,omitempty"`
}

// HasToolCalls reports whether the reply asks for tool calls.
func (r *Response) HasToolCalls() bool { return r != nil && len(r.Message.ToolCalls) > 0 }

// A ToolDefinition is what the model sees of a tool. InputSchema is a JSON Schema
// of an object; it is shared and must not be modified.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Strict asks providers that support it (OpenAI's structured outputs) to
	// constrain the model's arguments to InputSchema. A strict InputSchema
	// lists every property as required, and optional ones accept null.
	Strict bool `json:"strict,omitempty"`
}
