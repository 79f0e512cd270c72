// Customer passes the caller's tenant id to a tool through the ToolContext:
// the tool reads it, the model never sees it. It is the CustomerTools
// example of Spring AI's tool-calling guide.
//
// The default tenant rides on the context, as an HTTP middleware would put
// it there for each request; one call overrides it with Prompt.ToolContext
// (the prompt's values win, key by key). The same question then reaches a
// different tenant's data. At the end the program checks every request the
// model received: neither the key nor the tenant ids are in them, and the
// tool's schema has only the customer id.
//
//	go run ./examples/customer
//
// It runs offline on a scripted model, which records what a provider would
// have sent. For a real model, replace scriptedModel() with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package providers/ollama.
package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// A Customer is a record of one tenant.
type Customer struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// CustomerTools looks customers up in the caller's tenant.
type CustomerTools struct {
	_ toolcall.Method `tool:"CustomerInfo" name:"getCustomerInfo" description:"Retrieve customer information by id"`

	// Customers holds each tenant's customers by id.
	Customers map[string]map[int64]Customer
}

// CustomerArgs are what the model provides: only the customer id.
type CustomerArgs struct {
	ID int64 `json:"id" jsonschema:"description=Customer id"`
}

// CustomerInfo returns a customer of the tenant named in the ToolContext.
// The ToolContext parameter is not part of the tool's schema; a call
// without one gets an empty ToolContext.
func (c CustomerTools) CustomerInfo(ctx context.Context, in CustomerArgs, tc toolcall.ToolContext) (Customer, error) {
	tenant, _ := tc.Value("tenantId").(string)
	cust, ok := c.Customers[tenant][in.ID]
	if !ok {
		return Customer{}, fmt.Errorf("no customer %d", in.ID)
	}
	return cust, nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "customer:", err)
		os.Exit(1)
	}
}

func run() error {
	tools := CustomerTools{Customers: map[string]map[int64]Customer{
		"acme":   {42: {ID: 42, Name: "Ada Lovelace", Email: "ada@example.com"}},
		"globex": {42: {ID: 42, Name: "Grace Hopper", Email: "grace@example.org"}},
	}}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "getCustomerInfo", `{"id":42}`)),
		toolcalltest.Text("Customer 42 is Ada Lovelace (ada@example.com)."),
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "getCustomerInfo", `{"id":42}`)),
		toolcalltest.Text("Customer 42 is Grace Hopper (grace@example.org)."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(tools))
	// The tool context belongs to a request, not to the client: every call
	// made with this ctx carries the default tenant.
	ctx := toolcall.ContextWithToolContext(context.Background(),
		toolcall.NewToolContext(map[string]any{"tenantId": "acme"}))
	question := "Tell me more about the customer with ID 42"

	fmt.Println("call 1, default tool context (tenantId=acme)")
	resp, err := client.Prompt(question).Call(ctx)
	if err != nil {
		return err
	}
	report(resp)

	fmt.Println("call 2, this call's tool context (tenantId=globex)")
	resp, err = client.Prompt(question).ToolContext(map[string]any{"tenantId": "globex"}).Call(ctx)
	if err != nil {
		return err
	}
	report(resp)

	// What the model received: the OpenAI-style JSON of every request.
	fmt.Println("schema of getCustomerInfo:", string(model.Requests()[0].Tools[0].InputSchema))
	for _, secret := range []string{"tenantId", "acme", "globex"} {
		found := false
		for _, body := range model.RequestBodies() {
			found = found || bytes.Contains(body, []byte(secret))
		}
		fmt.Printf("%q in any request sent to the model: %t\n", secret, found)
	}
	return nil
}

func report(resp *toolcall.Response) {
	for _, e := range resp.Executions {
		fmt.Printf("  tool %s %s -> %s\n", e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println("  answer:", resp.Content())
}
