// Longrunning shows tools that cannot finish at once, and state that
// outlives a call. It follows the long-running tool, credential and
// session state examples of Google's Agent Development Kit (ADK).
//
// Part 1, a long-running tool: reimbursements over 100 EUR need a manager.
// The tool opens a ticket and returns toolcall.Pause with a reason; the
// Call ends with a *toolcall.Paused. When the manager has decided, the
// program resumes with a toolcall.Decision whose Result is the final status:
// the model gets it as the tool's result, and the tool does not run again.
// Unlike ADK's long-running tools, which first send the model a "pending"
// result, a paused call sends the model nothing until it is decided: the
// tool's reason is for the caller, who tells the user.
//
// Part 2, a credential: the forecast tool needs the user's API key, which
// is not in its tool context, so it pauses, saying what it needs. The
// program asks the user, then resumes with the key in the tool context
// (Prompt.ToolContext) and Decision{Allow: true}: the tool runs again, now
// with the key. The key never reaches the model: the program checks every
// request the model received.
//
// Part 3, session state: a tool writes the user's home city and its
// coordinates with toolcall.SetState; a tool of a later round of the same
// call reads them from its tool context; the caller keeps Response.State
// and passes it to the next call with Prompt.ToolContext. The state never
// reaches the model.
//
//	go run ./examples/longrunning
//
// It runs offline on scripted models. For a real model, replace the
// toolcalltest.NewModel(...) calls with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package providers/ollama.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"sync"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// Tickets is the approval queue of the finance team: each open ticket
// remembers the tool call that waits for it.
type Tickets struct {
	mu   sync.Mutex
	next int
	open map[string]string // ticket id -> call id
	runs int               // how often reimburse ran
}

// ReimburseArgs are the parameters of reimburse.
type ReimburseArgs struct {
	Purpose string `json:"purpose" jsonschema:"description=What the money was spent on"`
	Amount  int    `json:"amount" jsonschema:"description=Amount in euros,minimum=1"`
}

// Reimburse pays small amounts at once; for a larger one it opens a ticket
// and pauses its call until a manager decides.
func (t *Tickets) Reimburse(ctx context.Context, in ReimburseArgs) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.runs++
	if in.Amount <= 100 {
		return fmt.Sprintf(`{"status":"paid","amount":%d}`, in.Amount), nil
	}
	t.next++
	ticket := fmt.Sprintf("T-%d", t.next)
	info, _ := toolcall.CallInfoFrom(ctx)
	t.open[ticket] = info.ID
	return "", toolcall.Pause(fmt.Sprintf("ticket %s: a manager must approve %d EUR for %s", ticket, in.Amount, in.Purpose))
}

// CallFor returns the id of the tool call that waits for ticket.
func (t *Tickets) CallFor(ticket string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open[ticket]
}

// Runs returns how often Reimburse ran.
func (t *Tickets) Runs() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.runs
}

// ForecastArgs are the parameters of forecast.
type ForecastArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// forecast calls a weather service that needs the user's API key, which it
// reads from its tool context. Without one, it pauses for it.
func forecast(ctx context.Context, in ForecastArgs) (string, error) {
	key, _ := toolcall.ToolContextFrom(ctx).Value("weatherKey").(string)
	if key == "" {
		return "", toolcall.Pause("credential: an API key for api.weather.example")
	}
	// A real tool would send the key in a request header here.
	return in.City + " tomorrow: 22°C, sunny", nil
}

// CityArgs are the parameters of setHomeCity.
type CityArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// coordinates plays a geocoding service.
var coordinates = map[string]string{"Lyon": "45.76,4.84", "Paris": "48.86,2.35"}

// setHomeCity writes the user's home city, and where it is, to the session
// state.
func setHomeCity(ctx context.Context, in CityArgs) (string, error) {
	coords, ok := coordinates[in.City]
	if !ok {
		return "", fmt.Errorf("no city %s known", in.City)
	}
	toolcall.SetState(ctx, "homeCity", in.City)
	toolcall.SetState(ctx, "homeCoords", coords)
	return "home city saved", nil
}

// homeWeather reads the home city from its tool context, where the session
// state arrives, and asks a weather service about its coordinates.
func homeWeather(ctx context.Context, _ struct{}) (string, error) {
	tc := toolcall.ToolContextFrom(ctx)
	city, _ := tc.Value("homeCity").(string)
	coords, _ := tc.Value("homeCoords").(string)
	if city == "" || coords == "" {
		return "", errors.New("no home city known: ask the user for it")
	}
	return city + ": 18°C, cloudy", nil // the weather at coords
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "longrunning:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	if err := longRunning(ctx); err != nil {
		return err
	}
	fmt.Println()
	if err := credential(ctx); err != nil {
		return err
	}
	fmt.Println()
	return sessionState(ctx)
}

func longRunning(ctx context.Context) error {
	fmt.Println("== Part 1: a long-running tool")
	tickets := &Tickets{open: map[string]string{}}
	reimburse, err := toolcall.NewMethod(tickets, "Reimburse", toolcall.WithName("reimburse"),
		toolcall.WithDescription("Reimburse an expense; amounts over 100 EUR need a manager's approval"))
	if err != nil {
		return err
	}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(
			toolcalltest.Call("call_1", "reimburse", `{"purpose":"taxi","amount":45}`),
			toolcalltest.Call("call_2", "reimburse", `{"purpose":"hotel","amount":450}`),
		),
		toolcalltest.Text("The taxi (45 EUR) is paid. Your manager approved the hotel (450 EUR); it will be paid with your next salary."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(reimburse))
	question := "Please reimburse 45 EUR for a taxi and 450 EUR for a conference hotel."
	fmt.Println("user:", question)
	resp, err := client.Prompt(question).Call(ctx)
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		return fmt.Errorf("expected the call to pause, got %v", err)
	}
	report(resp.Executions)
	reportPending(paused)

	// Later, perhaps days later and in another process: the manager
	// decides the ticket, and its call gets the final status as its result.
	ticket := "T-1"
	callID := tickets.CallFor(ticket)
	fmt.Printf("the manager approves %s, which %s waits for\n", ticket, callID)
	decisions := map[string]toolcall.Decision{
		callID: {Result: `{"status":"approved","ticket":"T-1","approver":"Mia"}`},
	}
	resp, err = client.Prompt().Resume(paused, decisions).Call(ctx)
	if err != nil {
		return err
	}
	report(resp.Executions, paused.Done...)
	fmt.Println("answer:", resp.Content())
	fmt.Printf("reimburse ran %d times: the manager's answer did not run it again\n", tickets.Runs())
	return nil
}

func credential(ctx context.Context) error {
	fmt.Println("== Part 2: a tool asks for a credential")
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "forecast", `{"city":"Lyon"}`)),
		toolcalltest.Text("Tomorrow in Lyon: 22°C and sunny."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(
		toolcall.MustFunc("forecast", "Tomorrow's weather in a city", forecast)))
	question := "What's the weather in Lyon tomorrow?"
	fmt.Println("user:", question)
	_, err := client.Prompt(question).Call(ctx)
	var paused *toolcall.Paused
	if !errors.As(err, &paused) {
		return fmt.Errorf("expected the call to pause, got %v", err)
	}
	reportPending(paused)

	// The program asks the user for the key (here, it just has one), and
	// gives it to the tools of the resumed call only.
	key := "wx-7f3a9c21"
	fmt.Println("the user gives a key; the call resumes with it in the tool context")
	resp, err := client.Prompt().
		ToolContext(map[string]any{"weatherKey": key}).
		Resume(paused, map[string]toolcall.Decision{"call_1": {Allow: true}}).
		Call(ctx)
	if err != nil {
		return err
	}
	report(resp.Executions)
	fmt.Println("answer:", resp.Content())

	stored, err := json.Marshal(paused)
	if err != nil {
		return err
	}
	found := bytes.Contains(stored, []byte(key))
	for _, body := range model.RequestBodies() {
		found = found || bytes.Contains(body, []byte(key))
	}
	fmt.Printf("the key in the paused state or any request sent to the model: %t\n", found)
	return nil
}

func sessionState(ctx context.Context) error {
	fmt.Println("== Part 3: session state")
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "setHomeCity", `{"city":"Lyon"}`)),
		toolcalltest.ToolCalls(toolcalltest.Call("call_2", "homeWeather", `{}`)),
		toolcalltest.Text("Noted: home is Lyon now. It is 18°C and cloudy there."),
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "homeWeather", `{}`)),
		toolcalltest.Text("At home in Lyon: 18°C and cloudy."),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(
		toolcall.MustFunc("setHomeCity", "Remember the user's home city", setHomeCity),
		toolcall.MustFunc("homeWeather", "The weather in the user's home city", homeWeather),
	))

	// The session store: what the tools wrote, kept between calls.
	session := map[string]any{}

	question := "I moved to Lyon. What's the weather at home?"
	fmt.Println("user:", question)
	resp, err := client.Prompt(question).ToolContext(session).Call(ctx)
	if err != nil {
		return err
	}
	report(resp.Executions)
	for _, e := range resp.Executions {
		if len(e.State) > 0 {
			fmt.Printf("  %s wrote %s\n", e.Call.ID, jsonText(e.State))
		}
	}
	fmt.Println("answer:", resp.Content())
	fmt.Println("Response.State:", jsonText(resp.State))
	maps.Copy(session, resp.State)

	question = "And what's the weather at home now?"
	fmt.Println("user, in a new conversation:", question)
	resp, err = client.Prompt(question).ToolContext(session).Call(ctx)
	if err != nil {
		return err
	}
	report(resp.Executions)
	fmt.Println("answer:", resp.Content())

	found := false
	for _, body := range model.RequestBodies() {
		found = found || bytes.Contains(body, []byte(coordinates["Lyon"]))
	}
	fmt.Printf("the coordinates in any request sent to the model: %t\n", found)
	return nil
}

// report prints each execution, leaving out those done before a pause.
func report(execs []toolcall.ToolExecution, before ...toolcall.ToolExecution) {
	done := map[string]bool{}
	for _, e := range before {
		done[e.Call.ID] = true
	}
	for _, e := range execs {
		if !done[e.Call.ID] {
			fmt.Printf("  round %d: %s %s %s -> %s\n", e.Round, e.Call.ID, e.Call.Name, e.Call.Arguments, e.Result)
		}
	}
}

// reportPending prints the calls a *Paused waits for, with their reasons.
func reportPending(p *toolcall.Paused) {
	for _, pc := range p.Pending {
		fmt.Printf("  waiting: %s %s %s\n    reason: %s\n", pc.ID, pc.Name, pc.Arguments, pc.Reason)
	}
}

// jsonText is v as compact JSON, its map keys sorted.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
