package oteltoolcall_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/oteltoolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

func ExampleHooks() {
	// An SDK that keeps the spans in memory; a program would export them.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	weather := toolcall.MustFunc("currentWeather", "Current weather in a city",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "30°C, sunny", nil
		})
	model := tt.NewModel(tt.ToolCalls(tt.Call("call_1", "currentWeather", `{"city":"Paris"}`)), tt.Text("It is sunny."))
	client := toolcall.NewClient(model, toolcall.WithHooks(oteltoolcall.Hooks(
		oteltoolcall.WithTracerProvider(tp),
		oteltoolcall.WithProviderName("openai"),
	)))
	if _, err := client.Prompt("Weather in Paris?").Model("gpt-4o-mini").Tools(weather).Call(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	// Spans are exported as they end: the call's span last.
	for _, s := range spans.GetSpans() {
		fmt.Printf("%s (%s)\n", s.Name, s.SpanKind)
	}
	// Output:
	// chat gpt-4o-mini (client)
	// execute_tool currentWeather (internal)
	// chat gpt-4o-mini (client)
	// invoke_agent (internal)
}
