package toolcall

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/hook"
	"github.com/toolcall-go/toolcall/internal/seal"
	"github.com/toolcall-go/toolcall/internal/signature"
)

// A ToolOption overrides part of a tool built by [NewFunc], [NewMethod],
// [ToolsFrom] or [NewTool].
type ToolOption interface{ applyToTool(*toolConfig) }

type toolConfig struct {
	name, description string
	schema            json.RawMessage
	returnDirect      bool
	strict            bool
	approval          bool
	converter         func(any) (string, error)
	params            []signature.Param
	timeout           time.Duration
	hints             []string
}

type toolOptionFunc func(*toolConfig)

func (f toolOptionFunc) applyToTool(c *toolConfig) { f(c) }

// WithName sets the tool's name.
func WithName(name string) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.name = name })
}

// WithDescription sets the tool's description, which tells the model when
// to use it.
func WithDescription(text string) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.description = text })
}

// WithInputSchema replaces the schema derived from the Go type; explicit
// wins over inferred. The schema must be a JSON object schema. The
// arguments are still decoded into the Go type.
func WithInputSchema(schema json.RawMessage) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.schema = schema })
}

// WithReturnDirect sets whether the tool's result goes straight to the
// caller (see [Metadata]).
func WithReturnDirect(direct bool) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.returnDirect = direct })
}

// WithTimeout bounds each call of the tool, in place of the client's or
// manager's [Limits].ToolTimeout. Zero keeps theirs.
func WithTimeout(d time.Duration) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.timeout = max(d, 0) })
}

// WithNeedsApproval marks the tool as needing approval: each call waits for
// the decision of the client's approver ([WithApprover]), and with no
// approver it never runs: the call pauses (see [Paused]). The method tag
// approval:"true" does the same.
func WithNeedsApproval(required bool) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.approval = required })
}

// WithHints says what a call of the tool does, by the names of
// [Metadata]'s hints: "readOnly", "destructive", "idempotent", "openWorld".
// Approvers read them ([WithApprover]), and so does temporaltoolcall,
// which runs a failed call again only when it is read-only or idempotent.
// The method tag hints:"readOnly,idempotent" does the same. Another name
// is an error when the tool is built, never ignored.
func WithHints(names ...string) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.hints = append(c.hints, names...) })
}

// WithStrict sends the tool in its strict schema variant and checks its
// calls against that variant: every property is required and optional ones
// accept null, as OpenAI's structured outputs demand. [WithStrictTools]
// does this for every tool of a client or manager.
func WithStrict(strict bool) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.strict = strict })
}

// WithConverter sets how the tool's result becomes text for the model, in
// place of [ConvertResult]. It is not called for a tool that returns no
// value.
func WithConverter(conv func(result any) (string, error)) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.converter = conv })
}

// A ClientOption configures a [Client]. Where a setting lives: a setting of
// the loop or of tool execution is an option, given to [NewClient] or
// [Client.With]; a value of one request (its messages, system message,
// tools, tool names, tool context, tool choice, sampling options, model,
// session state, typed answer, owner) is a [Prompt] method. Tools are
// both: [WithTools] gives the client's default tools, which a Prompt's own
// replace.
type ClientOption interface{ apply(*config) }

// A ManagerOption configures how tool calls are executed. [NewManager]
// takes only these, so an option about a client's loop cannot be given to
// a Manager and ignored; a Client takes them too and hands them to its
// Manager.
type ManagerOption interface {
	ClientOption
	executes()
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type execOption func(*config)

func (f execOption) apply(c *config) { f(c) }
func (execOption) executes()         {}

// defaultMaxIterations is the default of [WithMaxIterations]; the defaults
// of [Limits] are defaultLimits.
const defaultMaxIterations = 10

type config struct {
	// execution
	limits       Limits
	errorHandler ToolErrorHandler
	approver     func(ctx context.Context, call chat.ToolCall, md Metadata) Decision
	middleware   Middleware
	strict       bool
	hooks        Hooks
	seal         *seal.Keys
	// err is a mistake in an option, which every call reports.
	err error

	// resume
	claim       func(ctx context.Context, id string) error
	pauseExpiry time.Duration

	// loop
	maxIterations int
	answerAtLimit bool
	tools         []any
	registry      *Registry
	toolsets      []Toolset
	eligible      func(*chat.Response) bool
}

func defaultConfig() config {
	return config{limits: defaultLimits, maxIterations: defaultMaxIterations}
}

// A ToolErrorHandler decides what a failed tool call becomes: a text for the
// model (return text, nil) or the end of the call (return a non-nil error,
// which the caller gets). The *ToolError wraps the cause: the tool's error
// or an *ArgumentError, or [ErrToolNotFound] for a call to a tool that was
// not offered.
type ToolErrorHandler func(ctx context.Context, err *ToolError) (string, error)

// Hooks observe the loop, e.g. for logging with log/slog, metrics or
// tracing. Nil fields cost nothing. Hooks may be called concurrently (tool
// hooks run on the goroutine of their call) and must not block for long.
//
// Each before-hook returns the context the work then runs with (return ctx
// itself to change nothing; nil counts as ctx), and its after-hook gets
// that context: a span opened in BeforeCall parents the model rounds and
// tool calls, and one opened in BeforeTool parents the tool's own work and
// its [Middleware], also for concurrent calls.
//
// A hook may replace the fields of the request it sees, never change what
// they hold: its Messages and Tools are shared with other requests.
type Hooks struct {
	// BeforeCall sees a Call's or Stream's first request; the whole call
	// runs with the context it returns.
	BeforeCall func(ctx context.Context, req *chat.Request) context.Context
	// AfterCall sees how the call ended: its Response and error. A call
	// that cannot start (no messages, an unknown tool name) calls neither.
	AfterCall   func(ctx context.Context, resp *Response, err error)
	BeforeModel func(ctx context.Context, req *chat.Request) context.Context
	AfterModel  func(ctx context.Context, mc ModelCall)
	// BeforeTool sees every call the model makes, also those that then
	// fail lookup or the argument checks and never reach the tool.
	BeforeTool func(ctx context.Context, call chat.ToolCall) context.Context
	AfterTool  func(ctx context.Context, exec ToolExecution)
	// ToolProgress sees what a running tool reports with [ReportProgress],
	// on the tool's goroutine; ctx is the tool call's context.
	ToolProgress func(ctx context.Context, info CallInfo, message string, progress, total float64)
}

// A ModelCall is one model round trip, as [Hooks].AfterModel sees it.
type ModelCall struct {
	Round    int // from 1
	Request  *chat.Request
	Response *chat.Response // nil when Err is set
	Err      error
	Duration time.Duration
}

// WithToolErrorHandler replaces [DefaultToolErrorHandler].
func WithToolErrorHandler(h ToolErrorHandler) ManagerOption {
	return execOption(func(c *config) { c.errorHandler = h })
}

// WithStrictTools sends every tool in its strict variant, as [WithStrict]
// does for one, whatever the tool's origin (a Go type, [NewTool], a tool of
// your own), and checks its calls against that variant.
func WithStrictTools() ManagerOption {
	return execOption(func(c *config) { c.strict = true })
}

// Middleware wraps each tool call a [Client] or [Manager] runs, e.g. for
// logging, authorisation or caching. It runs after the call's arguments
// passed the tool's schema (a call that fails never reaches it), inside the
// tool's timeout, and before the result is cut to [Limits].MaxResultBytes and
// the error policy applies. call holds the checked arguments, with "{}" for
// empty or null ones. next runs the tool, or the next middleware. A
// middleware may return without calling next, to refuse a call or answer
// from a cache; it cannot change the arguments, which were checked.
type Middleware func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error)

// WithMiddleware adds middleware around every tool call; the first given
// is the outermost. Wrapping changes nothing about the checks: each call is
// checked once, before the first middleware.
func WithMiddleware(mw ...Middleware) ManagerOption {
	return execOption(func(c *config) {
		for _, m := range mw {
			if m != nil {
				c.middleware = hook.Wrap(c.middleware, m)
			}
		}
	})
}

// WithHooks adds observers of the loop. Given more than once, every set
// runs: before-hooks in the order given, each getting the context the one
// before returned, and after-hooks in the reverse order, as deferred calls
// do. A [Manager] on its own runs no call and no model round, so of these
// it calls BeforeTool, AfterTool and ToolProgress.
func WithHooks(h Hooks) ManagerOption {
	return execOption(func(c *config) { c.hooks = c.hooks.then(h) })
}

// then returns hooks that run h's after a's (and h's after-hooks first).
func (a Hooks) then(h Hooks) Hooks {
	return Hooks{
		BeforeCall:   hook.Before(a.BeforeCall, h.BeforeCall),
		AfterCall:    hook.AfterBoth(h.AfterCall, a.AfterCall),
		BeforeModel:  hook.Before(a.BeforeModel, h.BeforeModel),
		AfterModel:   hook.After(h.AfterModel, a.AfterModel),
		BeforeTool:   hook.Before(a.BeforeTool, h.BeforeTool),
		AfterTool:    hook.After(h.AfterTool, a.AfterTool),
		ToolProgress: hook.Progress(a.ToolProgress, h.ToolProgress),
	}
}

// WithMaxIterations sets how many tool rounds a call may take, 10 by
// default; past it the call ends with [ErrMaxIterations]. Zero means the
// default; [NoLimit] removes the bound, for a model you trust to stop.
func WithMaxIterations(n int) ClientOption {
	return optionFunc(func(c *config) { c.maxIterations = readLimit(n, defaultMaxIterations) })
}

// WithAnswerAtLimit makes a call that reached the iteration limit ask the
// model once more, with tool choice none, and take its text as the answer,
// instead of ending with [ErrMaxIterations]. A model that calls tools
// anyway still ends the call with ErrMaxIterations, and no tool runs after
// the limit.
func WithAnswerAtLimit() ClientOption {
	return optionFunc(func(c *config) { c.answerAtLimit = true })
}

// WithTools sets a client's default tools: [Tool] values, []Tool slices,
// or objects with [Method] fields. Tools given to a prompt replace them.
func WithTools(tools ...any) ClientOption {
	return optionFunc(func(c *config) { c.tools = append([]any(nil), tools...) })
}

// WithRegistry sets the registry that [Prompt.ToolNames] finds tools in.
func WithRegistry(r *Registry) ClientOption {
	return optionFunc(func(c *config) { c.registry = r })
}

// WithToolset adds a toolset, asked for tools before each model request;
// they are offered beside the prompt's or client's tools.
func WithToolset(ts Toolset) ClientOption {
	return optionFunc(func(c *config) {
		if ts != nil {
			c.toolsets = append(c.toolsets, ts)
		}
	})
}

// WithEligibility replaces the test deciding whether a reply's tool calls
// are executed; the default executes when the reply has tool calls. A test
// that returns false makes Call return that reply with its calls
// untouched, for a loop of the caller's own (see [Manager]).
func WithEligibility(f func(*chat.Response) bool) ClientOption {
	return optionFunc(func(c *config) { c.eligible = f })
}
