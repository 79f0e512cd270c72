// Structured asks for the model's final answer as data: an Order, decoded
// from JSON that passed the schema of its type, after the tools ran.
//
// The model looks up the sizes in stock with a tool, then answers by
// calling final_answer, the tool Prompt.Answer offers beside the prompt's.
// Its first answer asks for 20 shirts, more than the schema's maximum of
// 10: it goes back to the model with what was wrong, and the second one
// decodes. A caller never gets a value that broke its schema.
//
//	go run ./examples/structured
//
// It runs offline on a scripted model. For a real model, replace the
// toolcalltest.NewModel(...) call with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// An Order is the answer asked for. Its tags make the schema the model
// must follow, as they do for tool arguments.
type Order struct {
	Item string `json:"item" jsonschema:"description=What to order"`
	Qty  int    `json:"qty" jsonschema:"minimum=1,maximum=10"`
	Size string `json:"size" jsonschema:"enum=S,enum=M,enum=L,description=A size in stock"`
}

func main() {
	stock := toolcall.MustFunc("stock", "The sizes in stock", func(ctx context.Context, _ struct{}) (string, error) {
		return "M and L", nil
	})
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "stock", `{}`)),
		toolcalltest.ToolCalls(toolcalltest.Call("call_2", "final_answer", `{"item":"shirt","qty":20,"size":"M"}`)),
		toolcalltest.ToolCalls(toolcalltest.Call("call_3", "final_answer", `{"item":"shirt","qty":10,"size":"M"}`)),
	)
	var order Order
	resp, err := toolcall.NewClient(model, toolcall.WithTools(stock)).
		Prompt("Order 20 shirts in a size in stock.").
		Answer(&order).
		Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range resp.Executions {
		fmt.Printf("%s %s -> %s\n", e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Printf("order: %+v\n", order)
	fmt.Printf("repairs: %d, model requests: %d\n", resp.Repairs, len(model.Requests()))
}
