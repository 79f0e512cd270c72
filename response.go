package toolcall

import (
	"strings"

	"github.com/toolcall-go/toolcall/chat"
)

// A Response is the outcome of a call.
type Response struct {
	// Message is the model's final message. When tools returned directly
	// it is the last model message, which holds the tool calls.
	Message chat.Message
	// History is the whole conversation, valid to send again: the request's
	// messages, every model message, and one tool message per tool call.
	History []chat.Message
	// Executions records every tool call, in order.
	Executions []ToolExecution
	// Intermediate holds every model response, in order, the final one
	// included.
	Intermediate []*chat.Response
	// Usage is the token usage summed over all model rounds.
	Usage chat.Usage
	// ReturnedDirect reports that the call ended with tool results returned
	// directly, without a final model answer.
	ReturnedDirect bool
	// Rounds is the number of model requests made, including a failed one.
	Rounds int
	// Repairs is how many times a typed answer ([Prompt.Answer]) that
	// broke its schema, or came as text, was sent back to the model.
	Repairs int
	// State is the session state: the prompt's ([Prompt.State]) with what
	// the tools wrote ([SetState]) merged over it in call order; pass it to
	// the next call with Prompt.State.
	State map[string]any
}

// Content returns the answer: the model's final text, or, when tools
// returned directly, their results joined by newlines.
func (r *Response) Content() string {
	if r == nil {
		return ""
	}
	if r.ReturnedDirect {
		return strings.Join(r.DirectResults(), "\n")
	}
	return r.Message.Content
}

// DirectResults returns the results of the tools that returned directly,
// in call order; nil unless ReturnedDirect.
func (r *Response) DirectResults() []string {
	if r == nil || !r.ReturnedDirect {
		return nil
	}
	var out []string
	for _, e := range r.Executions {
		if e.Round == r.Rounds {
			out = append(out, e.Result)
		}
	}
	return out
}
