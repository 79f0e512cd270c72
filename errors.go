package toolcall

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/internal/decision"
)

// ErrInvalidTool is wrapped by every error about defining a tool: each is a
// [*DefinitionError] naming the type, method and parameter path, whose
// message says which rule was broken (an invalid or duplicate name, no
// tools in an object, an unsupported signature or parameter type, a schema
// the checks cannot enforce).
var ErrInvalidTool = errors.New("toolcall: invalid tool")

// The kinds of definition error, each an [ErrInvalidTool].
var (
	errInvalidName          error = invalidTool("invalid tool name")
	errNoTools              error = invalidTool("no tools")
	errDuplicateTool        error = invalidTool("duplicate tool name")
	errUnsupportedType      error = invalidTool("unsupported parameter type")
	errUnsupportedSignature error = invalidTool("unsupported signature")
)

type invalidTool string

func (e invalidTool) Error() string      { return "toolcall: " + string(e) }
func (invalidTool) Is(target error) bool { return target == ErrInvalidTool }

// Errors of the tool-calling loop.
var (
	// ErrToolNotFound: the model called a tool that the request did not offer.
	// By default the model is told so; see [DefaultToolErrorHandler].
	ErrToolNotFound = errors.New("toolcall: tool not found")
	// ErrMaxIterations: the model was still calling tools after the last
	// allowed round. The response returned with it holds the history.
	ErrMaxIterations = errors.New("toolcall: iteration limit reached")
	// ErrReplyCut: a model reply with tool calls was cut short by the output
	// limit or a content filter ([chat.FinishLength], [chat.FinishFiltered]), so it
	// may have lost calls or arguments, and none of its calls was run. The
	// response returned with it holds the cut reply and the history before it.
	ErrReplyCut = errors.New("toolcall: model reply cut short")
	// ErrEmptyAnswer: the model's final reply has neither text nor tool
	// calls. Some servers answer so when the model called a tool that was
	// not offered (Ollama drops such a call); asking again often helps. The
	// response returned with it holds the reply and the history.
	ErrEmptyAnswer = errors.New("toolcall: empty answer")
	// ErrFatal marks a tool error that must end the call instead of being
	// reported to the model: wrap it, as in fmt.Errorf("...: %w", toolcall.ErrFatal).
	ErrFatal = errors.New("toolcall: fatal tool error")
	// ErrInvalidPaused: a [Paused] state given to [Prompt.Resume] cannot be
	// trusted: it was edited after it was sealed, is not sealed where the
	// client seals ([WithSealKeys]), or does not hold together (a waiting
	// or done call that is not a call of the reply it pauses). Nothing ran.
	ErrInvalidPaused = errors.New("toolcall: invalid paused state")
	// ErrPending: the call waits for a decision (an approval, or what its
	// tool paused for, see [Pause]) and did not run. A waiting call's
	// [ToolExecution].Err wraps it, so that AfterTool tells it from a call
	// that finished.
	ErrPending = decision.ErrPending
	// ErrAlreadyResumed: this [Paused] state was resumed before, in this
	// process or, as the claim function of [WithResumeClaim] says, in
	// another. Nothing ran.
	ErrAlreadyResumed = errors.New("toolcall: paused state already resumed")
)

// A DefinitionError reports why a Go type, method or func cannot be a tool.
// Path is the parameter path of the offending part, e.g. "options.callback",
// empty when the problem is not a parameter.
type DefinitionError struct {
	Type   string // the Go type, e.g. "*shop.CustomerTools"; empty for funcs
	Method string // the method or tool name
	Path   string
	Err    error // says which rule was broken; wraps ErrInvalidTool
}

// Error names the type, method and parameter path that broke the rule.
func (e *DefinitionError) Error() string {
	var b strings.Builder
	b.WriteString("toolcall: ")
	switch {
	case e.Type != "" && e.Method != "":
		fmt.Fprintf(&b, "%s.%s", e.Type, e.Method)
	case e.Type != "":
		b.WriteString(e.Type)
	case e.Method != "":
		fmt.Fprintf(&b, "tool %q", e.Method)
	}
	if e.Path != "" {
		if b.Len() > len("toolcall: ") {
			b.WriteString(": ")
		}
		fmt.Fprintf(&b, "parameter %s", e.Path)
	}
	if b.Len() > len("toolcall: ") {
		b.WriteString(": ")
	}
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "toolcall: "))
	return b.String()
}

// Unwrap returns the sentinel, for errors.Is.
func (e *DefinitionError) Unwrap() error { return e.Err }

// A ToolError records a failed tool call: the tool returned an error or
// panicked. It wraps the cause.
type ToolError struct {
	Name   string // tool name
	CallID string // the model's call id
	Err    error
	// Panic is the recovered value when the tool panicked.
	Panic any
}

// Error names the tool and the call id.
func (e *ToolError) Error() string {
	return fmt.Sprintf("toolcall: tool %q (call %s): %v", e.Name, e.CallID, e.Err)
}

// Unwrap returns what the tool returned, or the panic as an error.
func (e *ToolError) Unwrap() error { return e.Err }

// A Violation is one way a tool's arguments broke its schema.
type Violation struct {
	Path    string // e.g. "options.days" or "tags[2]"; empty for the whole object
	Rule    string // the schema keyword, e.g. "type", "required", "enum", "maximum"
	Message string // for the model, e.g. "must be <= 14"
}

// String reads "path: message", or the message alone for the whole object.
func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// An ArgumentError reports arguments that do not fit a tool: malformed JSON,
// a wrong type or a schema rule broken. Its message is written for the model,
// which gets it as the tool result and can correct its call.
type ArgumentError struct {
	Tool       string
	Violations []Violation
}

// Error lists every violation; it is the text the model receives.
func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for tool %q: %s", e.Tool, joinViolations(e.Violations))
}

// joinViolations lists vs as the model and the caller read them.
func joinViolations(vs []Violation) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}
