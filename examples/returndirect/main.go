// Returndirect sends tool results straight to the caller instead of back to
// the model: no second model call, and the caller gets the tool's own text.
// Use it when the result is the answer (a status lookup, a document from a
// search) and a model rewording it would only cost time and tokens.
//
// The first prompt uses a tool declared returnDirect in its tag. The model
// calls it twice in one reply; both results are the answer, in call order.
// The second prompt uses a tool that decides at run time with
// toolcall.SetReturnDirect: a canned FAQ answer goes straight back, while a
// question without one is left for the model to answer.
//
//	go run ./examples/returndirect
//
// It runs offline on a scripted model. For a real model, replace
// toolcalltest.NewModel(...) with, for example, ollama.New(ollama.Config{Model:
// "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// OrderTools looks orders up. Its result is final, so it returns directly.
type OrderTools struct {
	_ toolcall.Method `tool:"OrderStatus" name:"orderStatus" description:"Get the status of an order" returnDirect:"true"`
}

// OrderArgs are the parameters of orderStatus.
type OrderArgs struct {
	Order string `json:"order" jsonschema:"description=Order number such as A-1001"`
}

// OrderStatus returns the order's status as a sentence for the user.
func (OrderTools) OrderStatus(ctx context.Context, in OrderArgs) (string, error) {
	status := map[string]string{
		"A-1001": "shipped on 2025-05-02, arriving 2025-05-05",
		"A-1002": "being packed",
	}[in.Order]
	if status == "" {
		return "", fmt.Errorf("no order %s", in.Order)
	}
	return fmt.Sprintf("Order %s: %s.", in.Order, status), nil
}

// FAQArgs are the parameters of the faq tool.
type FAQArgs struct {
	Topic string `json:"topic" jsonschema:"description=What the question is about"`
}

// faq returns the canned answer for a topic, directly; for other topics it
// returns notes for the model to answer from.
func faq(ctx context.Context, in FAQArgs) (string, error) {
	if answer, ok := map[string]string{
		"returns": "You can return any item within 30 days; the label is on your order page.",
	}[in.Topic]; ok {
		toolcall.SetReturnDirect(ctx)
		return answer, nil
	}
	return "no FAQ entry for " + in.Topic + "; general policy: contact support@example.com", nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "returndirect:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()

	fmt.Println("== returnDirect in the tag")
	model := toolcalltest.NewModel(toolcalltest.ToolCalls(
		toolcalltest.Call("call_1", "orderStatus", `{"order":"A-1001"}`),
		toolcalltest.Call("call_2", "orderStatus", `{"order":"A-1002"}`),
	))
	client := toolcall.NewClient(model)
	resp, err := client.Prompt("Where are my orders A-1001 and A-1002?").Tools(OrderTools{}).Call(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("returned directly: %t, model requests: %d\n", resp.ReturnedDirect, len(model.Requests()))
	for i, r := range resp.DirectResults() {
		fmt.Printf("result %d: %s\n", i+1, r)
	}
	fmt.Printf("answer:\n%s\n", resp.Content())

	fmt.Println()
	fmt.Println("== returnDirect decided by the tool")
	faqTool, err := toolcall.NewFunc("faq", "Look up the shop's FAQ", faq)
	if err != nil {
		return err
	}
	model = toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "faq", `{"topic":"returns"}`)),
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "faq", `{"topic":"gift wrapping"}`)),
		toolcalltest.Text("We have no gift-wrapping FAQ; support@example.com can help."),
	)
	client = toolcall.NewClient(model, toolcall.WithTools(faqTool))
	for _, q := range []string{"How do I return a parcel?", "Do you gift-wrap?"} {
		resp, err := client.Prompt(q).Call(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("user: %s\n  returned directly: %t, model rounds: %d\n  answer: %s\n", q, resp.ReturnedDirect, resp.Rounds, resp.Content())
	}
	return nil
}
