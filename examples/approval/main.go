// Approval has a person decide the tool calls that move money before they
// run.
//
// Part 1: the transfer tool is tagged approval:"true" (a func tool takes
// toolcall.WithNeedsApproval(true)), and the client has no approver, so its
// calls never run on their own. The model asks for the balance and three
// transfers in one reply: the balance runs, the transfers wait, and the
// Call ends with a *toolcall.Paused, an error that is also the state to
// continue from. The clients seal it (toolcall.WithSealKeys) with a key
// only the program holds, for the account it belongs to (Prompt.Owner), so
// that whoever can write where it is stored cannot change what runs or
// resume it for another account: an edited copy is refused. Each resume
// claims the state's ID in a store (toolcall.WithResumeClaim), so that a
// second resume of the same stored state runs nothing. The program stores
// it as JSON, as a web server would until the account holder answers,
// reads it back, and resumes in a fresh Client, as another process would,
// with one toolcall.Decision per call: approve
// one, deny one with a reason the model is told, and approve one with a
// lower amount (edited arguments are checked against the schema again).
// Nothing runs twice, and the model is asked again only when every call has
// its decision. The model server is down for the first request after the
// transfers ran: the claimed state cannot run again, and the Response
// returned with the error holds the history and state to go on from.
//
// Part 2: a live approver (toolcall.WithApprover) decides each call as it
// comes: it allows tools that change nothing (Metadata.ReadOnly), refuses
// what a viewer may not do, and makes the rest wait for the account holder,
// who resumes the call.
//
//	go run ./examples/approval
//
// It runs offline on scripted models. For a real model, replace the
// toolcalltest.NewModel(...) calls with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package providers/ollama.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// Bank is the user's account. getBalance changes nothing; transfer moves
// money and needs approval: its calls wait for a decision.
type Bank struct {
	_ toolcall.Method `tool:"Balance" name:"getBalance" description:"Get the balance of the user's account"`
	_ toolcall.Method `tool:"Transfer" name:"transfer" description:"Send money from the user's account to a payee" approval:"true"`

	mu      sync.Mutex
	balance int
	sent    []string
}

// TransferArgs are the parameters of transfer.
type TransferArgs struct {
	To     string `json:"to" jsonschema:"description=Payee name"`
	Amount int    `json:"amount" jsonschema:"description=Amount in euros,minimum=1,maximum=5000"`
}

// Balance returns the balance.
func (b *Bank) Balance(ctx context.Context) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return fmt.Sprintf("%d EUR", b.balance)
}

// Transfer sends money. It runs only for calls that were approved.
func (b *Bank) Transfer(ctx context.Context, in TransferArgs) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if in.Amount > b.balance {
		return "", fmt.Errorf("only %d EUR in the account", b.balance)
	}
	b.balance -= in.Amount
	b.sent = append(b.sent, fmt.Sprintf("%d EUR to %s", in.Amount, in.To))
	return fmt.Sprintf("sent %d EUR to %s", in.Amount, in.To), nil
}

// Sent lists the transfers made so far.
func (b *Bank) Sent() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.sent) == 0 {
		return "none"
	}
	return strings.Join(b.sent, ", ")
}

// readOnly marks a tool as one that changes nothing. Tools bridged from an
// MCP server carry this hint from the server's annotations; a tool of your
// own says so through a wrapper that keeps the rest of its Metadata.
type readOnly struct{ toolcall.Tool }

func (t readOnly) Metadata() toolcall.Metadata {
	md := t.Tool.Metadata()
	md.ReadOnly = true
	return md
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "approval:", err)
		os.Exit(1)
	}
}

// sealing seals paused state under the key id "2026-11". A real program
// reads its keys from a secret store, the same in every process, and keeps
// the old ones there while states sealed with them may come back.
var sealing = toolcall.WithSealKeys("2026-11", map[string][]byte{"2026-11": newKey()})

// claims stands for a table of the program's database with the pause ID as
// a unique key: the claim is one insert, which fails for an ID claimed
// before, whichever process tried first.
var claims = toolcall.WithResumeClaim(func(ctx context.Context, id string) error {
	claimedMu.Lock()
	defer claimedMu.Unlock()
	if claimed[id] {
		return toolcall.ErrAlreadyResumed
	}
	claimed[id] = true
	return nil
})

var (
	claimedMu sync.Mutex
	claimed   = map[string]bool{}
)

// account owns the conversation: the seal binds its paused state to it.
const account = "account-42"

func newKey() []byte {
	key := make([]byte, 32)
	rand.Read(key) // never fails
	return key
}

func run() error {
	bank := &Bank{balance: 1000}
	tools, err := toolcall.ToolsFrom(bank)
	if err != nil {
		return err
	}
	stored, err := pauseAndStore(tools)
	if err != nil {
		return err
	}
	if err := resumeElsewhere(tools, stored); err != nil {
		return err
	}
	fmt.Println("transfers made:", bank.Sent())
	fmt.Println()
	return liveApprover(bank)
}

// pauseAndStore runs the prompt until the transfers wait, and returns the
// *Paused as JSON.
func pauseAndStore(tools []toolcall.Tool) ([]byte, error) {
	fmt.Println("== Part 1: the transfers wait; another process decides")
	model := toolcalltest.NewModel(toolcalltest.ToolCalls(
		toolcalltest.Call("call_1", "getBalance", `{}`),
		toolcalltest.Call("call_2", "transfer", `{"to":"Ana","amount":50}`),
		toolcalltest.Call("call_3", "transfer", `{"to":"Bo","amount":900}`),
		toolcalltest.Call("call_4", "transfer", `{"to":"Cy","amount":300}`),
	))
	client := toolcall.NewClient(model, toolcall.WithTools(tools), sealing, claims)
	question := "Pay Ana 50 EUR, Bo 900 EUR and Cy 300 EUR, and tell me my balance."
	fmt.Println("user:", question)
	resp, err := client.Prompt(question).Owner(account).Call(context.Background())
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		return nil, fmt.Errorf("expected the call to pause, got %v", err)
	}
	fmt.Println("call ended:", err)
	report(resp.Executions) // the calls that ran: those that need no approval
	for _, pc := range paused.Pending {
		fmt.Printf("  waiting: %s %s %s (%s)\n", pc.ID, pc.Name, pc.Arguments, pc.Reason)
	}
	fmt.Printf("model requests so far: %d\n", len(model.Requests()))

	// Paused is plain data. It holds the conversation up to the reply, the
	// calls that ran and those that wait; no tool context, no tools.
	stored, err := json.Marshal(paused)
	if err != nil {
		return nil, err
	}
	fmt.Printf("stored as JSON: %d pending, %d done, %d messages of history, round %d\n",
		len(paused.Pending), len(paused.Done), len(paused.History), paused.Round)
	pending, err := json.Marshal(paused.Pending)
	if err != nil {
		return nil, err
	}
	fmt.Println("  pending:", string(pending))
	return stored, nil
}

// resumeElsewhere reads the stored state back and resumes it with a fresh
// client and model, as another process would.
func resumeElsewhere(tools []toolcall.Tool, stored []byte) error {
	var paused toolcall.Paused
	if err := json.Unmarshal(stored, &paused); err != nil {
		return err
	}
	// The account holder's answers, say from a web form. Decisions are JSON
	// too.
	decisions := map[string]toolcall.Decision{
		"call_2": {Allow: true},
		"call_3": {Deny: "Bo is not a known payee"},
		"call_4": {Allow: true, Arguments: json.RawMessage(`{"to":"Cy","amount":200}`)},
	}
	form, err := json.Marshal(decisions)
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Println("another process, a fresh client; decisions:", string(form))

	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_5", "getBalance", `{}`)),
		toolcalltest.Text("I sent 50 EUR to Ana and 200 EUR to Cy, as you lowered that transfer. "+
			"I did not pay Bo: Bo is not a known payee. Your balance is now 750 EUR."),
	)
	// The model server is down for the first request after the transfers.
	client := toolcall.NewClient(&downOnce{Model: model}, toolcall.WithTools(tools), sealing, claims)

	// Someone with write access to the store raises Ana's amount: the seal
	// no longer matches, and nothing runs.
	edited := paused
	edited.Pending = slices.Clone(paused.Pending)
	edited.Pending[0].Arguments = json.RawMessage(`{"to":"Ana","amount":5000}`)
	_, err = client.Prompt().Owner(account).Resume(&edited, decisions).Call(context.Background())
	fmt.Println("an edited copy:", err)
	// The same state given for another account is refused too.
	_, err = client.Prompt().Owner("account-7").Resume(&paused, decisions).Call(context.Background())
	fmt.Println("for another account:", err)

	resp, err := client.Prompt().Owner(account).Resume(&paused, decisions).Call(context.Background())
	if err != nil {
		// The approved transfers ran, and the state is claimed: the
		// Response holds their results, to go on from without running
		// them again.
		fmt.Println("the resumed call failed after its transfers:", err)
		report(resp.Executions, paused.Done...)
		resp, err = client.Prompt().Messages(resp.History...).State(resp.State).Call(context.Background())
		if err != nil {
			return err
		}
	}
	// The stored JSON given back once more, say by a form sent twice: the
	// claim refuses it, and nothing runs again.
	var again toolcall.Paused
	if err := json.Unmarshal(stored, &again); err != nil {
		return err
	}
	_, err = client.Prompt().Owner(account).Resume(&again, decisions).Call(context.Background())
	fmt.Println("the stored state resumed again:", errors.Is(err, toolcall.ErrAlreadyResumed))
	report(resp.Executions, paused.Done...)
	fmt.Println("answer:", resp.Content())
	fmt.Printf("model requests of the resumed call: %d\n", len(model.Requests()))
	// The history keeps the model's own call; the result tells what ran.
	for _, m := range model.Requests()[0].Messages {
		for _, c := range m.ToolCalls {
			if c.ID == "call_4" {
				fmt.Printf("the model was sent its own call_4 %s", c.Arguments)
			}
		}
		if m.ToolCallID == "call_4" {
			fmt.Printf(" with the result %q\n", m.Content)
		}
	}
	return toolcalltest.CheckHistory(resp.History)
}

// downOnce fails its first request, as a model server down for a moment.
type downOnce struct {
	chat.Model
	failed bool
}

func (d *downOnce) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	if !d.failed {
		d.failed = true
		return nil, errors.New("model server unavailable")
	}
	return d.Model.Chat(ctx, req)
}

// liveApprover decides each call as it comes.
func liveApprover(bank *Bank) error {
	fmt.Println("== Part 2: a live approver")
	tools, err := toolcall.ToolsFrom(bank)
	if err != nil {
		return err
	}
	for i, t := range tools {
		if t.Definition().Name == "getBalance" {
			tools[i] = readOnly{t}
		}
	}
	approve := func(ctx context.Context, call chat.ToolCall, md toolcall.Metadata) toolcall.Decision {
		switch {
		case md.ReadOnly:
			return toolcall.Decision{Allow: true}
		case toolcall.ToolContextFrom(ctx).Value("role") == "viewer":
			return toolcall.Decision{Deny: "a viewer may not change the account"}
		}
		return toolcall.Decision{} // wait for the account holder
	}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(
			toolcalltest.Call("call_1", "getBalance", `{}`),
			toolcalltest.Call("call_2", "transfer", `{"to":"Ana","amount":20}`),
		),
		toolcalltest.Text("Your balance was 750 EUR; I sent 20 EUR to Ana."),
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "transfer", `{"to":"Bo","amount":500}`)),
		toolcalltest.Text("I cannot send money from this account: a viewer may not change it."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(tools), toolcall.WithApprover(approve))
	ctx := context.Background()

	question := "What's my balance? Then send 20 EUR to Ana."
	fmt.Println("user (owner):", question)
	owner := map[string]any{"role": "owner"}
	resp, err := client.Prompt(question).ToolContext(owner).Call(ctx)
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		return fmt.Errorf("expected the call to pause, got %v", err)
	}
	report(resp.Executions)
	for _, pc := range paused.Pending {
		fmt.Printf("  waiting: %s %s %s (%s)\n", pc.ID, pc.Name, pc.Arguments, pc.Reason)
	}
	fmt.Println("the owner approves call_2")
	// A resume's decision replaces the approver's for that call.
	resp, err = client.Prompt().ToolContext(owner).Resume(paused, map[string]toolcall.Decision{"call_2": {Allow: true}}).Call(ctx)
	if err != nil {
		return err
	}
	report(resp.Executions, paused.Done...)
	fmt.Println("answer:", resp.Content())

	question = "Send 500 EUR to Bo."
	fmt.Println("user (viewer):", question)
	resp, err = client.Prompt(question).ToolContext(map[string]any{"role": "viewer"}).Call(ctx)
	if err != nil {
		return err
	}
	report(resp.Executions)
	fmt.Println("answer:", resp.Content())
	fmt.Println("transfers made:", bank.Sent())
	return nil
}

// report prints each execution: what the model asked, and what it got
// back. The executions of a resumed call start with its round's calls, also
// those done before the pause, which did not run again: report leaves them
// out.
func report(execs []toolcall.ToolExecution, before ...toolcall.ToolExecution) {
	for _, e := range execs {
		if slices.ContainsFunc(before, func(b toolcall.ToolExecution) bool { return b.Call.ID == e.Call.ID }) {
			continue
		}
		status := "ran:    "
		if e.IsError {
			status = "refused:"
		}
		fmt.Printf("  %s %s %s %s -> %s\n", status, e.Call.ID, e.Call.Name, e.Call.Arguments, e.Result)
	}
}
