// Datetime turns the methods of a struct into tools with struct tags: one
// tool tells the model the current date and time, another sets an alarm.
// It is the DateTimeTools example of Spring AI's tool-calling guide.
//
// A blank toolcall.Method field opts each method in; its tags give the tool
// name, the description and the rest. No other method of the type is ever
// offered to the model. The clock is fixed so that the output is the same
// on every run.
//
//	go run ./examples/datetime
//
// It runs offline on a scripted model. For a real model, replace
// scriptedModel() with, for example, ollama.New(ollama.Config{Model:
// "qwen2.5"}) from package providers/ollama, and the clock with time.Now.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// DateTimeTools gives the model the current time and lets it set alarms.
// Its methods may run concurrently, so the alarm list is guarded.
type DateTimeTools struct {
	_ toolcall.Method `tool:"CurrentTime" name:"getCurrentDateTime" description:"Get the current date and time in the user's timezone"`
	_ toolcall.Method `tool:"SetAlarm" name:"setAlarm" description:"Set a user alarm for the given time"`

	Now  func() time.Time // the clock
	Zone *time.Location   // the user's timezone

	mu     sync.Mutex
	alarms []time.Time
}

// AlarmArgs are the parameters of setAlarm.
type AlarmArgs struct {
	Time string `json:"time" jsonschema:"description=Time in ISO-8601 format,example=2025-05-01T10:10:00+02:00"`
}

// CurrentTime returns the current time in the user's timezone.
func (t *DateTimeTools) CurrentTime(ctx context.Context) string {
	return t.Now().In(t.Zone).Format(time.RFC3339)
}

// SetAlarm sets an alarm. A time the model got wrong is an error, which
// the model receives as the tool's result and can correct.
func (t *DateTimeTools) SetAlarm(ctx context.Context, in AlarmArgs) error {
	at, err := time.Parse(time.RFC3339, in.Time)
	if err != nil {
		return fmt.Errorf("time %q is not ISO-8601; use e.g. 2025-05-01T10:10:00+02:00", in.Time)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.alarms = append(t.alarms, at)
	return nil
}

// Alarms returns the alarms set so far. It is not a tool: no Method field
// names it.
func (t *DateTimeTools) Alarms() []time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]time.Time(nil), t.alarms...)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "datetime:", err)
		os.Exit(1)
	}
}

func run() error {
	paris := time.FixedZone("CEST", 2*60*60)
	now := time.Date(2025, 5, 1, 8, 0, 0, 0, time.UTC) // 10:00 in Paris
	dt := &DateTimeTools{Now: func() time.Time { return now }, Zone: paris}

	// What the model sees of the tools: name, description, input schema.
	tools, err := toolcall.ToolsFrom(dt)
	if err != nil {
		return err
	}
	for _, t := range tools {
		d := t.Definition()
		fmt.Printf("tool %s: %s\n  schema: %s\n", d.Name, d.Description, d.InputSchema)
	}
	fmt.Println()

	client := toolcall.NewClient(scriptedModel())
	question := "Can you set an alarm 10 minutes from now?"
	fmt.Println("user:", question)
	resp, err := client.Prompt().User(question).Tools(tools).Call(context.Background())
	if err != nil {
		return err
	}
	for _, e := range resp.Executions {
		fmt.Printf("round %d: %s %s -> %s\n", e.Round, e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println("answer:", resp.Content())
	for _, a := range dt.Alarms() {
		fmt.Println("alarm set for", a.In(paris).Format("2006-01-02 15:04 MST"))
	}
	return nil
}

// scriptedModel plays a model that asks for the time, then sets the alarm
// ten minutes later, reading the time from the first tool's result.
func scriptedModel() chat.Model {
	return toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "getCurrentDateTime", `{}`)),
		toolcalltest.Reply{Func: func(req *chat.Request) (*chat.Response, error) {
			last := req.Messages[len(req.Messages)-1] // the tool's result
			now, err := time.Parse(time.RFC3339, last.Content)
			if err != nil {
				return nil, err
			}
			args, err := json.Marshal(AlarmArgs{Time: now.Add(10 * time.Minute).Format(time.RFC3339)})
			if err != nil {
				return nil, err
			}
			return toolcalltest.ToolCalls(toolcalltest.Call("call_2", "setAlarm", string(args))).Response, nil
		}},
		toolcalltest.Text("Your alarm is set for 10:10."),
	)
}
