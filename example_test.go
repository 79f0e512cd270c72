package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// ForecastArgs are the parameters of the examples' forecast tool. City is
// required; Days, with omitempty, is optional.
type ForecastArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,description=Number of days (default 1)"`
}

func forecast(ctx context.Context, in ForecastArgs) (string, error) {
	return fmt.Sprintf("%s: sunny for %d day(s)", in.City, max(in.Days, 1)), nil
}

// AlarmClock's methods become tools through its blank Method fields.
type AlarmClock struct {
	_ toolcall.Method `tool:"CurrentTime" name:"currentTime" description:"Get the current time"`
	_ toolcall.Method `tool:"SetAlarm" name:"setAlarm" description:"Set an alarm" params:"time: alarm time as HH:MM"`

	Now func() time.Time
}

// CurrentTime returns the time of day.
func (c AlarmClock) CurrentTime() string { return c.Now().Format("15:04") }

// SetAlarm sets an alarm. Go does not know parameter names, so the params
// tag names at "time".
func (c AlarmClock) SetAlarm(ctx context.Context, at string) (string, error) {
	if _, err := time.Parse("15:04", at); err != nil {
		return "", fmt.Errorf("time %q is not HH:MM", at)
	}
	return "alarm set for " + at, nil
}

// Reset is not a tool: no Method field names it.
func (c AlarmClock) Reset() {}

func printJSON(raw json.RawMessage) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.String())
}

func ExampleNewFunc() {
	tool, err := toolcall.NewFunc("forecast", "Weather forecast for a city", forecast)
	if err != nil {
		log.Fatal(err)
	}
	def := tool.Definition()
	fmt.Println(def.Name, "-", def.Description)
	printJSON(def.InputSchema)

	// A tool can be called directly, e.g. in a test, with the model's
	// arguments as JSON.
	out, err := tool.Call(context.Background(), json.RawMessage(`{"city":"Paris","days":3}`))
	fmt.Println(out, err)
	// Output:
	// forecast - Weather forecast for a city
	// {
	//   "type": "object",
	//   "properties": {
	//     "city": {
	//       "type": "string",
	//       "description": "City name"
	//     },
	//     "days": {
	//       "type": "integer",
	//       "description": "Number of days (default 1)",
	//       "maximum": 7,
	//       "minimum": 1
	//     }
	//   },
	//   "required": [
	//     "city"
	//   ],
	//   "additionalProperties": false
	// }
	// Paris: sunny for 3 day(s) <nil>
}

func ExampleToolsFrom() {
	clock := AlarmClock{Now: func() time.Time { return time.Date(2025, 5, 1, 7, 0, 0, 0, time.UTC) }}
	tools, err := toolcall.ToolsFrom(clock)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		d := t.Definition()
		fmt.Printf("%s (%s): %s\n", d.Name, d.Description, d.InputSchema)
	}
	out, err := tools[1].Call(context.Background(), json.RawMessage(`{"time":"07:30"}`))
	fmt.Println(out, err)
	// Output:
	// currentTime (Get the current time): {"type":"object","properties":{},"required":[],"additionalProperties":false}
	// setAlarm (Set an alarm): {"type":"object","properties":{"time":{"type":"string","description":"alarm time as HH:MM"}},"required":["time"],"additionalProperties":false}
	// alarm set for 07:30 <nil>
}

func ExampleClient_Prompt() {
	weather, err := toolcall.NewFunc("forecast", "Weather forecast for a city", forecast)
	if err != nil {
		log.Fatal(err)
	}
	// A scripted model: it asks for the tool, then answers. Use a provider
	// such as providers/openai or providers/ollama for a real one.
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "forecast", `{"city":"Paris"}`)),
		toolcalltest.Text("It will be sunny in Paris."),
	)
	client := toolcall.NewClient(model)

	resp, err := client.Prompt().
		System("You are a weather assistant.").
		User("Will it rain in Paris tomorrow?").
		Tools(weather).
		Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range resp.Executions {
		fmt.Printf("%s %s -> %s\n", e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println(resp.Content())
	fmt.Println("model rounds:", resp.Rounds, "messages:", len(resp.History))
	// Output:
	// forecast {"city":"Paris"} -> Paris: sunny for 1 day(s)
	// It will be sunny in Paris.
	// model rounds: 2 messages: 5
}

func ExampleManager() {
	tools, err := toolcall.ToolsFrom(AlarmClock{Now: time.Now})
	if err != nil {
		log.Fatal(err)
	}
	m := toolcall.NewManager()
	defs, err := m.Definitions(tools)
	if err != nil {
		log.Fatal(err)
	}
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Wake me at 7:30")}, Tools: defs}

	// The model's reply to req (written by hand here): a tool call.
	resp := &chat.Response{Message: chat.AssistantMessage("",
		chat.ToolCall{ID: "call_1", Name: "setAlarm", Arguments: json.RawMessage(`{"time":"07:30"}`)})}

	ex, err := m.Execute(context.Background(), tools, req, resp)
	if err != nil {
		log.Fatal(err)
	}
	// The history answers every call; send it back to the model next.
	for _, msg := range ex.History {
		if len(msg.ToolCalls) > 0 {
			fmt.Printf("%s: calls %s\n", msg.Role, msg.ToolCalls[0].Name)
			continue
		}
		fmt.Printf("%s: %s\n", msg.Role, msg.Content)
	}
	fmt.Println("return directly:", ex.ReturnedDirect)
	// Output:
	// user: Wake me at 7:30
	// assistant: calls setAlarm
	// tool: alarm set for 07:30
	// return directly: false
}

func ExampleRegistry() {
	var reg toolcall.Registry
	err := reg.Register(
		toolcall.MustFunc("forecast", "Weather forecast for a city", forecast),
		AlarmClock{Now: time.Now}, // an object with Method fields registers each tool
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reg.Names())

	model := toolcalltest.NewModel(toolcalltest.Text("Hello!"))
	client := toolcall.NewClient(model, toolcall.WithRegistry(&reg))
	if _, err := client.Prompt("Hi").ToolNames("forecast").Call(context.Background()); err != nil {
		log.Fatal(err)
	}
	for _, d := range model.Requests()[0].Tools {
		fmt.Println("offered:", d.Name)
	}
	_, err = client.Prompt("Hi").ToolNames("stocks").Call(context.Background())
	fmt.Println(err)
	// Output:
	// [currentTime forecast setAlarm]
	// offered: forecast
	// toolcall: tool not found: no tool named "stocks" is in the client's registry
}

// BalanceArgs are the parameters of the examples' balance tool: none, since
// the account comes from the ToolContext.
type BalanceArgs struct{}

func ExampleToolContext() {
	balance, err := toolcall.NewFunc("balance", "Get the user's account balance",
		func(ctx context.Context, _ BalanceArgs) (string, error) {
			user, _ := toolcall.ToolContextFrom(ctx).Value("userId").(string)
			return "balance of " + user + ": 42.00 EUR", nil
		})
	if err != nil {
		log.Fatal(err)
	}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "balance", `{}`)),
		toolcalltest.Text("You have 42.00 EUR."),
	)
	client := toolcall.NewClient(model)

	resp, err := client.Prompt("What's my balance?").
		Tools(balance).
		ToolContext(map[string]any{"userId": "u-1234"}). // seen by the tools, never by the model
		Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Executions[0].Result)
	for _, body := range model.RequestBodies() {
		fmt.Println("request mentions the user id:", bytes.Contains(body, []byte("userId")))
	}
	// Output:
	// balance of u-1234: 42.00 EUR
	// request mentions the user id: false
	// request mentions the user id: false
}

func ExampleContextWithToolContext() {
	// Outside a Client, e.g. in a unit test of a tool, put the ToolContext
	// in the context yourself.
	balance, err := toolcall.NewFunc("balance", "Get the user's account balance",
		func(ctx context.Context, _ BalanceArgs) (string, error) {
			user, _ := toolcall.ToolContextFrom(ctx).Value("userId").(string)
			return "balance of " + user + ": 42.00 EUR", nil
		})
	if err != nil {
		log.Fatal(err)
	}
	tc := toolcall.NewToolContext(map[string]any{"userId": "u-1234"})
	ctx := toolcall.ContextWithToolContext(context.Background(), tc)
	out, err := balance.Call(ctx, json.RawMessage(`{}`))
	fmt.Println(out, err)
	// Output:
	// balance of u-1234: 42.00 EUR <nil>
}

func ExampleWithReturnDirect() {
	// The tool's result is the answer: it goes straight to the caller,
	// with no second model call.
	status, err := toolcall.NewFunc("orderStatus", "Get the status of an order",
		func(ctx context.Context, in struct {
			Order string `json:"order"`
		}) (string, error) {
			return "Order " + in.Order + " shipped on 2025-05-02.", nil
		},
		toolcall.WithReturnDirect(true))
	if err != nil {
		log.Fatal(err)
	}
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "orderStatus", `{"order":"A-1001"}`)),
	)
	resp, err := toolcall.NewClient(model).Prompt("Where is order A-1001?").Tools(status).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Content())
	fmt.Println("returned directly:", resp.ReturnedDirect, "model requests:", len(model.Requests()))
	// Output:
	// Order A-1001 shipped on 2025-05-02.
	// returned directly: true model requests: 1
}
