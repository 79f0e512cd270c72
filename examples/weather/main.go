// Weather turns a plain Go function into a tool with toolcall.NewFunc; its
// parameters are the fields of the input struct, and the temperature unit
// is an enum the model must respect. It is the WeatherService example of
// Spring AI's tool-calling guide (a FunctionToolCallback there).
//
// The model asks for two cities in one reply; the two calls run
// concurrently and their results go back in the model's order.
//
//	go run ./examples/weather
//
// It runs offline on a scripted model. For a real model, replace
// scriptedModel() with, for example, openai.New(openai.Config{Model:
// "gpt-4o-mini"}) from package providers/openai.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// Unit is a temperature unit.
type Unit string

// The units the tool accepts; the jsonschema tag on WeatherRequest.Unit
// lists them for the model.
const (
	Celsius    Unit = "C"
	Fahrenheit Unit = "F"
)

// WeatherRequest is the tool's input. Both fields are required (no
// omitempty); a unit other than C or F is refused before the function
// runs, and the model is told why.
type WeatherRequest struct {
	Location string `json:"location" jsonschema:"description=City name"`
	Unit     Unit   `json:"unit" jsonschema:"enum=C,enum=F,description=Temperature unit"`
}

// WeatherResponse is the tool's result, sent to the model as JSON.
type WeatherResponse struct {
	Temp float64 `json:"temp"`
	Unit Unit    `json:"unit"`
}

// currentWeather stands in for a weather service.
func currentWeather(ctx context.Context, in WeatherRequest) (WeatherResponse, error) {
	celsius := map[string]float64{"Paris": 30, "New York": 22}[in.Location]
	if in.Unit == Fahrenheit {
		return WeatherResponse{Temp: celsius*9/5 + 32, Unit: Fahrenheit}, nil
	}
	return WeatherResponse{Temp: celsius, Unit: Celsius}, nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "weather:", err)
		os.Exit(1)
	}
}

func run() error {
	weather, err := toolcall.NewFunc("currentWeather", "Get the weather in location", currentWeather)
	if err != nil {
		return err
	}
	var schema bytes.Buffer
	if err := json.Indent(&schema, weather.Definition().InputSchema, "", "  "); err != nil {
		return err
	}
	fmt.Println("input schema of currentWeather:")
	fmt.Println(schema.String())
	fmt.Println()

	client := toolcall.NewClient(scriptedModel())
	question := "What's the weather like in Paris, in Celsius, and in New York, in Fahrenheit?"
	fmt.Println("user:", question)
	resp, err := client.Prompt().User(question).Tools(weather).Call(context.Background())
	if err != nil {
		return err
	}
	for _, e := range resp.Executions {
		fmt.Printf("tool %s %s -> %s\n", e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println("answer:", resp.Content())
	return nil
}

// scriptedModel plays a model that asks for both cities at once, then
// answers.
func scriptedModel() chat.Model {
	return toolcalltest.NewModel(
		toolcalltest.ToolCalls(
			toolcalltest.Call("call_1", "currentWeather", `{"location":"Paris","unit":"C"}`),
			toolcalltest.Call("call_2", "currentWeather", `{"location":"New York","unit":"F"}`),
		),
		toolcalltest.Text("It is 30°C in Paris and 71.6°F in New York."),
	)
}
