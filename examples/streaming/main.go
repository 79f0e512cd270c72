// Streaming runs the tool-calling loop with Prompt.Stream, a range-over-func
// sequence of events: pieces of the model's text as they arrive, each tool
// call the model asks for, each tool result, and at the end the complete
// Response. The loop and its policies are those of Prompt.Call.
//
// The model starts its reply with text before its tool calls, as some
// models do; the two calls run concurrently; the answer then streams word
// by word. Breaking out of the loop early stops the model's stream and the
// tools, and leaves nothing running.
//
//	go run ./examples/streaming
//
// It runs offline on a scripted model, which streams like a real server.
// For a real model, replace scriptedModel() with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// WeatherRequest is the input of currentWeather.
type WeatherRequest struct {
	Location string `json:"location" jsonschema:"description=City name"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "streaming:", err)
		os.Exit(1)
	}
}

func run() error {
	weather, err := toolcall.NewFunc("currentWeather", "Get the weather in a location",
		func(ctx context.Context, in WeatherRequest) (string, error) {
			return map[string]string{"Paris": "30°C, sunny", "Oslo": "12°C, rain"}[in.Location], nil
		})
	if err != nil {
		return err
	}
	client := toolcall.NewClient(scriptedModel())
	stream := client.Prompt("Compare the weather in Paris and Oslo.").Tools(weather).Stream(context.Background())

	pieces, midLine := 0, false
	endLine := func() {
		if midLine {
			fmt.Println()
			midLine = false
		}
	}
	for ev, err := range stream {
		if err != nil {
			return err // ev.Response holds the conversation so far
		}
		switch ev.Kind {
		case toolcall.EventText:
			fmt.Print(ev.Text) // shown as it arrives
			pieces, midLine = pieces+1, true
		case toolcall.EventToolCall:
			endLine()
			fmt.Printf("[tool call   %s %s %s]\n", ev.ToolCall.ID, ev.ToolCall.Name, ev.ToolCall.Arguments)
		case toolcall.EventToolResult:
			endLine()
			fmt.Printf("[tool result %s %s]\n", ev.Execution.Call.ID, ev.Execution.Result)
		case toolcall.EventDone:
			endLine()
			r := ev.Response
			fmt.Printf("[done: %d text pieces, %d model rounds, %d tool calls]\n", pieces, r.Rounds, len(r.Executions))
			fmt.Println("final answer:", r.Content())
		}
	}
	return nil
}

// scriptedModel streams like a real server: text word by word, and each
// tool call in fragments that the library assembles.
func scriptedModel() chat.Model {
	return toolcalltest.NewModel(
		toolcalltest.Reply{Response: &chat.Response{
			Message: chat.AssistantMessage("Let me check both cities.",
				toolcalltest.Call("call_1", "currentWeather", `{"location":"Paris"}`),
				toolcalltest.Call("call_2", "currentWeather", `{"location":"Oslo"}`)),
			FinishReason: chat.FinishToolCalls,
		}},
		toolcalltest.Text("Paris is warm and sunny at 30°C, while Oslo is cooler at 12°C with rain."),
	)
}
