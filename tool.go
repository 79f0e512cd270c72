package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/check"
)

// A Tool is a function the model can call.
//
// Definition and Metadata must return the same values on every call. Call may
// be invoked concurrently for different tool calls, so implementations must be
// safe for concurrent use. Call receives the model's arguments as raw JSON
// (never empty: the [Manager] turns "", "null" and missing arguments into
// "{}") and returns the text sent back to the model. A non-nil error is
// reported to the model as the tool result (see [WithToolErrorHandler]).
//
// The [Manager] checks every call's arguments against the tool's input
// schema, once, before the tool or any [Middleware] runs, whatever the tool's
// type; a Tool of your own (say, one that wraps another) gets only arguments
// that passed. The tools this package builds also check when their Call is
// used directly, so a wrapper that calls one is safe too; there, null for an
// optional parameter counts as absent, as in the strict variant.
type Tool interface {
	Definition() chat.ToolDefinition
	Metadata() Metadata
	Call(ctx context.Context, arguments json.RawMessage) (string, error)
}

// An OutputSchemaTool is a [Tool] that states the JSON Schema of its
// result text, as an MCP server announces it (package mcptool). The tools
// [NewFunc], [NewMethod] and [ToolsFrom] build are OutputSchemaTools: the
// schema is that of the result when it is a struct turned into JSON by the
// default conversion, and nil otherwise.
type OutputSchemaTool interface {
	Tool
	OutputSchema() json.RawMessage
}

// Metadata is what only the library sees of a tool.
type Metadata struct {
	// ReturnDirect sends the tool's result straight to the caller instead of
	// back to the model, when every tool called in a response has it.
	ReturnDirect bool
	// Timeout bounds each call of the tool; zero leaves it to the
	// client's or manager's [Limits].ToolTimeout.
	Timeout time.Duration
	// NeedsApproval makes each call wait for a decision (see
	// [WithNeedsApproval]). A tool that wraps another must keep it: return the
	// inner tool's Metadata.
	NeedsApproval bool

	// Hints say what a call does, as MCP's tool annotations do. They are
	// claims of the tool's author, never guarantees: false claims nothing,
	// so a policy that asks before a tool changes anything tests ReadOnly.
	ReadOnly    bool // it does not change its environment
	Destructive bool // it may delete or overwrite (when not ReadOnly)
	Idempotent  bool // calling it again with the same arguments changes nothing more
	OpenWorld   bool // it reaches beyond a closed domain, e.g. the web
}

// emptySchema is the input schema of a tool without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`)

// NewTool returns a tool defined by hand: def is sent to the model as is
// (an empty InputSchema means no parameters; a strict one, by def.Strict
// or [WithStrict], is sent in its strict variant) and call runs it. It is the
// way to build tools whose schema is not a Go type, such as tools bridged
// from another protocol. Options override parts of def.
//
// The schema is compiled here, and refused with a [*DefinitionError] naming
// the parameter path and the keyword when it uses a keyword the checks
// cannot enforce (see the package documentation). call receives only
// arguments that passed them.
func NewTool(def chat.ToolDefinition, call func(ctx context.Context, arguments json.RawMessage) (string, error), opts ...ToolOption) (Tool, error) {
	if call == nil {
		return nil, &DefinitionError{Method: def.Name, Err: fmt.Errorf("%w: nil call function", ErrInvalidTool)}
	}
	cfg := toolConfig{name: def.Name, description: def.Description, schema: def.InputSchema, strict: def.Strict}
	for _, o := range opts {
		o.applyToTool(&cfg)
	}
	if len(cfg.schema) == 0 {
		cfg.schema = emptySchema
	}
	t := &rawTool{call: call}
	if err := finishConfig(&t.toolCore, &cfg, nil); err != nil {
		return nil, withSource(err, "", cfg.name)
	}
	return t, nil
}

type rawTool struct {
	toolCore
	call func(ctx context.Context, arguments json.RawMessage) (string, error)
}

func (t *rawTool) Call(ctx context.Context, arguments json.RawMessage) (string, error) {
	return t.run(ctx, chat.ToolCall{}, check.Normalize(arguments), t.in.Variant(t.def.Strict, false, true), nil)
}

func (t *rawTool) run(ctx context.Context, call chat.ToolCall, args []byte, k *check.Checker, mw Middleware) (string, error) {
	if err := checkArgs(k, t.in, t.def.Name, args, nil); err != nil {
		return "", err
	}
	args = bytes.Clone(args) // the tool's own: the history keeps what was checked
	if mw == nil {
		return t.call(ctx, args)
	}
	return mw(ctx, call, func(ctx context.Context) (string, error) { return t.call(ctx, args) })
}

// A builtTool is a tool this package built. It carries its definition,
// metadata and compiled input schema, which the Manager reads in place,
// and its run checks a call (a tool built from a Go type decodes in the
// same pass) before it calls through the middleware.
type builtTool interface {
	Tool
	core() *toolCore
	run(ctx context.Context, call chat.ToolCall, args []byte, k *check.Checker, mw Middleware) (string, error)
}

// toolCore is what every tool this package builds holds.
type toolCore struct {
	def  chat.ToolDefinition
	meta Metadata
	in   *check.Input // the compiled input schema
	// answer marks the tool through which a typed answer is given: giving
	// it runs nothing, so no approver or middleware decides it.
	answer bool
}

func (c *toolCore) Definition() chat.ToolDefinition { return c.def }
func (c *toolCore) Metadata() Metadata              { return c.meta }
func (c *toolCore) core() *toolCore                 { return c }

var (
	_ OutputSchemaTool = (*funcTool[struct{}, struct{}])(nil)
	_ OutputSchemaTool = (*reflectTool)(nil)
)
