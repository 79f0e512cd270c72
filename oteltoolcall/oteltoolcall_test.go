package oteltoolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/oteltoolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rig is an OpenTelemetry SDK that keeps what it is given: spans in an
// in-memory exporter, metrics in a manual reader.
type rig struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		assert.NoError(t, r.tp.Shutdown(context.Background()))
		assert.NoError(t, r.mp.Shutdown(context.Background()))
	})
	return r
}

// hooks returns the package's hooks, sending to r.
func (r *rig) hooks(opts ...oteltoolcall.Option) toolcall.Hooks {
	return oteltoolcall.Hooks(append([]oteltoolcall.Option{
		oteltoolcall.WithTracerProvider(r.tp), oteltoolcall.WithMeterProvider(r.mp)}, opts...)...)
}

// ended returns the spans ended so far, in order of their start.
func (r *rig) ended() tracetest.SpanStubs {
	spans := r.spans.GetSpans()
	slices.SortStableFunc(spans, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	return spans
}

// metrics collects the metrics of the package's scope, by name.
func (r *rig) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != "github.com/toolcall-go/toolcall/oteltoolcall" {
			continue
		}
		assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", sm.Scope.SchemaURL)
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// attrs returns kvs as a map, for comparing with testify.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// named returns the spans called name, in order of their start.
func named(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// assertChild checks that child's parent is parent, in parent's trace.
func assertChild(t *testing.T, parent, child tracetest.SpanStub) {
	t.Helper()
	assert.Equal(t, parent.SpanContext.TraceID(), child.SpanContext.TraceID(), "%s is in the trace of %s", child.Name, parent.Name)
	assert.Equal(t, parent.SpanContext.SpanID(), child.Parent.SpanID(), "%s is a child of %s", child.Name, parent.Name)
}

// withModel sets the model name a scripted reply reports.
func withModel(r tt.Reply, model string) tt.Reply {
	resp := *r.Response
	resp.Model = model
	r.Response = &resp
	return r
}

// quotaError is a tool's error of a type of its own, for error.type.
type quotaError struct{ msg string }

func (e *quotaError) Error() string { return e.msg }

type lookupIn struct {
	Key string `json:"key"`
}

// barrier returns a func that each of n goroutines calls, and that returns
// once all n have called it, or fails after ten seconds: it proves that n
// calls run at once.
func barrier(n int) func() error {
	var wg sync.WaitGroup
	wg.Add(n)
	return func() error {
		wg.Done()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the calls did not run at once")
		}
	}
}

// A two-round loop: round 1 asks for two lookups, which run at once, and a
// call of a tool that fails; round 2 answers. Every span, its parent, kind,
// attributes and status are as the conventions say, and the tools' own
// spans are children of their execute_tool spans.
func TestSpansOfTwoRoundLoop(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	tracer := r.tp.Tracer("tools")
	meet := barrier(2)
	lookup := toolcall.MustFunc("lookup", "Looks a key up", func(ctx context.Context, in lookupIn) (string, error) {
		_, span := tracer.Start(ctx, "lookup "+in.Key)
		defer span.End()
		if err := meet(); err != nil {
			return "", err
		}
		return "value of " + in.Key, nil
	})
	broken := toolcall.MustFunc("broken", "Always fails", func(ctx context.Context, _ struct{}) (string, error) {
		_, span := tracer.Start(ctx, "broken work")
		defer span.End()
		return "", &quotaError{"quota exceeded"}
	})
	model := tt.NewModel(
		withModel(tt.ToolCalls(tt.Call("1", "lookup", `{"key":"x"}`), tt.Call("2", "lookup", `{"key":"y"}`), tt.Call("3", "broken", `{}`)), "gpt-test-0613"),
		withModel(tt.Text("done"), "gpt-test-0613"),
	)
	client := toolcall.NewClient(model, toolcall.WithHooks(r.hooks(oteltoolcall.WithProviderName("openai"))))
	resp, err := client.Prompt("look x and y up").Model("gpt-test").Tools(lookup, broken).Call(context.Background())
	require.NoError(t, err)
	require.Equal(t, "done", resp.Content())
	require.Len(t, resp.Executions, 3)
	require.False(t, resp.Executions[0].IsError, resp.Executions[0].Result)
	require.False(t, resp.Executions[1].IsError, resp.Executions[1].Result)
	require.True(t, resp.Executions[2].IsError)

	spans := r.ended()
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	assert.ElementsMatch(t, []string{"invoke_agent", "chat gpt-test", "chat gpt-test",
		"execute_tool lookup", "execute_tool lookup", "execute_tool broken",
		"lookup x", "lookup y", "broken work"}, names)
	require.Len(t, spans, 9)

	call := named(spans, "invoke_agent")[0]
	assert.False(t, call.Parent.IsValid(), "the call's span is a root")
	assert.Equal(t, trace.SpanKindInternal, call.SpanKind)
	assert.Equal(t, map[string]any{
		"gen_ai.operation.name":      "invoke_agent",
		"gen_ai.provider.name":       "openai",
		"gen_ai.request.model":       "gpt-test",
		"gen_ai.usage.input_tokens":  int64(20),
		"gen_ai.usage.output_tokens": int64(10),
	}, attrs(call.Attributes))
	assert.Equal(t, codes.Unset, call.Status.Code)
	assert.Equal(t, "github.com/toolcall-go/toolcall/oteltoolcall", call.InstrumentationScope.Name)
	assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", call.InstrumentationScope.SchemaURL)

	rounds := named(spans, "chat gpt-test")
	require.Len(t, rounds, 2)
	for i, finish := range []string{"tool_calls", "stop"} {
		s := rounds[i]
		assertChild(t, call, s)
		assert.Equal(t, trace.SpanKindClient, s.SpanKind)
		assert.Equal(t, map[string]any{
			"gen_ai.operation.name":          "chat",
			"gen_ai.provider.name":           "openai",
			"gen_ai.request.model":           "gpt-test",
			"gen_ai.response.model":          "gpt-test-0613",
			"gen_ai.response.finish_reasons": []string{finish},
			"gen_ai.usage.input_tokens":      int64(10),
			"gen_ai.usage.output_tokens":     int64(5),
		}, attrs(s.Attributes), "round %d", i+1)
		assert.Equal(t, codes.Unset, s.Status.Code)
	}
	assert.True(t, rounds[0].EndTime.Before(rounds[1].StartTime) || rounds[0].EndTime.Equal(rounds[1].StartTime))

	tools := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "execute_tool ") {
			id := attrs(s.Attributes)["gen_ai.tool.call.id"].(string)
			tools[id] = s
			assertChild(t, call, s)
			assert.Equal(t, trace.SpanKindInternal, s.SpanKind)
			assert.True(t, rounds[0].EndTime.Compare(s.StartTime) <= 0 && s.EndTime.Compare(rounds[1].StartTime) <= 0,
				"tool call %s runs between the rounds", id)
		}
	}
	require.Len(t, tools, 3)
	for _, id := range []string{"1", "2"} {
		assert.Equal(t, map[string]any{
			"gen_ai.operation.name": "execute_tool",
			"gen_ai.tool.name":      "lookup",
			"gen_ai.tool.call.id":   id,
			"gen_ai.tool.type":      "function",
		}, attrs(tools[id].Attributes), "call %s", id)
		assert.Equal(t, codes.Unset, tools[id].Status.Code)
	}
	assert.Equal(t, map[string]any{
		"gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name":      "broken",
		"gen_ai.tool.call.id":   "3",
		"gen_ai.tool.type":      "function",
		"error.type":            "*oteltoolcall_test.quotaError",
	}, attrs(tools["3"].Attributes))
	assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "*oteltoolcall_test.quotaError"}, tools["3"].Status)

	assertChild(t, tools["1"], named(spans, "lookup x")[0])
	assertChild(t, tools["2"], named(spans, "lookup y")[0])
	assertChild(t, tools["3"], named(spans, "broken work")[0])
	for _, s := range spans {
		assert.Empty(t, s.Events, "span %s has no events", s.Name)
		assert.Empty(t, s.Links, "span %s has no links", s.Name)
	}
}

// Eight tool calls run at once, one of them failing: each gets its own
// execute_tool span, a child of the call's, and each tool's work is a
// child of its own execute_tool span; only the failing call's span fails.
func TestEightConcurrentToolCalls(t *testing.T) {
	t.Parallel()
	const n = 8
	r := newRig(t)
	tracer := r.tp.Tracer("tools")
	meet := barrier(n)
	work := toolcall.MustFunc("work", "Works", func(ctx context.Context, in struct {
		I int `json:"i"`
	}) (string, error) {
		_, span := tracer.Start(ctx, "work "+strconv.Itoa(in.I))
		defer span.End()
		if err := meet(); err != nil {
			return "", err
		}
		if in.I == 5 {
			return "", errors.New("work 5 failed")
		}
		return "ok", nil
	})
	calls := make([]chat.ToolCall, n)
	for i := range calls {
		calls[i] = tt.Call("c"+strconv.Itoa(i), "work", `{"i":`+strconv.Itoa(i)+`}`)
	}
	client := toolcall.NewClient(tt.NewModel(tt.ToolCalls(calls...), tt.Text("done")), toolcall.WithHooks(r.hooks()))
	resp, err := client.Prompt("go").Tools(work).Call(context.Background())
	require.NoError(t, err)
	for i, e := range resp.Executions {
		require.Equal(t, i == 5, e.IsError, e.Result)
	}

	spans := r.ended()
	require.Len(t, spans, 1+2+2*n, "one call, two rounds, and per tool call an execute_tool and a work span")
	call := named(spans, "invoke_agent")[0]
	rounds := named(spans, "chat")
	require.Len(t, rounds, 2)
	for _, s := range rounds {
		assertChild(t, call, s)
		assert.NotContains(t, attrs(s.Attributes), "gen_ai.request.model", "no model was asked for")
		assert.NotContains(t, attrs(s.Attributes), "gen_ai.provider.name", "no provider was given")
	}
	tools := map[string]tracetest.SpanStub{}
	for _, s := range named(spans, "execute_tool work") {
		assertChild(t, call, s)
		tools[attrs(s.Attributes)["gen_ai.tool.call.id"].(string)] = s
	}
	require.Len(t, tools, n)
	for i := range n {
		tool := tools["c"+strconv.Itoa(i)]
		assertChild(t, tool, named(spans, "work "+strconv.Itoa(i))[0])
		if i == 5 {
			assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "*errors.errorString"}, tool.Status)
			assert.Equal(t, "*errors.errorString", attrs(tool.Attributes)["error.type"])
			continue
		}
		assert.Equal(t, codes.Unset, tool.Status.Code, "call %d", i)
		assert.NotContains(t, attrs(tool.Attributes), "error.type", "call %d", i)
	}
}

// The calls that never reach the tool are spans too, with the error.type
// of their failure: a tool that was not offered, arguments the schema
// refuses, and a tool that panics.
func TestToolFailureErrorTypes(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	lookup := toolcall.MustFunc("lookup", "Looks a key up", func(ctx context.Context, in lookupIn) (string, error) {
		return "value", nil
	})
	panics := toolcall.MustFunc("panics", "Panics", func(ctx context.Context, _ struct{}) (string, error) {
		panic("oops")
	})
	model := tt.NewModel(tt.ToolCalls(
		tt.Call("nf", "nope", `{}`),
		tt.Call("bad", "lookup", `{"key":1}`),
		tt.Call("p", "panics", `{}`),
	), tt.Text("done"))
	client := toolcall.NewClient(model, toolcall.WithHooks(r.hooks()))
	_, err := client.Prompt("go").Tools(lookup, panics).Call(context.Background())
	require.NoError(t, err)

	want := map[string]string{"nf": "tool_not_found", "bad": "invalid_arguments", "p": "panic"}
	got := map[string]string{}
	for _, s := range r.ended() {
		a := attrs(s.Attributes)
		if a["gen_ai.operation.name"] != "execute_tool" {
			continue
		}
		id := a["gen_ai.tool.call.id"].(string)
		got[id], _ = a["error.type"].(string)
		assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: want[id]}, s.Status, "call %s", id)
	}
	assert.Equal(t, want, got)
	assert.Len(t, named(r.ended(), "execute_tool nope"), 1)
}

// Each model round records its duration and token usage, with the
// conventions' names, units, attributes and bucket boundaries.
func TestMetrics(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	lookup := toolcall.MustFunc("lookup", "Looks a key up", func(ctx context.Context, in lookupIn) (string, error) {
		return "value", nil
	})
	model := tt.NewModel(
		withModel(tt.ToolCalls(tt.Call("1", "lookup", `{"key":"x"}`)), "gpt-test-0613"),
		withModel(tt.Text("done"), "gpt-test-0613"),
	)
	client := toolcall.NewClient(model, toolcall.WithHooks(r.hooks(oteltoolcall.WithProviderName("openai"))))
	_, err := client.Prompt("go").Model("gpt-test").Tools(lookup).Call(context.Background())
	require.NoError(t, err)

	metrics := r.metrics(t)
	require.Len(t, metrics, 2)
	base := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", "openai"),
		attribute.String("gen_ai.request.model", "gpt-test"),
		attribute.String("gen_ai.response.model", "gpt-test-0613"),
	}
	tokenBounds := []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	counts := func(bucket int) []uint64 { // two values, both in bucket
		c := make([]uint64, len(tokenBounds)+1)
		c[bucket] = 2
		return c
	}
	metricdatatest.AssertEqual(t, metricdata.Metrics{
		Name:        "gen_ai.client.token.usage",
		Description: "Number of input and output tokens used.",
		Unit:        "{token}",
		Data: metricdata.Histogram[int64]{
			Temporality: metricdata.CumulativeTemporality,
			DataPoints: []metricdata.HistogramDataPoint[int64]{
				{
					Attributes: attribute.NewSet(append(base, attribute.String("gen_ai.token.type", "input"))...),
					Count:      2, Sum: 20, Bounds: tokenBounds, BucketCounts: counts(2),
					Min: metricdata.NewExtrema[int64](10), Max: metricdata.NewExtrema[int64](10),
				},
				{
					Attributes: attribute.NewSet(append(base, attribute.String("gen_ai.token.type", "output"))...),
					Count:      2, Sum: 10, Bounds: tokenBounds, BucketCounts: counts(2),
					Min: metricdata.NewExtrema[int64](5), Max: metricdata.NewExtrema[int64](5),
				},
			},
		},
	}, metrics["gen_ai.client.token.usage"], metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())

	duration := metrics["gen_ai.client.operation.duration"]
	assert.Equal(t, "s", duration.Unit)
	assert.Equal(t, "GenAI operation duration.", duration.Description)
	hist, ok := duration.Data.(metricdata.Histogram[float64])
	require.True(t, ok, "%T", duration.Data)
	require.Len(t, hist.DataPoints, 1)
	dp := hist.DataPoints[0]
	assert.Equal(t, attribute.NewSet(base...), dp.Attributes)
	assert.Equal(t, uint64(2), dp.Count, "one per model round")
	assert.Equal(t, []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}, dp.Bounds)
}

// A failed model round fails its span and the call's, with the HTTP status
// as error.type, and records its duration with error.type and no tokens.
func TestModelError(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	failure := &chat.ProviderError{Provider: "openai", StatusCode: 429, Err: chat.ErrRateLimited, Message: "slow down"}
	client := toolcall.NewClient(tt.NewModel(tt.Fail(failure)), toolcall.WithHooks(r.hooks()))
	_, err := client.Prompt("go").Call(context.Background())
	require.ErrorIs(t, err, chat.ErrRateLimited)

	spans := r.ended()
	require.Len(t, spans, 2)
	call, round := spans[0], spans[1]
	assert.Equal(t, "invoke_agent", call.Name)
	assert.Equal(t, "chat", round.Name)
	assertChild(t, call, round)
	for _, s := range spans {
		assert.Equal(t, "429", attrs(s.Attributes)["error.type"], s.Name)
		assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "429"}, s.Status, s.Name)
		assert.NotContains(t, attrs(s.Attributes), "gen_ai.usage.input_tokens", s.Name)
		assert.Empty(t, s.Events, s.Name)
	}

	metrics := r.metrics(t)
	assert.NotContains(t, metrics, "gen_ai.client.token.usage")
	hist := metrics["gen_ai.client.operation.duration"].Data.(metricdata.Histogram[float64])
	require.Len(t, hist.DataPoints, 1)
	assert.Equal(t, attribute.NewSet(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("error.type", "429"),
	), hist.DataPoints[0].Attributes)
}

// A Manager on its own makes an execute_tool span per call, a child of the
// span its context carries.
func TestManagerAlone(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	lookup := toolcall.MustFunc("lookup", "Looks a key up", func(ctx context.Context, in lookupIn) (string, error) {
		return "value", nil
	})
	m := toolcall.NewManager(toolcall.WithHooks(r.hooks()))
	ctx, parent := r.tp.Tracer("app").Start(context.Background(), "my loop")
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("go")}}
	_, err := m.Execute(ctx, []toolcall.Tool{lookup}, req, tt.ToolCalls(tt.Call("1", "lookup", `{"key":"x"}`)).Response)
	require.NoError(t, err)
	parent.End()

	spans := r.ended()
	require.Len(t, spans, 2)
	assert.Equal(t, "my loop", spans[0].Name)
	assert.Equal(t, "execute_tool lookup", spans[1].Name)
	assertChild(t, spans[0], spans[1])
	assert.Empty(t, r.metrics(t), "no model round, no metrics")
}

// A streamed call is traced as Call is.
func TestStream(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	lookup := toolcall.MustFunc("lookup", "Looks a key up", func(ctx context.Context, in lookupIn) (string, error) {
		return "value", nil
	})
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "lookup", `{"key":"x"}`)), tt.Text("all done"))
	client := toolcall.NewClient(model, toolcall.WithHooks(r.hooks(oteltoolcall.WithAgentName("Helper"))))
	for _, err := range client.Prompt("go").Tools(lookup).Stream(context.Background()) {
		require.NoError(t, err)
	}
	spans := r.ended()
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"invoke_agent Helper", "chat", "execute_tool lookup", "chat"}, names)
	assert.Equal(t, "Helper", attrs(spans[0].Attributes)["gen_ai.agent.name"])
	for _, s := range spans[1:] {
		assertChild(t, spans[0], s)
	}
}

// The texts of sensitiveLoop, each to be found only with WithContent.
var secrets = []string{"SYSTEM-SECRET-1", "USER-SECRET-2", "ARG-SECRET-3", "RESULT-SECRET-4", "ERROR-SECRET-5", "ANSWER-SECRET-6", "ASSISTANT-SECRET-7", "THOUGHT-SECRET-8"}

// sensitiveLoop runs a two-round loop whose system and user messages, tool
// arguments, tool result, tool error and answers each hold one of secrets.
func sensitiveLoop(t *testing.T, hooks toolcall.Hooks) {
	t.Helper()
	lookup := toolcall.MustFunc("lookup", "Looks a key up", func(ctx context.Context, in lookupIn) (string, error) {
		return "RESULT-SECRET-4", nil
	})
	broken := toolcall.MustFunc("broken", "Always fails", func(ctx context.Context, _ struct{}) (string, error) {
		return "", &quotaError{"ERROR-SECRET-5"}
	})
	first := tt.ToolCalls(tt.Call("1", "lookup", `{"key":"ARG-SECRET-3"}`), tt.Call("2", "broken", `{}`))
	first.Response.Message.Content = "ASSISTANT-SECRET-7"
	first.Response.Message.Reasoning = "THOUGHT-SECRET-8"
	client := toolcall.NewClient(tt.NewModel(first, tt.Text("ANSWER-SECRET-6")), toolcall.WithHooks(hooks))
	resp, err := client.Prompt("USER-SECRET-2").System("SYSTEM-SECRET-1").Tools(lookup, broken).Call(context.Background())
	require.NoError(t, err)
	require.Equal(t, "ANSWER-SECRET-6", resp.Content())
}

// everything returns every text the spans and metrics hold, each with
// where it is.
func everything(t *testing.T, r *rig) map[string]string {
	t.Helper()
	texts := map[string]string{}
	add := func(where string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			texts[where+" attribute "+string(kv.Key)] = string(kv.Key) + "=" + kv.Value.String()
		}
	}
	for _, s := range r.ended() {
		texts[s.Name+" name"] = s.Name
		texts[s.Name+" status"] = s.Status.Description
		add(s.Name, s.Attributes)
		add(s.Name+" resource", s.Resource.Attributes())
		for i, e := range s.Events {
			texts[fmt.Sprintf("%s event %d", s.Name, i)] = e.Name
			add(fmt.Sprintf("%s event %d %s", s.Name, i, e.Name), e.Attributes)
		}
		for i, l := range s.Links {
			add(fmt.Sprintf("%s link %d", s.Name, i), l.Attributes)
		}
	}
	for name, m := range r.metrics(t) {
		switch d := m.Data.(type) {
		case metricdata.Histogram[int64]:
			for _, dp := range d.DataPoints {
				add(name, dp.Attributes.ToSlice())
			}
		case metricdata.Histogram[float64]:
			for _, dp := range d.DataPoints {
				add(name, dp.Attributes.ToSlice())
			}
		default:
			t.Fatalf("metric %s of unexpected type %T", name, m.Data)
		}
	}
	return texts
}

// Without WithContent no argument, result, message text or error message
// is in any span name, attribute, event, link or status, nor in a metric.
func TestNoContentByDefault(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	sensitiveLoop(t, r.hooks())
	texts := everything(t, r)
	require.NotEmpty(t, texts)
	for where, text := range texts {
		for _, secret := range secrets {
			assert.NotContains(t, text, secret, "%s", where)
		}
	}
	for _, s := range r.ended() {
		assert.Empty(t, s.Events, s.Name)
		for _, kv := range s.Attributes {
			assert.NotContains(t, []attribute.Key{"gen_ai.input.messages", "gen_ai.output.messages",
				"gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}, kv.Key, s.Name)
		}
	}
}

// With WithContent the messages, arguments, results and error messages are
// recorded where the conventions put them, messages in their JSON schema.
func TestContentOptIn(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	sensitiveLoop(t, r.hooks(oteltoolcall.WithContent()))
	texts := everything(t, r)
	for _, secret := range secrets {
		found := false
		for _, text := range texts {
			found = found || strings.Contains(text, secret)
		}
		assert.True(t, found, "%s is recorded", secret)
	}

	spans := r.ended()
	require.Len(t, spans, 5)
	call, round1, round2 := named(spans, "invoke_agent")[0], named(spans, "chat")[0], named(spans, "chat")[1]
	lookup, broken := named(spans, "execute_tool lookup")[0], named(spans, "execute_tool broken")[0]

	system := `{"role":"system","parts":[{"type":"text","content":"SYSTEM-SECRET-1"}]}`
	user := `{"role":"user","parts":[{"type":"text","content":"USER-SECRET-2"}]}`
	assistant := `{"role":"assistant","parts":[{"type":"reasoning","content":"THOUGHT-SECRET-8"},{"type":"text","content":"ASSISTANT-SECRET-7"},` +
		`{"type":"tool_call","id":"1","name":"lookup","arguments":{"key":"ARG-SECRET-3"}},{"type":"tool_call","id":"2","name":"broken","arguments":{}}]`
	answer := `[{"role":"assistant","parts":[{"type":"text","content":"ANSWER-SECRET-6"}],"finish_reason":"stop"}]`
	assertJSON := func(want string, s tracetest.SpanStub, key string) {
		t.Helper()
		got, ok := attrs(s.Attributes)[key].(string)
		require.True(t, ok, "%s has %s", s.Name, key)
		require.True(t, json.Valid([]byte(got)), got)
		assert.JSONEq(t, want, got, "%s %s", s.Name, key)
	}
	assertJSON("["+system+","+user+"]", call, "gen_ai.input.messages")
	assertJSON(answer, call, "gen_ai.output.messages")
	assertJSON("["+system+","+user+"]", round1, "gen_ai.input.messages")
	assertJSON("["+assistant+`,"finish_reason":"tool_calls"}]`, round1, "gen_ai.output.messages")
	assertJSON("["+system+","+user+","+assistant+"},"+
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"1","response":"RESULT-SECRET-4"}]},`+
		`{"role":"tool","parts":[{"type":"tool_call_response","id":"2","response":"ERROR-SECRET-5"}]}]`, round2, "gen_ai.input.messages")
	assertJSON(answer, round2, "gen_ai.output.messages")

	assert.Equal(t, `{"key":"ARG-SECRET-3"}`, attrs(lookup.Attributes)["gen_ai.tool.call.arguments"])
	assert.Equal(t, "RESULT-SECRET-4", attrs(lookup.Attributes)["gen_ai.tool.call.result"])
	assert.Equal(t, "{}", attrs(broken.Attributes)["gen_ai.tool.call.arguments"])
	assert.NotContains(t, attrs(broken.Attributes), "gen_ai.tool.call.result", "a failed call has no result")
	assert.Equal(t, "*oteltoolcall_test.quotaError", attrs(broken.Attributes)["error.type"])
	assert.Equal(t, codes.Error, broken.Status.Code)
	assert.Contains(t, broken.Status.Description, "ERROR-SECRET-5")
	require.Len(t, broken.Events, 1)
	assert.Equal(t, "exception", broken.Events[0].Name)
	assert.Contains(t, attrs(broken.Events[0].Attributes)["exception.message"], "ERROR-SECRET-5")
}

// Hooks with no options use the global providers, which do nothing until
// set: a call runs as without them.
func TestGlobalProviders(t *testing.T) {
	t.Parallel()
	client := toolcall.NewClient(tt.NewModel(tt.Text("done")), toolcall.WithHooks(oteltoolcall.Hooks(nil, oteltoolcall.WithTracerProvider(nil))))
	resp, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
}
