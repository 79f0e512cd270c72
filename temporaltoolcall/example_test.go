package temporaltoolcall_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/temporaltoolcall"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// These examples need a Temporal server, so they are compiled, not run:
// see examples/temporal for a program that starts a test server.

// A worker process holds the model, the tools and the secrets; none of
// them enters Temporal's history.
func ExampleWorker() {
	var model chat.Model // e.g. openai.New(openai.Config{Model: "gpt-4o-mini"})
	transfer := toolcall.MustFunc("transfer", "Send money", func(ctx context.Context, in struct {
		To     string `json:"to"`
		Amount int    `json:"amount"`
	}) (string, error) {
		key, _ := toolcall.ToolContextFrom(ctx).Value("bank_key").(string)
		return fmt.Sprintf("sent %d EUR to %s (key of %d bytes)", in.Amount, in.To, len(key)), nil
	}, toolcall.WithNeedsApproval(true))

	c, err := client.Dial(client.Options{}) // the codec setup of the package documentation goes here
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, "conversations", worker.Options{})
	tw := &temporaltoolcall.Worker{
		Model: model,
		Tools: []toolcall.Tool{transfer},
		// The same on every worker of the task queue, from a secret store.
		DecisionKey: []byte(os.Getenv("DECISION_KEY")),
		ToolContext: func(ctx context.Context, s temporaltoolcall.Session) (toolcall.ToolContext, error) {
			return toolcall.NewToolContext(map[string]any{"bank_key": os.Getenv("BANK_KEY_" + s.Key)}), nil
		},
	}
	if err := tw.Register(w); err != nil {
		log.Fatal(err)
	}
	if err := w.Run(worker.InterruptCh()); err != nil {
		log.Fatal(err)
	}
}

// Any process starts a conversation, decides the calls that wait, and
// waits for the answer.
func ExampleResult() {
	ctx := context.Background()
	c, err := client.Dial(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "conversation-42", TaskQueue: "conversations"},
		temporaltoolcall.WorkflowName, temporaltoolcall.Input{
			Messages: []chat.Message{chat.UserMessage("Pay Ana 50 EUR")},
			Key:      "tenant-7", // selects the tenant's secrets on the worker
		})
	if err != nil {
		log.Fatal(err)
	}
	// The transfer waits for approval; a person decides, perhaps days later.
	pending, err := temporaltoolcall.Pending(ctx, c, run.GetID(), run.GetRunID())
	if err != nil {
		log.Fatal(err)
	}
	decisions := map[string]toolcall.Decision{}
	for _, p := range pending {
		decisions[p.ID] = toolcall.Decision{Allow: true}
	}
	if err := temporaltoolcall.Decide(ctx, c, run.GetID(), run.GetRunID(), decisions); err != nil {
		log.Fatal(err)
	}
	resp, err := temporaltoolcall.Result(ctx, run) // a *toolcall.Response, as Prompt.Call's
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Content())
}

// A conversation can end with its answer as data: the schema of a Go type
// in Input.Output, and Answer to decode the answer that passed it.
func ExampleAnswer() {
	type Order struct {
		Item string `json:"item"`
		Qty  int    `json:"qty" jsonschema:"minimum=1,maximum=10"`
	}
	ctx := context.Background()
	c, err := client.Dial(client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	schema, err := toolcall.SchemaFor(Order{})
	if err != nil {
		log.Fatal(err)
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "conversations"},
		temporaltoolcall.WorkflowName, temporaltoolcall.Input{
			Messages: []chat.Message{chat.UserMessage("Two teas, please")},
			Output:   &chat.OutputFormat{Schema: schema},
		})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := temporaltoolcall.Result(ctx, run)
	var refused *toolcall.AnswerError
	if errors.As(err, &refused) {
		log.Fatalf("no valid answer after %d repairs: %s", refused.Repairs, refused.Raw)
	}
	if err != nil {
		log.Fatal(err)
	}
	var o Order
	if err := temporaltoolcall.Answer(resp, &o); err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.Qty, o.Item)
}
