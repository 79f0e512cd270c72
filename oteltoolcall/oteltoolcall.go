// Package oteltoolcall traces and measures the tool-calling loop of package
// toolcall with OpenTelemetry, following OpenTelemetry's semantic
// conventions for generative AI as of version 1.41.0 (the package
// go.opentelemetry.io/otel/semconv/v1.41.0 and its genaiconv metrics).
// It is named after otelconnect, so that it does not collide with the otel
// packages it is used beside.
//
// [Hooks] returns the [toolcall.Hooks] to give to [toolcall.WithHooks]:
//
//	client := toolcall.NewClient(model, toolcall.WithHooks(oteltoolcall.Hooks(
//		oteltoolcall.WithProviderName("openai"),
//	)))
//
// # Spans
//
// Each Call or Stream of a [toolcall.Client] is one span, and each model
// round and each tool call is a child of it:
//
//	invoke_agent                     INTERNAL  gen_ai.operation.name=invoke_agent
//	├── chat {gen_ai.request.model}  CLIENT    gen_ai.operation.name=chat
//	├── execute_tool {tool name}     INTERNAL  gen_ai.operation.name=execute_tool
//	│   └── the tool's own spans, and its middleware's
//	├── execute_tool {tool name}     (tool calls of one round may run at once)
//	└── chat {gen_ai.request.model}
//
// The span of a whole call is named invoke_agent, with the operation name
// invoke_agent of the conventions (not invoke_workflow, which groups
// several agents): the loop of a Client, a model with tools it runs until
// the model answers, is what the conventions call an agent, and it runs in
// the caller's process, so the span is INTERNAL, as the conventions ask
// for agents invoked in process. With [WithAgentName] the span is named
// "invoke_agent {name}". A chat span without a request model (the provider's
// configured model is used) is named "chat". A [toolcall.Manager] used on
// its own makes only the execute_tool spans, children of whatever span its
// context carries.
//
// The attributes, each set only when its value is known:
//
//   - on every span: gen_ai.operation.name; gen_ai.provider.name, given
//     with [WithProviderName], on the invoke_agent and chat spans (the hooks
//     cannot see which provider a model is); error.type when it failed.
//   - invoke_agent: gen_ai.agent.name ([WithAgentName]), gen_ai.request.model
//     (the Prompt's model), and gen_ai.usage.input_tokens and
//     gen_ai.usage.output_tokens summed over the call's model rounds.
//   - chat: gen_ai.request.model, gen_ai.request.max_tokens,
//     gen_ai.request.temperature, gen_ai.request.top_p, gen_ai.request.seed
//     and gen_ai.request.stop_sequences from the request;
//     gen_ai.response.model, gen_ai.response.finish_reasons,
//     gen_ai.usage.input_tokens and gen_ai.usage.output_tokens from the
//     reply. A reply with no usage (all counts zero, as providers that do
//     not report usage leave them) sets no usage attributes.
//   - execute_tool: gen_ai.tool.name, gen_ai.tool.call.id and
//     gen_ai.tool.type, which is "function": every tool of package toolcall
//     is a function the model fills in the arguments of and the client runs.
//
// A failed span has status Error and an error.type attribute; a tool call
// counts as failed when its [toolcall.ToolExecution] reports IsError, also
// when the error was sent to the model and the call went on. The values of
// error.type, first match wins:
//
//   - the value of an ErrorType() string method of an error in the chain,
//     as [semconv.ErrorType] reads it;
//   - "panic": the tool panicked;
//   - the HTTP status code, e.g. "429", of a [*chat.ProviderError] that has
//     one;
//   - "timeout": the chain holds context.DeadlineExceeded (a tool that ran
//     past its timeout and returned its context's error, or a call whose
//     deadline passed);
//   - "canceled": the chain holds context.Canceled;
//   - "tool_not_found": [toolcall.ErrToolNotFound], a call to a tool that
//     was not offered;
//   - "invalid_arguments": a [*toolcall.ArgumentError], arguments the
//     tool's schema refused;
//   - "max_iterations": [toolcall.ErrMaxIterations];
//   - "reply_cut": [toolcall.ErrReplyCut];
//   - "stream_stopped": [chat.ErrStreamStopped];
//   - otherwise the Go type of the error, as [semconv.ErrorType] gives it
//     (fmt.Errorf wrappers unwrapped), of the cause a [*toolcall.ToolError]
//     wraps rather than of the ToolError itself, since every tool failure is
//     one: e.g. "*errors.errorString" or "*net.OpError".
//
// # Content
//
// Tool arguments and results, message text and error messages (which may
// be a tool's result, since a tool's error message is what the model is
// told) are not recorded unless [WithContent] is given: then they are, in
// gen_ai.input.messages and gen_ai.output.messages on the chat and
// invoke_agent spans (JSON strings following the conventions' message
// schemas; a system message is a message of role "system" there),
// gen_ai.tool.call.arguments and gen_ai.tool.call.result on the
// execute_tool spans, and as a failed span's status description and an
// exception event. Without it a failed span's status description is its
// error.type.
//
// # Metrics
//
// Each model round records the two client metrics of the conventions,
// histograms with the bucket boundaries the conventions advise:
// gen_ai.client.operation.duration (seconds, the round's
// [toolcall.ModelCall] Duration) and gen_ai.client.token.usage (tokens, one
// value with gen_ai.token.type "input" and one with "output", when the
// reply reports usage). Their attributes are gen_ai.operation.name "chat",
// gen_ai.provider.name, gen_ai.request.model, gen_ai.response.model and,
// for a failed round's duration, error.type, each when known. Tool calls
// and whole calls are not recorded on these metrics, which the conventions
// of 1.41.0 define for model operations.
package oteltoolcall

import (
	"context"
	"errors"
	"strconv"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
)

// scopeName is the instrumentation scope of the tracer and meter.
const scopeName = "github.com/toolcall-go/toolcall/oteltoolcall"

// The bucket boundaries the conventions advise for the two histograms.
var (
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)

// An Option configures [Hooks].
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	tp       trace.TracerProvider
	mp       metric.MeterProvider
	content  bool
	provider string
	agent    string
}

// WithTracerProvider sets where the spans go; the global TracerProvider
// (otel.GetTracerProvider) by default, also when tp is nil.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tp = tp })
}

// WithMeterProvider sets where the metrics go; the global MeterProvider
// (otel.GetMeterProvider) by default, also when mp is nil.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.mp = mp })
}

// WithContent records what is left out by default, as it may be sensitive:
// message text, tool arguments and results, and error messages (see the
// package documentation's Content section).
func WithContent() Option {
	return optionFunc(func(c *config) { c.content = true })
}

// WithProviderName sets gen_ai.provider.name, e.g. "openai" or "ollama"; a
// name the conventions list (see genaiconv.ProviderNameAttr) should be
// given as listed. Without it the attribute is left out.
func WithProviderName(name string) Option {
	return optionFunc(func(c *config) { c.provider = name })
}

// WithAgentName sets gen_ai.agent.name on the span of each call, which is
// then named "invoke_agent {name}".
func WithAgentName(name string) Option {
	return optionFunc(func(c *config) { c.agent = name })
}

// Hooks returns hooks that trace each call, model round and tool call, and
// record the duration and token usage of each model round, as the package
// documentation describes. Give them to [toolcall.WithHooks]. They are safe
// for concurrent use, by any number of clients and managers.
func Hooks(opts ...Option) toolcall.Hooks {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if cfg.tp == nil {
		cfg.tp = otel.GetTracerProvider()
	}
	if cfg.mp == nil {
		cfg.mp = otel.GetMeterProvider()
	}
	in := &instrumentation{
		cfg:    cfg,
		tracer: cfg.tp.Tracer(scopeName, trace.WithSchemaURL(semconv.SchemaURL)),
	}
	meter := cfg.mp.Meter(scopeName, metric.WithSchemaURL(semconv.SchemaURL))
	var err error
	if in.duration, err = genaiconv.NewClientOperationDuration(meter, metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		otel.Handle(err)
	}
	if in.tokens, err = genaiconv.NewClientTokenUsage(meter, metric.WithExplicitBucketBoundaries(tokenBuckets...)); err != nil {
		otel.Handle(err)
	}
	return toolcall.Hooks{
		BeforeCall:  in.beforeCall,
		AfterCall:   in.afterCall,
		BeforeModel: in.beforeModel,
		AfterModel:  in.afterModel,
		BeforeTool:  in.beforeTool,
		AfterTool:   in.afterTool,
	}
}

type instrumentation struct {
	cfg      config
	tracer   trace.Tracer
	duration genaiconv.ClientOperationDuration
	tokens   genaiconv.ClientTokenUsage
}

func (in *instrumentation) beforeCall(ctx context.Context, req *chat.Request) context.Context {
	name := string(genaiconv.OperationNameInvokeAgent)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameInvokeAgent}
	attrs = in.provider(attrs)
	if in.cfg.agent != "" {
		name += " " + in.cfg.agent
		attrs = append(attrs, semconv.GenAIAgentName(in.cfg.agent))
	}
	if req != nil {
		if req.Model != "" {
			attrs = append(attrs, semconv.GenAIRequestModel(req.Model))
		}
		if in.cfg.content {
			attrs = append(attrs, semconv.GenAIInputMessagesKey.String(inputMessages(req.Messages)))
		}
	}
	ctx, _ = in.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx
}

func (in *instrumentation) afterCall(ctx context.Context, resp *toolcall.Response, err error) {
	span := trace.SpanFromContext(ctx)
	if resp != nil {
		span.SetAttributes(usage(nil, resp.Usage)...)
		if resp.Repairs > 0 {
			span.SetAttributes(AnswerRepairsKey.Int(resp.Repairs))
		}
		if in.cfg.content && err == nil {
			var finish chat.FinishReason
			if n := len(resp.Intermediate); n > 0 && resp.Intermediate[n-1] != nil {
				finish = resp.Intermediate[n-1].FinishReason
			}
			span.SetAttributes(semconv.GenAIOutputMessagesKey.String(outputMessages(resp.Message, finish)))
		}
	}
	in.fail(span, err)
	span.End()
}

func (in *instrumentation) beforeModel(ctx context.Context, req *chat.Request) context.Context {
	name := string(genaiconv.OperationNameChat)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat}
	attrs = in.provider(attrs)
	if req != nil {
		if req.Model != "" {
			name += " " + req.Model
			attrs = append(attrs, semconv.GenAIRequestModel(req.Model))
		}
		o := &req.Options
		if o.MaxTokens != nil {
			attrs = append(attrs, semconv.GenAIRequestMaxTokens(*o.MaxTokens))
		}
		if o.Temperature != nil {
			attrs = append(attrs, semconv.GenAIRequestTemperature(*o.Temperature))
		}
		if o.TopP != nil {
			attrs = append(attrs, semconv.GenAIRequestTopP(*o.TopP))
		}
		if o.Seed != nil {
			attrs = append(attrs, semconv.GenAIRequestSeed(*o.Seed))
		}
		if len(o.Stop) > 0 {
			attrs = append(attrs, semconv.GenAIRequestStopSequences(o.Stop...))
		}
		if in.cfg.content {
			attrs = append(attrs, semconv.GenAIInputMessagesKey.String(inputMessages(req.Messages)))
		}
		attrs = outputMode(attrs, req)
	}
	ctx, _ = in.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

func (in *instrumentation) afterModel(ctx context.Context, mc toolcall.ModelCall) {
	span := trace.SpanFromContext(ctx)
	// The metrics' attributes: gen_ai.operation.name and the provider,
	// request and response models, and error.type for the duration.
	metricAttrs := in.provider([]attribute.KeyValue{semconv.GenAIOperationNameChat})
	if mc.Request != nil && mc.Request.Model != "" {
		metricAttrs = append(metricAttrs, semconv.GenAIRequestModel(mc.Request.Model))
	}
	if r := mc.Response; r != nil {
		var attrs []attribute.KeyValue
		if r.Model != "" {
			attrs = append(attrs, semconv.GenAIResponseModel(r.Model))
			metricAttrs = append(metricAttrs, semconv.GenAIResponseModel(r.Model))
		}
		if r.FinishReason != "" {
			attrs = append(attrs, semconv.GenAIResponseFinishReasons(string(r.FinishReason)))
		}
		attrs = usage(attrs, r.Usage)
		if in.cfg.content {
			attrs = append(attrs, semconv.GenAIOutputMessagesKey.String(outputMessages(r.Message, r.FinishReason)))
		}
		span.SetAttributes(attrs...)
	}
	in.fail(span, mc.Err)

	if r := mc.Response; r != nil && r.Usage != (chat.Usage{}) {
		in.recordTokens(ctx, int64(r.Usage.PromptTokens), genaiconv.TokenTypeInput, metricAttrs)
		in.recordTokens(ctx, int64(r.Usage.CompletionTokens), genaiconv.TokenTypeOutput, metricAttrs)
	}
	if mc.Err != nil {
		metricAttrs = append(metricAttrs, semconv.ErrorTypeKey.String(errorType(mc.Err)))
	}
	if h := in.duration.Inst(); h != nil && h.Enabled(ctx) {
		h.Record(ctx, mc.Duration.Seconds(), metric.WithAttributeSet(attribute.NewSet(metricAttrs...)))
	}
	span.End()
}

func (in *instrumentation) recordTokens(ctx context.Context, n int64, typ genaiconv.TokenTypeAttr, attrs []attribute.KeyValue) {
	h := in.tokens.Inst()
	if h == nil || !h.Enabled(ctx) {
		return
	}
	attrs = append(attrs[:len(attrs):len(attrs)], semconv.GenAITokenTypeKey.String(string(typ)))
	h.Record(ctx, n, metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

func (in *instrumentation) beforeTool(ctx context.Context, call chat.ToolCall) context.Context {
	name := string(genaiconv.OperationNameExecuteTool)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool}
	if call.Name != "" {
		name += " " + call.Name
		attrs = append(attrs, semconv.GenAIToolName(call.Name))
	}
	if call.ID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(call.ID))
	}
	attrs = append(attrs, semconv.GenAIToolType("function"))
	if in.cfg.content {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(string(call.Arguments)))
	}
	ctx, _ = in.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx
}

func (in *instrumentation) afterTool(ctx context.Context, e toolcall.ToolExecution) {
	span := trace.SpanFromContext(ctx)
	switch {
	case e.IsError:
		err := e.Err
		if err == nil {
			err = errors.New(e.Result)
		}
		in.fail(span, err)
	case in.cfg.content:
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(e.Result))
	}
	span.End()
}

// provider appends gen_ai.provider.name to attrs when it is known.
func (in *instrumentation) provider(attrs []attribute.KeyValue) []attribute.KeyValue {
	if in.cfg.provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(in.cfg.provider))
	}
	return attrs
}

// fail marks span as failed with err, when err is not nil: status Error
// and error.type, and with content the message and an exception event.
func (in *instrumentation) fail(span trace.Span, err error) {
	if err == nil {
		return
	}
	typ := errorType(err)
	span.SetAttributes(semconv.ErrorTypeKey.String(typ))
	if !in.cfg.content {
		span.SetStatus(codes.Error, typ)
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// usage appends the token counts of u to attrs, unless u is zero: a
// provider that does not report usage leaves it so.
func usage(attrs []attribute.KeyValue, u chat.Usage) []attribute.KeyValue {
	if u == (chat.Usage{}) {
		return attrs
	}
	return append(attrs, semconv.GenAIUsageInputTokens(u.PromptTokens), semconv.GenAIUsageOutputTokens(u.CompletionTokens))
}

// errorType is the error.type of err; the package documentation lists the
// values.
func errorType(err error) string {
	var typed interface{ ErrorType() string }
	if errors.As(err, &typed) {
		if s := typed.ErrorType(); s != "" {
			return s
		}
	}
	var te *toolcall.ToolError
	isTool := errors.As(err, &te)
	if isTool && te.Panic != nil {
		return "panic"
	}
	var pe *chat.ProviderError
	if errors.As(err, &pe) && pe.StatusCode != 0 {
		return strconv.Itoa(pe.StatusCode)
	}
	var ae *toolcall.ArgumentError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, toolcall.ErrToolNotFound):
		return "tool_not_found"
	case errors.As(err, &ae):
		return "invalid_arguments"
	case errors.Is(err, toolcall.ErrMaxIterations):
		return "max_iterations"
	case errors.Is(err, toolcall.ErrReplyCut):
		return "reply_cut"
	case errors.Is(err, chat.ErrStreamStopped):
		return "stream_stopped"
	}
	if isTool && te.Err != nil {
		err = te.Err
	}
	return semconv.ErrorType(err).Value.AsString()
}

// The attributes of a typed answer (toolcall.Prompt.Answer), which the
// GenAI conventions do not name: how it was asked for, on each model
// span, and how many answers went back to the model, on the call's span.
const (
	AnswerModeKey    = attribute.Key("toolcall.answer.mode")    // "native" or "tool"
	AnswerRepairsKey = attribute.Key("toolcall.answer.repairs") // set when above 0
)

// outputMode adds to attrs how a request asks for a typed answer: natively
// (gen_ai.output.type json), or through the answer tool.
func outputMode(attrs []attribute.KeyValue, req *chat.Request) []attribute.KeyValue {
	if req.Output != nil {
		return append(attrs, semconv.GenAIOutputTypeJSON, AnswerModeKey.String(string(chat.OutputNative)))
	}
	for _, d := range req.Tools {
		if d.Name == "final_answer" {
			return append(attrs, AnswerModeKey.String(string(chat.OutputTool)))
		}
	}
	return attrs
}
