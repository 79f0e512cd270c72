package toolcall

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolcall-go/toolcall/chat"

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
	converter         ResultConverter
	params            []signature.Param
	timeout           time.Duration
}

func (c *toolConfig) metadata() Metadata {
	return Metadata{ReturnDirect: c.returnDirect, Timeout: c.timeout}
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

// WithTimeout bounds each call of the tool, overriding the client's or
// manager's [WithToolTimeout]. Zero keeps theirs.
func WithTimeout(d time.Duration) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.timeout = max(d, 0) })
}

// WithStrict turns on the strict schema variant for the tool: every
// property is required and optional ones accept null, as OpenAI's
// structured outputs demand.
func WithStrict(strict bool) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.strict = strict })
}

// WithConverter sets how the tool's result becomes text for the model.
func WithConverter(conv ResultConverter) ToolOption {
	return toolOptionFunc(func(c *toolConfig) { c.converter = conv })
}

// An Option configures a [Client]: given to [NewClient] and [Client.With]
// it sets a client-wide default, given to [Prompt.With] it applies to one
// call. Values of one request (messages, tools, tool context, sampling
// options) are [Prompt] methods; settings of the loop are options.
type Option interface{ apply(*config) }

// A ManagerOption configures how tool calls are executed. [NewManager]
// takes only these, so an option about a client's loop cannot be given to
// a Manager and ignored; as an Option, a Client takes them too and hands
// them to its Manager.
type ManagerOption interface {
	Option
	executes()
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type execOption func(*config)

func (f execOption) apply(c *config) { f(c) }
func (execOption) executes()         {}

// NoLimit, given to an option that takes a limit, removes the limit. Zero
// means the default everywhere.
const NoLimit = -1

// The defaults, which the options' docs state.
const (
	defaultMaxIterations    = 10
	defaultConcurrency      = 16
	defaultMaxArgumentBytes = 1 << 20
	defaultMaxResultBytes   = 1 << 20
	defaultMaxArgumentDepth = 10000 // also the most WithMaxArgumentDepth allows
)

type config struct {
	// execution
	concurrency      int
	errorHandler     ToolErrorHandler
	unknownTool      UnknownToolPolicy
	toolTimeout      time.Duration
	converter        ResultConverter
	maxArgumentBytes int
	maxArgumentDepth int
	maxResultBytes   int
	middleware       Middleware
	strict           bool
	hooks            Hooks

	// loop
	maxIterations int
	tools         []any
	toolNames     []string
	toolContext   ToolContext
	resolver      Resolver
	providers     []ToolProvider
	eligible      func(*chat.Response) bool
	noExecution   bool
	options       chat.Options
	system        string
}

func defaultConfig() config {
	return config{
		concurrency:      defaultConcurrency,
		maxIterations:    defaultMaxIterations,
		maxArgumentBytes: defaultMaxArgumentBytes,
		maxArgumentDepth: defaultMaxArgumentDepth,
		maxResultBytes:   defaultMaxResultBytes,
	}
}

// A ToolErrorHandler decides what a failed tool call becomes: a text for the
// model (return text, nil) or the end of the call (return a non-nil error,
// which the caller gets). The *ToolError wraps the cause: the tool's error
// or an *ArgumentError. Calls to tools that were not offered follow
// [WithUnknownToolPolicy] instead.
type ToolErrorHandler func(ctx context.Context, err *ToolError) (string, error)

// UnknownToolPolicy says what a call to a tool that was not offered does.
type UnknownToolPolicy int

const (
	// UnknownToolReport tells the model the tool does not exist and which
	// tools do. The default.
	UnknownToolReport UnknownToolPolicy = iota
	// UnknownToolAbort ends the call with an error wrapping ErrToolNotFound.
	UnknownToolAbort
)

// Hooks observe the loop, e.g. for logging with log/slog, metrics or
// tracing. Nil fields cost nothing. Hooks may be called concurrently (tool
// hooks run on the goroutine of their call) and must not block for long.
//
// Each before-hook returns the context the work then runs with (return ctx
// itself to change nothing; nil counts as ctx), and its after-hook gets
// that context: a span opened in BeforeCall parents the model rounds and
// tool calls, and one opened in BeforeTool parents the tool's own work and
// its [Middleware], also for concurrent calls.
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
}

// hookContext returns what a before-hook returned, or ctx when it returned
// nil.
func hookContext(ctx, from context.Context) context.Context {
	if from == nil {
		return ctx
	}
	return from
}

// A ModelCall is one model round trip, as [Hooks].AfterModel sees it.
type ModelCall struct {
	Round    int // from 1
	Request  *chat.Request
	Response *chat.Response // nil when Err is set
	Err      error
	Duration time.Duration
}

// WithConcurrency bounds how many tool calls of one response run at once,
// 16 by default. 1 runs them one after another, in call order; zero means
// the default; [NoLimit] runs them all at once.
func WithConcurrency(n int) ManagerOption {
	return execOption(func(c *config) { c.concurrency = limit(n, defaultConcurrency) })
}

// WithToolErrorHandler replaces [DefaultToolErrorHandler].
func WithToolErrorHandler(h ToolErrorHandler) ManagerOption {
	return execOption(func(c *config) { c.errorHandler = h })
}

// WithUnknownToolPolicy sets what a call to a tool not offered does.
func WithUnknownToolPolicy(p UnknownToolPolicy) ManagerOption {
	return execOption(func(c *config) { c.unknownTool = p })
}

// WithToolTimeout bounds each tool call; a tool past it gets its context
// cancelled and the model is told it timed out. Tools must honour their
// context: a round ends only when each of its tools has returned, so one
// that ignores its context holds up the call. There is no timeout by
// default; zero means the default, and so does [NoLimit].
func WithToolTimeout(d time.Duration) ManagerOption {
	return execOption(func(c *config) { c.toolTimeout = max(d, 0) })
}

// WithResultConverter sets the converter for tools that have none of their
// own.
func WithResultConverter(conv ResultConverter) ManagerOption {
	return execOption(func(c *config) { c.converter = conv })
}

// WithMaxArgumentBytes bounds the size of one call's arguments, 1 MiB by
// default; larger arguments are refused and the model is told the limit.
// Zero means the default; [NoLimit] removes the limit.
func WithMaxArgumentBytes(n int) ManagerOption {
	return execOption(func(c *config) { c.maxArgumentBytes = limit(n, defaultMaxArgumentBytes) })
}

// limit reads a limit option: NoLimit is the largest int, zero (or any
// other negative number) the default.
func limit(n, def int) int {
	switch {
	case n == NoLimit:
		return int(^uint(0) >> 1)
	case n <= 0:
		return def
	}
	return n
}

// WithMaxArgumentDepth bounds how deeply arrays and objects may nest in
// one call's arguments; deeper arguments are refused and the model is told
// the limit. The default, 10,000 levels, is also the most: zero, [NoLimit]
// and larger numbers mean the default.
func WithMaxArgumentDepth(n int) ManagerOption {
	return execOption(func(c *config) {
		if n < 1 || n > defaultMaxArgumentDepth {
			n = defaultMaxArgumentDepth
		}
		c.maxArgumentDepth = n
	})
}

// WithMaxResultBytes bounds the size of one tool result, 1 MiB by default;
// a longer result is cut and ends with a line saying so ("[truncated:
// result was N bytes, limit L]"). Zero means the default; [NoLimit]
// removes the limit.
func WithMaxResultBytes(n int) ManagerOption {
	return execOption(func(c *config) { c.maxResultBytes = limit(n, defaultMaxResultBytes) })
}

// WithStrictTools sends every tool in its strict variant (see [WithStrict]),
// whatever its schema's origin, and checks its calls against that variant.
func WithStrictTools() ManagerOption {
	return execOption(func(c *config) { c.strict = true })
}

// Middleware wraps each tool call a [Client] or [Manager] runs, e.g. for
// logging, authorisation or caching. It runs after the call's arguments
// passed the tool's schema (a call that fails never reaches it), inside the
// tool's timeout, and before the result is cut to [WithMaxResultBytes] and
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
				c.middleware = chainMiddleware(c.middleware, m)
			}
		}
	})
}

func chainMiddleware(outer, inner Middleware) Middleware {
	if outer == nil {
		return inner
	}
	return func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
		return outer(ctx, call, func(ctx context.Context) (string, error) { return inner(ctx, call, next) })
	}
}

// WithHooks sets the observers of the loop. A [Manager] on its own runs no
// call and no model round, so of these it calls BeforeTool and AfterTool.
func WithHooks(h Hooks) ManagerOption {
	return execOption(func(c *config) { c.hooks = h })
}

// WithMaxIterations sets how many tool rounds a call may take, 10 by
// default; past it the call ends with [ErrMaxIterations]. Zero means the
// default; [NoLimit] removes the bound, for a model you trust to stop.
func WithMaxIterations(n int) Option {
	return optionFunc(func(c *config) { c.maxIterations = limit(n, defaultMaxIterations) })
}

// WithTools sets a client's default tools: [Tool] values, []Tool slices,
// or objects with [Method] fields. Tools given to a prompt replace them.
func WithTools(tools ...any) Option {
	return optionFunc(func(c *config) { c.tools = append([]any(nil), tools...) })
}

// WithToolNames sets a client's default tools by name, resolved with its
// [Resolver].
func WithToolNames(names ...string) Option {
	return optionFunc(func(c *config) { c.toolNames = append([]string(nil), names...) })
}

// WithToolContext sets a client's default tool context; a prompt's values
// win per key.
func WithToolContext(m map[string]any) ManagerOption {
	return execOption(func(c *config) { c.toolContext = c.toolContext.Merge(NewToolContext(m)) })
}

// WithResolver sets how tool names are resolved (see [Registry]).
func WithResolver(r Resolver) Option {
	return optionFunc(func(c *config) { c.resolver = r })
}

// WithToolProvider adds a provider asked for tools before each model
// request.
func WithToolProvider(p ToolProvider) Option {
	return optionFunc(func(c *config) { c.providers = append(c.providers, p) })
}

// WithEligibility replaces the test deciding whether a response's tool
// calls are executed. The default executes when the response has tool
// calls.
func WithEligibility(f func(*chat.Response) bool) Option {
	return optionFunc(func(c *config) { c.eligible = f })
}

// WithoutToolExecution makes Call return the first model response with its
// tool calls untouched, for a loop of the caller's own (see [Manager]).
func WithoutToolExecution() Option {
	return optionFunc(func(c *config) { c.noExecution = true })
}

// WithOptions sets a client's default sampling options.
func WithOptions(o chat.Options) Option {
	return optionFunc(func(c *config) { c.options = o })
}

// WithSystem sets a client's default system message.
func WithSystem(text string) Option {
	return optionFunc(func(c *config) { c.system = text })
}
