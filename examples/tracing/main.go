// Tracing traces a tool-calling loop with OpenTelemetry through package
// oteltoolcall, and prints the spans and metrics it recorded.
//
// It runs offline, on the scripted model of package toolcalltest, and
// keeps what it records in the OpenTelemetry SDK's in-memory span exporter
// and manual metric reader; a real program would send them to an exporter
// such as OTLP or stdouttrace instead. The model asks for the weather in
// two cities, which the tool looks up at the same time, and for a flight
// whose lookup fails; then it answers. The spans form a tree: the call,
// its two model rounds and three tool calls, and the weather tool's own
// span inside its tool call's.
//
//	go run ./examples/tracing            # messages, arguments and results left out
//	go run ./examples/tracing -content   # recorded too (oteltoolcall.WithContent)
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/oteltoolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// WeatherRequest is the input of the currentWeather tool.
type WeatherRequest struct {
	City string `json:"city" jsonschema:"description=City name such as Paris"`
}

// FlightRequest is the input of the flightStatus tool.
type FlightRequest struct {
	Flight string `json:"flight" jsonschema:"description=Flight number such as AF1234"`
}

// currentWeather is a tool with work of its own to trace: the span it
// starts is a child of its tool call's span, since ctx carries that span.
func currentWeather(ctx context.Context, in WeatherRequest) (string, error) {
	_, span := otel.Tracer("example/weather").Start(ctx, "weather service lookup")
	defer span.End()
	span.SetAttributes(attribute.String("weather.city", in.City))
	switch in.City {
	case "Paris":
		return "30°C, sunny", nil
	case "Oslo":
		return "12°C, rain", nil
	}
	return "", fmt.Errorf("no weather for %s", in.City)
}

func flightStatus(ctx context.Context, in FlightRequest) (string, error) {
	return "", errors.New("no flight " + in.Flight + " today")
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tracing:", err)
		os.Exit(1)
	}
}

func run() error {
	content := flag.Bool("content", false, "also record messages, tool arguments and results (oteltoolcall.WithContent)")
	flag.Parse()
	ctx := context.Background()

	// The OpenTelemetry SDK, keeping what it records in memory. The
	// global providers are set so that the tool's own spans, started with
	// otel.Tracer, go to the same place.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(ctx)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)

	opts := []oteltoolcall.Option{oteltoolcall.WithAgentName("weather assistant")}
	if *content {
		opts = append(opts, oteltoolcall.WithContent())
	}

	withModel := func(r toolcalltest.Reply) toolcalltest.Reply {
		r.Response.Model = "gpt-4o-mini-2024-07-18"
		return r
	}
	model := toolcalltest.NewModel(
		withModel(toolcalltest.ToolCalls(
			toolcalltest.Call("call_1", "currentWeather", `{"city":"Paris"}`),
			toolcalltest.Call("call_2", "currentWeather", `{"city":"Oslo"}`),
			toolcalltest.Call("call_3", "flightStatus", `{"flight":"XY999"}`),
		)),
		withModel(toolcalltest.Text("Paris: 30°C and sunny; Oslo: 12°C with rain. I found no flight XY999 today.")),
	)
	client := toolcall.NewClient(model, toolcall.WithHooks(oteltoolcall.Hooks(opts...)))
	resp, err := client.Prompt("Weather in Paris and Oslo, and is flight XY999 on time?").
		Model("gpt-4o-mini").
		Tools(
			toolcall.MustFunc("currentWeather", "Current weather in a city", currentWeather),
			toolcall.MustFunc("flightStatus", "Status of a flight today", flightStatus),
		).
		Call(ctx)
	if err != nil {
		return err
	}
	fmt.Println("answer:", resp.Content())
	fmt.Println()
	fmt.Println("spans:")
	printTree(spans.GetSpans())
	fmt.Println()
	fmt.Println("metrics:")
	return printMetrics(ctx, reader)
}

// printTree prints the spans as a tree, each with its kind, status and
// attributes. Siblings come in the order they started, except that tool
// calls that ran at once come in the order of their call ids, so that the
// output is the same on every run; times are left out for the same reason.
func printTree(spans tracetest.SpanStubs) {
	children := map[string][]tracetest.SpanStub{} // by parent span id; "" for roots
	for _, s := range spans {
		parent := ""
		if s.Parent.IsValid() {
			parent = s.Parent.SpanID().String()
		}
		children[parent] = append(children[parent], s)
	}
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := children[parent]
		slices.SortStableFunc(kids, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
		for i := 0; i < len(kids); { // each run of tool calls, between model rounds, by call id
			j := i
			for j < len(kids) && isTool(kids[j]) {
				j++
			}
			slices.SortStableFunc(kids[i:j], func(a, b tracetest.SpanStub) int { return cmp.Compare(callID(a), callID(b)) })
			i = max(j, i+1)
		}
		for _, s := range kids {
			indent := strings.Repeat("    ", depth)
			line := fmt.Sprintf("%s%s [%s]", indent, s.Name, s.SpanKind)
			if s.Status.Code == codes.Error {
				line += " ERROR " + s.Status.Description
			}
			fmt.Println(line)
			attrs := slices.Clone(s.Attributes)
			slices.SortFunc(attrs, func(a, b attribute.KeyValue) int { return cmp.Compare(a.Key, b.Key) })
			for _, kv := range attrs {
				fmt.Printf("%s    %s = %s\n", indent, kv.Key, kv.Value.String())
			}
			for _, e := range s.Events {
				fmt.Printf("%s    event %s\n", indent, e.Name)
			}
			walk(s.SpanContext.SpanID().String(), depth+1)
		}
	}
	walk("", 0)
}

func isTool(s tracetest.SpanStub) bool { return strings.HasPrefix(s.Name, "execute_tool") }

func callID(s tracetest.SpanStub) string {
	for _, kv := range s.Attributes {
		if kv.Key == "gen_ai.tool.call.id" {
			return kv.Value.AsString()
		}
	}
	return ""
}

// printMetrics prints the histograms' counts and sums; the durations'
// sums vary from run to run and are left out.
func printMetrics(ctx context.Context, reader *sdkmetric.ManualReader) error {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return err
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[int64]:
				for _, dp := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s {%s}: %d values, sum %d %s", m.Name, attrList(dp.Attributes), dp.Count, dp.Sum, m.Unit))
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("%s {%s}: %d values", m.Name, attrList(dp.Attributes), dp.Count))
				}
			}
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println("  " + l)
	}
	return nil
}

// attrList renders a metric's attributes, sorted by key as a set is.
func attrList(set attribute.Set) string {
	var parts []string
	for _, kv := range set.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	return strings.Join(parts, ", ")
}
