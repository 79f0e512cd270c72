// Mcp serves toolcall tools over the Model Context Protocol and uses them
// from a toolcall loop, both ends in one program: it starts itself as a
// stdio MCP server ("mcp serve") offering the DateTimeTools of
// examples/datetime with mcptool.NewServer, connects to it with
// mcptool.Connect, and gives the connection to a client as a toolset, so
// that the model's calls travel to the subprocess and back.
//
//	go run ./examples/mcp
//
// It runs offline on a scripted model, with the server's clock fixed so
// that the output is the same on every run. The serving half works on its
// own with any MCP client, on the real clock:
//
//	go build -o datetime-mcp ./examples/mcp && ./datetime-mcp serve
//
// For a real model, replace scriptedModel() with, for example,
// ollama.New(ollama.Config{Model: "qwen2.5"}) from package
// providers/ollama, and drop the -now argument to let the server use its
// clock.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/mcptool"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// DateTimeTools gives the model the current time and lets it set alarms;
// the MCP server offers its two method tools. Its methods may run
// concurrently, so the alarm list is guarded.
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

// SetAlarm sets an alarm and says when it rings. A time the model got
// wrong is an error, which the model receives as the tool's result and
// can correct.
func (t *DateTimeTools) SetAlarm(ctx context.Context, in AlarmArgs) (string, error) {
	at, err := time.Parse(time.RFC3339, in.Time)
	if err != nil {
		return "", fmt.Errorf("time %q is not ISO-8601; use e.g. 2025-05-01T10:10:00+02:00", in.Time)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.alarms = append(t.alarms, at)
	return fmt.Sprintf("Alarm %d set for %s", len(t.alarms), at.In(t.Zone).Format("2006-01-02 15:04")), nil
}

func main() {
	var err error
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		err = serve(os.Args[2:])
	} else {
		err = run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// serve is the server half: the DateTimeTools over stdio until the client
// closes stdin. With -now the clock is fixed at that time, in its zone.
func serve(args []string) error {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	now := flags.String("now", "", "a fixed current time, ISO-8601 (default: the real clock)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	dt := &DateTimeTools{Now: time.Now, Zone: time.Local}
	if *now != "" {
		fixed, err := time.Parse(time.RFC3339, *now)
		if err != nil {
			return fmt.Errorf("-now: %w", err)
		}
		dt.Now, dt.Zone = func() time.Time { return fixed }, fixed.Location()
	}
	tools, err := toolcall.ToolsFrom(dt)
	if err != nil {
		return err
	}
	server, err := mcptool.NewServer(&mcp.Implementation{Name: "datetime", Version: "v1.0.0"}, tools, nil)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = server.Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, context.Canceled) {
		return nil // stopped by a signal
	}
	return err
}

// run is the client half: it starts this program as the server, then lets
// the model use the server's tools.
func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Println("server: this program, started as `mcp serve` over stdio")
	datetime, err := mcptool.Connect(ctx, mcptool.Remote{
		Name:    "datetime",
		Command: self,
		Args:    []string{"serve", "-now", "2025-05-01T10:00:00+02:00"}, // fixed clock: the same output on every run
	})
	if err != nil {
		return err
	}
	defer datetime.Close() // ends the session and waits for the subprocess to exit

	// What the server offers, as the model will see it.
	tools, err := datetime.Tools(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range tools {
		d := t.Definition()
		fmt.Printf("  tool %s: %s\n    schema: %s\n", d.Name, d.Description, d.InputSchema)
	}
	fmt.Println()

	// The connection is a toolset: each model request offers the server's
	// current tools, and each call runs in the subprocess.
	client := toolcall.NewClient(scriptedModel(), toolcall.WithToolset(datetime))
	question := "Can you set an alarm 10 minutes from now?"
	fmt.Println("user:", question)
	resp, err := client.Prompt().User(question).Call(ctx)
	if err != nil {
		return err
	}
	for _, e := range resp.Executions {
		fmt.Printf("round %d: %s %s -> %s\n", e.Round, e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println("answer:", resp.Content())
	if err := datetime.Close(); err != nil {
		return err
	}
	fmt.Println("server closed")
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
