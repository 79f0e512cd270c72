// Errors shows what happens when tool calls go wrong.
//
// Part 1: the model sends an argument that breaks the tool's schema (a unit
// outside the enum), and in the same reply calls a tool that fails. Neither
// stops the call: each failure goes back to the model as the tool result,
// marked as an error, and the model corrects its arguments in the next
// round. The schema check runs before the tool, so the weather function
// never sees the bad unit.
//
// Part 2: a tool returns an error wrapping toolcall.ErrFatal, which ends
// the call instead. The caller gets a *toolcall.ToolError, and the
// response still holds the conversation so far, valid to send again.
// toolcall.WithToolErrorHandler can make any other failure fatal, or
// change the text the model receives.
//
//	go run ./examples/errors
//
// It runs offline on a scripted model. For a real model, replace the
// toolcalltest.NewModel(...) calls with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// WeatherRequest is the input of currentWeather; unit must be C or F.
type WeatherRequest struct {
	Location string `json:"location" jsonschema:"description=City name"`
	Unit     string `json:"unit" jsonschema:"enum=C,enum=F"`
}

// FlightRequest is the input of flightStatus.
type FlightRequest struct {
	Flight string `json:"flight" jsonschema:"description=Flight number such as AF1234,pattern=^[A-Z0-9]{2}[0-9]+$"`
}

// PaymentRequest is the input of chargeCard.
type PaymentRequest struct {
	AmountCents int `json:"amount_cents" jsonschema:"minimum=1"`
}

// The tools. MustFunc suits package-level variables: a mistake in a
// tool's definition panics at start-up, not in the middle of a call.
var (
	weather = toolcall.MustFunc("currentWeather", "Get the weather in a location",
		func(ctx context.Context, in WeatherRequest) (string, error) {
			return "30°" + in.Unit + " and sunny in " + in.Location, nil
		})
	flight = toolcall.MustFunc("flightStatus", "Get the status of a flight today",
		func(ctx context.Context, in FlightRequest) (string, error) {
			if in.Flight != "AF1234" {
				return "", fmt.Errorf("no flight %s today", in.Flight)
			}
			return "AF1234 is on time", nil
		})
	// chargeCard has no result: Out is struct{}, and on success the model
	// would get "Success".
	charge = toolcall.MustFunc("chargeCard", "Charge the user's card",
		func(ctx context.Context, in PaymentRequest) (struct{}, error) {
			return struct{}{}, fmt.Errorf("payment service unavailable: %w", toolcall.ErrFatal)
		})
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "errors:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	fmt.Println("== part 1: failures go back to the model")
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(
			toolcalltest.Call("call_1", "currentWeather", `{"location":"Paris","unit":"celsius"}`),
			toolcalltest.Call("call_2", "flightStatus", `{"flight":"XY999"}`),
		),
		toolcalltest.ToolCalls(toolcalltest.Call("call_3", "currentWeather", `{"location":"Paris","unit":"C"}`)),
		toolcalltest.Text("It is 30°C and sunny in Paris. I could not find flight XY999 today."),
	)
	resp, err := toolcall.NewClient(model).
		Prompt("Weather in Paris in celsius, and is my flight XY999 on time?").
		Tools(weather, flight).
		Call(ctx)
	if err != nil {
		return err
	}
	for _, e := range resp.Executions {
		status := "ok   "
		if e.IsError {
			status = "ERROR"
		}
		fmt.Printf("round %d %s %s %s\n  -> %s\n", e.Round, status, e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println("answer:", resp.Content())

	fmt.Println()
	fmt.Println("== part 2: a fatal error ends the call")
	model = toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "chargeCard", `{"amount_cents":1999}`)),
	)
	resp, err = toolcall.NewClient(model).Prompt("Pay my invoice of 19.99 EUR.").Tools(charge).Call(ctx)
	var te *toolcall.ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("want a *toolcall.ToolError, got %v", err)
	}
	fmt.Println("error:", err)
	fmt.Printf("tool %s, call %s, fatal: %t\n", te.Name, te.CallID, errors.Is(err, toolcall.ErrFatal))
	fmt.Println("conversation so far:")
	for _, m := range resp.History {
		switch {
		case len(m.ToolCalls) > 0:
			fmt.Printf("  %-9s asks for %s\n", m.Role, m.ToolCalls[0].Name)
		default:
			fmt.Printf("  %-9s %s\n", m.Role, m.Content)
		}
	}
	return nil
}
