// Byname registers tools once, in a toolcall.Registry, and offers them per
// call by name: Prompt().ToolNames("currentWeather"), as Spring AI's
// toolNames does with its ToolCallbackResolver. Only the named tools are
// sent to the model, and only they can run.
//
// A client has one registry, filled by as many Register calls as there are
// sources of tools: here the application's tools, then a built-in one. A
// name registered twice is an error at Register, and a name the registry
// does not know is an error before the model is asked.
//
//	go run ./examples/byname
//
// It runs offline on a scripted model. For a real model, replace
// toolcalltest.NewModel(...) with, for example, ollama.New(ollama.Config{Model:
// "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// WeatherRequest is the input of currentWeather.
type WeatherRequest struct {
	Location string `json:"location" jsonschema:"description=City name"`
}

// TimeRequest is the input of currentTime.
type TimeRequest struct {
	Zone string `json:"zone" jsonschema:"description=IANA time zone such as Europe/Paris"`
}

// EchoRequest is the input of echo.
type EchoRequest struct {
	Text string `json:"text"`
}

// The tools. MustFunc suits package-level variables: a mistake in a
// tool's definition panics at start-up, not in the middle of a call.
var (
	weather = toolcall.MustFunc("currentWeather", "Get the weather in a location",
		func(ctx context.Context, in WeatherRequest) (string, error) {
			return "30°C and sunny in " + in.Location, nil
		})
	clock = toolcall.MustFunc("currentTime", "Get the time in a time zone",
		func(ctx context.Context, in TimeRequest) (string, error) {
			return "10:00 in " + in.Zone, nil
		})
	echo = toolcall.MustFunc("echo", "Repeat a text",
		func(ctx context.Context, in EchoRequest) (string, error) { return in.Text, nil })
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "byname:", err)
		os.Exit(1)
	}
}

func run() error {
	var registry toolcall.Registry // the zero value is ready to use
	if err := registry.Register(weather, clock); err != nil {
		return err
	}
	fmt.Println("registered:", strings.Join(registry.Names(), ", "))
	// Built-ins go into the same registry: Prompt.ToolNames looks in one
	// place only, and a clash with an application tool fails here.
	if err := registry.Register(echo); err != nil {
		return err
	}
	fmt.Println("registered built-ins:", echo.Definition().Name)

	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "currentWeather", `{"location":"Paris"}`)),
		toolcalltest.Text("It is 30°C and sunny in Paris."),
		toolcalltest.Text("Hello! How can I help you?"),
	)
	client := toolcall.NewClient(model, toolcall.WithRegistry(&registry))
	ctx := context.Background()

	fmt.Println(`call 1: ToolNames("currentWeather")`)
	resp, err := client.Prompt("What's the weather in Paris?").ToolNames("currentWeather").Call(ctx)
	if err != nil {
		return err
	}
	fmt.Println("  offered to the model:", offered(model.Requests()[0]))
	for _, e := range resp.Executions {
		fmt.Printf("  tool %s %s -> %s\n", e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println("  answer:", resp.Content())

	fmt.Println(`call 2: ToolNames("currentTime", "echo"), echo from the built-ins`)
	resp, err = client.Prompt("Hello").ToolNames("currentTime", "echo").Call(ctx)
	if err != nil {
		return err
	}
	fmt.Println("  offered to the model:", offered(model.Requests()[2]))
	fmt.Println("  answer:", resp.Content())

	fmt.Println(`call 3: ToolNames("stockPrice")`)
	before := len(model.Requests())
	_, err = client.Prompt("How is ACME doing?").ToolNames("stockPrice").Call(ctx)
	fmt.Println("  error:", err)
	fmt.Println("  is ErrToolNotFound:", errors.Is(err, toolcall.ErrToolNotFound))
	fmt.Println("  model asked:", len(model.Requests()) > before)
	return nil
}

// offered returns the names of the tools a request offered.
func offered(req *chat.Request) string {
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}
