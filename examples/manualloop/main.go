// Manualloop drives the model<->tool loop itself, with a toolcall.Manager
// executing the tool calls: Spring AI's "user-controlled tool execution"
// (internalToolExecutionEnabled = false). Use it to log, approve, persist or
// rewrite each step; a toolcall.Client runs this same loop for you.
//
// Each round sends the request to the model; if the reply asks for tools,
// Manager.Execute runs them (validating arguments, applying the error
// policy) and returns the conversation with one tool message per call,
// ready to send back.
//
//	go run ./examples/manualloop
//
// It runs offline on a scripted model. For a real model, replace
// scriptedModel() with, for example, ollama.New(ollama.Config{Model:
// "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// Calculator's methods are tools with plain parameters; Go cannot see
// parameter names, so the params tag gives them.
type Calculator struct {
	_ toolcall.Method `tool:"Sum" name:"sum" description:"Add two numbers" params:"a: first addend; b: second addend"`
	_ toolcall.Method `tool:"SquareRoot" name:"squareRoot" description:"Square root of a number" params:"x: a number >= 0"`
}

// Sum returns a+b.
func (Calculator) Sum(a, b float64) float64 { return a + b }

// SquareRoot returns the square root of x.
func (Calculator) SquareRoot(x float64) (float64, error) {
	if x < 0 {
		return 0, errors.New("x must not be negative")
	}
	return math.Sqrt(x), nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "manualloop:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	model := scriptedModel()

	tools, err := toolcall.ToolsFrom(Calculator{})
	if err != nil {
		return err
	}
	manager := toolcall.NewManager()
	defs, err := manager.Definitions(tools)
	if err != nil {
		return err
	}
	req := &chat.Request{
		Messages: []chat.Message{chat.UserMessage("What is the square root of 16, plus 2.5?")},
		Tools:    defs,
	}
	fmt.Println("user:", req.Messages[0].Content)

	const maxRounds = 5
	for round := 1; ; round++ {
		resp, err := model.Chat(ctx, req)
		if err != nil {
			return err
		}
		if !resp.HasToolCalls() {
			fmt.Printf("round %d: answer: %s\n", round, resp.Message.Content)
			req.Messages = append(req.Messages, resp.Message)
			break
		}
		if round == maxRounds {
			return fmt.Errorf("still calling tools after %d rounds", maxRounds)
		}
		for _, c := range resp.Message.ToolCalls {
			fmt.Printf("round %d: model asks for %s %s\n", round, c.Name, c.Arguments)
		}
		out, err := manager.Execute(ctx, tools, req, resp)
		if err != nil {
			return err // the policy aborted; out.History is still valid to resend
		}
		for _, e := range out.Executions {
			fmt.Printf("round %d: %s returned %s\n", round, e.Call.Name, e.Result)
		}
		if out.ReturnedDirect {
			fmt.Println("the tools returned directly; no further model call")
			break
		}
		req.Messages = out.History
	}
	fmt.Printf("conversation: %d messages\n", len(req.Messages))
	return nil
}

// scriptedModel plays a model that works in two steps, then answers.
func scriptedModel() chat.Model {
	return toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "squareRoot", `{"x":16}`)),
		toolcalltest.ToolCalls(toolcalltest.Call("call_2", "sum", `{"a":4,"b":2.5}`)),
		toolcalltest.Text("The square root of 16 is 4; plus 2.5 makes 6.5."),
	)
}
