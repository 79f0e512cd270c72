// Command worker runs conversations of the temporal example: it holds the
// model, the tools and the tenant's secrets, none of which enters
// Temporal's history. The model is scripted, so the example runs offline.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/temporaltoolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

type cityIn struct {
	City string `json:"city"`
}

func main() {
	hostport := flag.String("hostport", "127.0.0.1:7233", "the Temporal frontend")
	namespace := flag.String("namespace", "default", "the Temporal namespace")
	flag.Parse()

	weather := toolcall.MustFunc("weather", "Current weather in a city",
		func(ctx context.Context, in cityIn) (string, error) {
			return "18 degrees and cloudy in " + in.City, nil
		})
	book := toolcall.MustFunc("book_table", "Book a table in a city's best restaurant",
		func(ctx context.Context, in cityIn) (string, error) {
			key, _ := toolcall.ToolContextFrom(ctx).Value("api_key").(string)
			return fmt.Sprintf("booked in %s (with a key of %d characters)", in.City, len(key)), nil
		}, toolcall.WithNeedsApproval(true))

	// The scripted model reads the conversation, so any worker can take it up.
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == chat.RoleUser:
			return &chat.Response{Message: chat.AssistantMessage("", toolcalltest.Call("w1", "weather", `{"city":"Paris"}`))}, nil
		case last.ToolCallID == "w1":
			return &chat.Response{Message: chat.AssistantMessage("", toolcalltest.Call("b1", "book_table", `{"city":"Paris"}`))}, nil
		}
		return &chat.Response{Message: chat.AssistantMessage("Done: " + last.Content), FinishReason: chat.FinishStop}, nil
	})

	c, err := client.Dial(client.Options{HostPort: *hostport, Namespace: *namespace})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, "toolcall-example", worker.Options{})
	tw := &temporaltoolcall.Worker{
		Model: model,
		Tools: []toolcall.Tool{weather, book},
		// Signs the approvals the conversation accepts, so that no other
		// workflow of the namespace can approve a booking. Every worker of
		// the task queue has the same key, from your secret store; this
		// example's is fixed, so that any worker you start takes over.
		DecisionKey: []byte("example-decision-key-use-a-secret-one"),
		// The secrets of a tenant, looked up on the worker's side.
		ToolContext: func(ctx context.Context, s temporaltoolcall.Session) (toolcall.ToolContext, error) {
			return toolcall.NewToolContext(map[string]any{"api_key": "key-of-" + s.Key}), nil
		},
	}
	if err := tw.Register(w); err != nil {
		log.Fatal(err)
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		log.Fatal(err)
	}
}
