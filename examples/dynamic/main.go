// Dynamic chooses the tools for each request from the request itself, with
// a toolcall.Toolset (LangChain4j's ToolProvider). Here the booking tool is
// offered only when the user talks about a booking, which keeps prompts
// small and tools out of reach when they are not relevant.
//
// The toolset is asked before every model request of a call, so it can
// also react to what happened in earlier rounds.
//
//	go run ./examples/dynamic
//
// It runs offline on a scripted model. For a real model, replace
// toolcalltest.NewModel(...) with, for example, ollama.New(ollama.Config{Model:
// "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// BookingRequest is the input of getBookingDetails.
type BookingRequest struct {
	Number string `json:"number" jsonschema:"description=Booking number such as B-77"`
}

// Booking is a booking's details.
type Booking struct {
	Number string `json:"number"`
	Hotel  string `json:"hotel"`
	Nights int    `json:"nights"`
}

// bookingToolset offers its tool only to conversations about a booking.
type bookingToolset struct{ booking toolcall.Tool }

// Tools is called before each model request; it reads only its own fields
// and req, so it is safe for concurrent use, as a Toolset must be.
func (ts bookingToolset) Tools(ctx context.Context, req *chat.Request) ([]toolcall.Tool, error) {
	for _, m := range req.Messages {
		if m.Role == chat.RoleUser && strings.Contains(strings.ToLower(m.Content), "booking") {
			return []toolcall.Tool{ts.booking}, nil
		}
	}
	return nil, nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "dynamic:", err)
		os.Exit(1)
	}
}

func run() error {
	booking, err := toolcall.NewFunc("getBookingDetails", "Get the details of a booking",
		func(ctx context.Context, in BookingRequest) (Booking, error) {
			return Booking{Number: in.Number, Hotel: "Hôtel du Lac", Nights: 3}, nil
		})
	if err != nil {
		return err
	}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "getBookingDetails", `{"number":"B-77"}`)),
		toolcalltest.Text("Booking B-77 is 3 nights at Hôtel du Lac."),
		toolcalltest.Text("Hello! How can I help you?"),
	)
	client := toolcall.NewClient(model, toolcall.WithToolset(bookingToolset{booking}))
	for _, q := range []string{"What are the details of booking B-77?", "Hello there"} {
		before := len(model.Requests())
		resp, err := client.Prompt(q).Call(context.Background())
		if err != nil {
			return err
		}
		fmt.Println("user:", q)
		fmt.Println("  tools offered:", offered(model.Requests()[before]))
		for _, e := range resp.Executions {
			fmt.Printf("  tool %s %s -> %s\n", e.Call.Name, e.Call.Arguments, e.Result)
		}
		fmt.Println("  answer:", resp.Content())
	}
	return nil
}

// offered returns the names of the tools a request offered.
func offered(req *chat.Request) string {
	if len(req.Tools) == 0 {
		return "(none)"
	}
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}
