package toolcall_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// TransferArgs are the parameters of the examples' transfer tool.
type TransferArgs struct {
	To     string `json:"to"`
	Amount int    `json:"amount" jsonschema:"minimum=1"`
}

func transferTool() toolcall.Tool {
	return toolcall.MustFunc("transfer", "Send money", func(ctx context.Context, in TransferArgs) (string, error) {
		return fmt.Sprintf("sent %d EUR to %s", in.Amount, in.To), nil
	}, toolcall.WithNeedsApproval(true))
}

func ExamplePrompt_Resume() {
	// Step 1: the call that needs approval pauses; the pause is plain data,
	// stored as JSON until someone decides.
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "transfer", `{"to":"Ana","amount":50}`)),
		toolcalltest.Text("I sent 50 EUR to Ana."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(transferTool()))
	_, err := client.Prompt("Pay Ana 50 EUR").Call(context.Background())
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		log.Fatal(err)
	}
	stored, err := json.Marshal(paused)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("waiting:", paused.Pending[0].Name, string(paused.Pending[0].Arguments))

	// Step 2, perhaps in another process: read it back and decide.
	var back toolcall.Paused
	if err := json.Unmarshal(stored, &back); err != nil {
		log.Fatal(err)
	}
	resp, err := client.Prompt().Resume(&back, map[string]toolcall.Decision{"call_1": {Allow: true}}).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Executions[0].Result)
	fmt.Println(resp.Content())
	// Output:
	// waiting: transfer {"to":"Ana","amount":50}
	// sent 50 EUR to Ana
	// I sent 50 EUR to Ana.
}

func ExampleWithSealKeys() {
	// A stored pause is input like any other: sealed with a key only the
	// program holds, any edit is refused before anything runs. A real
	// program reads its keys from a secret store.
	key := make([]byte, 32)
	rand.Read(key)
	model := toolcalltest.NewModel(toolcalltest.ToolCalls(toolcalltest.Call("call_1", "transfer", `{"to":"Ana","amount":50}`)))
	client := toolcall.NewClient(model, toolcall.WithTools(transferTool()),
		toolcall.WithSealKeys("2026-11", map[string][]byte{"2026-11": key}),
		toolcall.WithResumeClaim(toolcall.AllowReplays)) // see ExampleWithResumeClaim
	_, err := client.Prompt("Pay Ana 50 EUR").Owner("account-42").Call(context.Background())
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		log.Fatal(err)
	}
	edited := *paused
	edited.Pending = []toolcall.PendingCall{paused.Pending[0]}
	edited.Pending[0].Arguments = json.RawMessage(`{"to":"Mallory","amount":50}`)
	_, err = client.Prompt().Owner("account-42").Resume(&edited, map[string]toolcall.Decision{"call_1": {Allow: true}}).Call(context.Background())
	fmt.Println(errors.Is(err, toolcall.ErrInvalidPaused))
	_, err = client.Prompt().Owner("account-7").Resume(paused, map[string]toolcall.Decision{"call_1": {Allow: true}}).Call(context.Background())
	fmt.Println(errors.Is(err, toolcall.ErrInvalidPaused))
	// Output:
	// true
	// true
}

func ExampleWithResumeClaim() {
	// The claim is one atomic write in your store, such as an insert of the
	// pause's ID as a unique key; a map stands for it here. A stored state
	// given back twice runs its approved calls once.
	var (
		mu      sync.Mutex
		claimed = map[string]bool{}
	)
	claim := toolcall.WithResumeClaim(func(ctx context.Context, id string) error {
		mu.Lock()
		defer mu.Unlock()
		if claimed[id] {
			return toolcall.ErrAlreadyResumed
		}
		claimed[id] = true
		return nil
	})
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "transfer", `{"to":"Ana","amount":50}`)),
		toolcalltest.Text("Done."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(transferTool()), claim)
	_, err := client.Prompt("Pay Ana 50 EUR").Call(context.Background())
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		log.Fatal(err)
	}
	stored, _ := json.Marshal(paused)
	for range 2 {
		var p toolcall.Paused
		if err := json.Unmarshal(stored, &p); err != nil {
			log.Fatal(err)
		}
		resp, err := client.Prompt().Resume(&p, map[string]toolcall.Decision{"call_1": {Allow: true}}).Call(context.Background())
		switch {
		case errors.Is(err, toolcall.ErrAlreadyResumed):
			fmt.Println("resumed before: nothing ran")
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(resp.Executions[0].Result)
		}
	}
	// Output:
	// sent 50 EUR to Ana
	// resumed before: nothing ran
}

func ExamplePause() {
	// A long-running tool pauses its call until the work is done elsewhere;
	// the call is then resumed with its final result, and the tool does not
	// run again.
	reimburse := toolcall.MustFunc("reimburse", "Reimburse an expense", func(ctx context.Context, in struct {
		Amount int `json:"amount"`
	}) (string, error) {
		return "", toolcall.Pause(fmt.Sprintf("ticket T-1: a manager must approve %d EUR", in.Amount))
	})
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "reimburse", `{"amount":450}`)),
		toolcalltest.Text("Your 450 EUR were approved."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(reimburse))
	_, err := client.Prompt("Reimburse my hotel").Call(context.Background())
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		log.Fatal(err)
	}
	fmt.Println("waiting:", paused.Pending[0].Reason)
	// Later, when the manager approved ticket T-1:
	resp, err := client.Prompt().Resume(paused, map[string]toolcall.Decision{
		"call_1": {Result: `{"status":"approved","ticket":"T-1"}`},
	}).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Executions[0].Result)
	fmt.Println(resp.Content())
	// Output:
	// waiting: ticket T-1: a manager must approve 450 EUR
	// {"status":"approved","ticket":"T-1"}
	// Your 450 EUR were approved.
}

func ExampleSetState() {
	// A tool writes the session state; later tools of the call read it
	// from their ToolContext, and the Response carries it to the next call.
	remember := toolcall.MustFunc("rememberCity", "Remember the user's city", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		toolcall.SetState(ctx, "city", in.City)
		return "remembered", nil
	})
	weather := toolcall.MustFunc("weather", "Weather in the user's city", func(ctx context.Context, _ struct{}) (string, error) {
		city, _ := toolcall.ToolContextFrom(ctx).Value("city").(string)
		return "sunny in " + city, nil
	})
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "rememberCity", `{"city":"Lyon"}`)),
		toolcalltest.ToolCalls(toolcalltest.Call("call_2", "weather", `{}`)),
		toolcalltest.Text("It is sunny in Lyon."),
		toolcalltest.ToolCalls(toolcalltest.Call("call_3", "weather", `{}`)),
		toolcalltest.Text("Still sunny in Lyon."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(remember, weather))
	resp, err := client.Prompt("I live in Lyon. How is the weather?").Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Executions[1].Result, resp.State)
	// The next call starts from the state.
	resp, err = client.Prompt("And now?").State(resp.State).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Executions[0].Result)
	// Output:
	// sunny in Lyon map[city:Lyon]
	// sunny in Lyon
}

func ExampleEventKind() {
	fmt.Println(toolcall.EventText, toolcall.EventToolCall, toolcall.EventToolResult, toolcall.EventDone)
	// Output:
	// EventText EventToolCall EventToolResult EventDone
}

func ExamplePrompt_Answer() {
	// The final answer as data: checked against the schema of Order's type,
	// then decoded into it. The model gives it by calling final_answer.
	type Order struct {
		Item string `json:"item"`
		Qty  int    `json:"qty" jsonschema:"minimum=1,maximum=10"`
	}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "final_answer", `{"item":"shirt","qty":20}`)), // breaks maximum
		toolcalltest.ToolCalls(toolcalltest.Call("call_2", "final_answer", `{"item":"shirt","qty":2}`)),
	)
	var order Order
	resp, err := toolcall.NewClient(model).Prompt("Order two shirts").Answer(&order).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v after %d repair\n", order, resp.Repairs)
	// Output:
	// {Item:shirt Qty:2} after 1 repair
}
