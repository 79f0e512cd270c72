package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/check"

	"github.com/invopop/jsonschema"
)

// The workload of the invoke benchmark (issue: tools, acceptance 5).
type benchOptions struct {
	Detailed bool   `json:"detailed"`
	Lang     string `json:"lang,omitempty"`
}

type benchArgs struct {
	City    string       `json:"city"`
	Unit    string       `json:"unit" jsonschema:"enum=C,enum=F"`
	Days    int          `json:"days" jsonschema:"minimum=1,maximum=14"`
	Tags    []string     `json:"tags,omitempty"`
	Options benchOptions `json:"options"`
}

type benchDay struct {
	Day  int     `json:"day"`
	High float64 `json:"high"`
	Low  float64 `json:"low"`
}

type benchResult struct {
	City    string     `json:"city"`
	TempC   float64    `json:"temp_c"`
	Unit    string     `json:"unit"`
	Summary string     `json:"summary"`
	Days    []benchDay `json:"days"`
}

func benchWeather(_ context.Context, in benchArgs) (benchResult, error) {
	r := benchResult{City: in.City, TempC: 21.5, Unit: in.Unit, Summary: "mild and dry"}
	r.Days = make([]benchDay, in.Days)
	for i := range r.Days {
		r.Days[i] = benchDay{Day: i + 1, High: 20 + float64(i), Low: 10.25 + float64(i)}
	}
	return r, nil
}

var benchInput = json.RawMessage(`{"city":"Copenhagen","unit":"C","days":3,"tags":["a","b"],"options":{"detailed":true,"lang":"en"}}`)

func BenchmarkInvoke(b *testing.B) {
	ctx := context.Background()
	tool, err := NewFunc("weather", "Weather forecast", benchWeather)
	if err != nil {
		b.Fatal(err)
	}
	want, _ := tool.Call(ctx, benchInput)
	b.Run("toolcall", func(b *testing.B) {
		// What the Manager does per call: validate against the schema,
		// decode, call, convert (the tool validates as it decodes).
		b.ReportAllocs()
		for b.Loop() {
			out, err := tool.Call(ctx, benchInput)
			if err != nil || len(out) != len(want) {
				b.Fatal(err, out)
			}
		}
	})
	b.Run("toolcall-validated", func(b *testing.B) {
		// The whole path of one call through the Manager: lookup among the
		// offered tools, validation, decode, call, convert, error policy
		// and the new history.
		m := NewManager()
		tools := []Tool{tool}
		req := &chat.Request{Messages: []chat.Message{chat.UserMessage("weather?")}}
		resp := &chat.Response{Message: chat.Message{Role: chat.RoleAssistant,
			ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "weather", Arguments: benchInput}}}}
		b.ReportAllocs()
		for b.Loop() {
			ex, err := m.Execute(ctx, tools, req, resp)
			if err != nil || ex.Executions[0].IsError || len(ex.Executions[0].Result) != len(want) {
				b.Fatal(err, ex.Executions)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in benchArgs
			if err := json.Unmarshal(benchInput, &in); err != nil {
				b.Fatal(err)
			}
			res, err := benchWeather(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			out, err := json.Marshal(res)
			if err != nil || len(out) != len(want) {
				b.Fatal(err, string(out))
			}
		}
	})
}

func BenchmarkDefine(b *testing.B) {
	b.Run("invopop", func(b *testing.B) {
		// The reflection alone, with invopop's default settings: the floor
		// a cold definition is measured against.
		b.ReportAllocs()
		for b.Loop() {
			if s := (&jsonschema.Reflector{}).Reflect(&benchArgs{}); s == nil {
				b.Fatal("no schema")
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check.ForgetTypes()
			if _, err := NewFunc("weather", "Weather forecast", benchWeather); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		if _, err := NewFunc("weather", "Weather forecast", benchWeather); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewFunc("weather", "Weather forecast", benchWeather); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// loopModel answers a tool call to every request that does not end with a
// tool result, and text to every one that does: a round costs the loop, not
// the model. (toolcalltest's scripted model records every request, which
// would dominate, and this package's tests cannot import it.)
type loopModel struct{ call, text *chat.Response }

func (m loopModel) Chat(_ context.Context, req *chat.Request) (*chat.Response, error) {
	if req.Messages[len(req.Messages)-1].Role == chat.RoleTool {
		return m.text, nil
	}
	return m.call, nil
}

// BenchmarkLoop is one Call of two rounds (a tool call, then the answer) on
// a model that costs nothing and a tool that takes no arguments and returns
// a constant: the loop's own overhead per round. "hooks" sets every hook to
// a no-op; its allocations beyond "nohooks" are what hooks cost.
func BenchmarkLoop(b *testing.B) {
	ctx := context.Background()
	answer := MustFunc("answer", "The answer", func(context.Context, struct{}) (string, error) { return "42", nil })
	model := loopModel{
		call: &chat.Response{Message: chat.Message{Role: chat.RoleAssistant,
			ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "answer", Arguments: json.RawMessage(`{}`)}}}},
		text: &chat.Response{Message: chat.AssistantMessage("42")},
	}
	run := func(b *testing.B, c *Client) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.Prompt("the answer?").Call(ctx)
			if err != nil || resp.Content() != "42" || resp.Rounds != 2 {
				b.Fatal(err, resp)
			}
		}
		runtime.ReadMemStats(&after)
		rounds := float64(2 * b.N)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rounds, "allocs/round")
	}
	b.Run("nohooks", func(b *testing.B) { run(b, NewClient(model, WithTools(answer))) })
	b.Run("hooks", func(b *testing.B) {
		run(b, NewClient(model, WithTools(answer), WithHooks(Hooks{
			BeforeModel: func(ctx context.Context, _ *chat.Request) context.Context { return ctx },
			AfterModel:  func(context.Context, ModelCall) {},
			BeforeTool:  func(ctx context.Context, _ chat.ToolCall) context.Context { return ctx },
			AfterTool:   func(context.Context, ToolExecution) {},
		})))
	})
	benchmarkLoopWeather(b)
}

// loopBench runs one Call per iteration and reports the loop's cost per
// round beside ns/op.
func loopBench(b *testing.B, c *Client, check func(*Response) bool) {
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Prompt("the answer?").Call(ctx)
		if err != nil || !check(resp) {
			b.Fatal(err, resp)
		}
	}
	runtime.ReadMemStats(&after)
	rounds := float64(2 * b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rounds, "allocs/round")
}

// weatherModel is a loopModel that asks for n calls of the tool name, with
// args, in round 1 and answers in round 2.
func weatherModel(n int, name string, args json.RawMessage) loopModel {
	calls := make([]chat.ToolCall, n)
	for i := range calls {
		calls[i] = chat.ToolCall{ID: "call_" + strconv.Itoa(i+1), Name: name, Arguments: args}
	}
	return loopModel{
		call: &chat.Response{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: calls}},
		text: &chat.Response{Message: chat.AssistantMessage("mild and dry")},
	}
}

// copyModel answers as loopModel does, with a reply of its own each time
// whose arguments are a copy, as a provider's decoded reply is: no round
// shares another's memory.
type copyModel struct{ loopModel }

func (m copyModel) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	r, _ := m.loopModel.Chat(ctx, req)
	out := *r
	if calls := r.Message.ToolCalls; len(calls) > 0 {
		out.Message.ToolCalls = make([]chat.ToolCall, len(calls))
		for i, c := range calls {
			c.Arguments = bytes.Clone(c.Arguments)
			out.Message.ToolCalls[i] = c
		}
	}
	return &out, nil
}

// benchmarkLoopWeather is BenchmarkLoop's comparison with a loop written by
// hand: two calls of the weather tool with nested arguments in round 1,
// text in round 2, from a model whose replies are new each round, their
// arguments copied as a provider's decoding makes them;
// and a round of eight calls of a tool that blocks 1 ms beside a round of
// one.
//
// Each way is measured twice, the calls one after another and at once:
// handwritten and toolcall-sequential (Limits.Concurrency 1),
// handwritten-parallel (a goroutine a call and a WaitGroup, as a user
// writes it) and toolcall, whose default runs the calls of a reply at once.
// Running two quick calls at once costs a goroutine handed to another
// thread and waited for, more than the calls themselves; the pairs compare
// like with like.
func benchmarkLoopWeather(b *testing.B) {
	weather := MustFunc("weather", "Weather forecast", benchWeather)
	model := copyModel{weatherModel(2, "weather", benchInput)}
	for _, parallel := range []bool{false, true} {
		name := "handwritten"
		if parallel {
			name += "-parallel"
		}
		b.Run(name, func(b *testing.B) { handwrittenLoop(b, model, weather.Definition(), parallel) })
	}
	check := func(r *Response) bool {
		return r.Content() == "mild and dry" && r.Rounds == 2 && len(r.Executions) == 2 && !r.Executions[1].IsError
	}
	b.Run("toolcall", func(b *testing.B) { loopBench(b, NewClient(model, WithTools(weather)), check) })
	b.Run("toolcall-sequential", func(b *testing.B) {
		loopBench(b, NewClient(model, WithTools(weather), WithLimits(Limits{Concurrency: 1})), check)
	})
	block := MustFunc("block", "Blocks 1 ms", func(ctx context.Context, _ struct{}) (string, error) {
		time.Sleep(time.Millisecond)
		return "done", nil
	})
	for _, bc := range []struct {
		name string
		n    int
	}{{"toolcall-one", 1}, {"toolcall-parallel", 8}} {
		b.Run(bc.name, func(b *testing.B) {
			loopBench(b, NewClient(weatherModel(bc.n, "block", json.RawMessage(`{}`)), WithTools(block)), func(r *Response) bool {
				return r.Rounds == 2 && len(r.Executions) == bc.n && !r.Executions[bc.n-1].IsError
			})
		})
	}
}

// handwrittenLoop is the loop a user writes by hand: a history slice, a
// name->func map, encoding/json in and out, no checks; the calls of a reply
// one after another, or each in a goroutine of its own with a WaitGroup.
func handwrittenLoop(b *testing.B, model copyModel, def chat.ToolDefinition, parallel bool) {
	ctx := context.Background()
	funcs := map[string]func(context.Context, json.RawMessage) (string, error){
		"weather": func(ctx context.Context, args json.RawMessage) (string, error) {
			var in benchArgs
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			res, err := benchWeather(ctx, in)
			if err != nil {
				return "", err
			}
			out, err := json.Marshal(res)
			return string(out), err
		},
	}
	call := func(tc chat.ToolCall) (string, error) {
		f, ok := funcs[tc.Name]
		if !ok {
			return "", fmt.Errorf("no tool %s", tc.Name)
		}
		return f(ctx, tc.Arguments)
	}
	defs := []chat.ToolDefinition{def}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for b.Loop() {
		history := []chat.Message{chat.UserMessage("the answer?")}
		var answer string
		for {
			mr, err := model.Chat(ctx, &chat.Request{Messages: history, Tools: defs})
			if err != nil {
				b.Fatal(err)
			}
			history = append(history, mr.Message)
			if len(mr.Message.ToolCalls) == 0 {
				answer = mr.Message.Content
				break
			}
			if !parallel {
				for _, tc := range mr.Message.ToolCalls {
					out, err := call(tc)
					if err != nil {
						b.Fatal(err)
					}
					history = append(history, chat.ToolMessage(tc, out))
				}
				continue
			}
			outs := make([]string, len(mr.Message.ToolCalls))
			errs := make([]error, len(outs))
			var wg sync.WaitGroup
			for i, tc := range mr.Message.ToolCalls {
				wg.Go(func() { outs[i], errs[i] = call(tc) })
			}
			wg.Wait()
			for i, tc := range mr.Message.ToolCalls {
				if errs[i] != nil {
					b.Fatal(errs[i])
				}
				history = append(history, chat.ToolMessage(tc, outs[i]))
			}
		}
		if answer != "mild and dry" || len(history) != 5 {
			b.Fatal(answer, history)
		}
	}
	runtime.ReadMemStats(&after)
	rounds := float64(2 * b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/rounds, "allocs/round")
}

// BenchmarkTools is one Call on a Client given n function tools once
// (WithTools), whose model answers at once: what a request costs beyond
// the tools' first use, which should not grow with n (issue: performance,
// acceptance 5).
func BenchmarkTools(b *testing.B) {
	text := &chat.Response{Message: chat.AssistantMessage("42")}
	model := loopModel{call: text, text: text}
	// custom: tools of a program's own Tool type, whose schemas the
	// library compiles itself; the model calls the last one, then answers.
	for _, n := range []int{1, 5000} {
		b.Run("custom/n="+strconv.Itoa(n), func(b *testing.B) {
			tools := make([]Tool, n)
			for i := range tools {
				tools[i] = ownTool{name: "tool_" + strconv.Itoa(i)}
			}
			call := &chat.Response{Message: chat.Message{Role: chat.RoleAssistant,
				ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "tool_" + strconv.Itoa(n-1), Arguments: json.RawMessage(`{"city":"Oslo"}`)}}}}
			c := NewClient(loopModel{call: call, text: text}, WithTools(tools))
			ctx := context.Background()
			if _, err := c.Prompt("the answer?").Call(ctx); err != nil { // the tools' first use
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Prompt("the answer?").Call(ctx)
				if err != nil || resp.Content() != "42" || resp.Rounds != 2 || resp.Executions[0].IsError {
					b.Fatal(err, resp)
				}
			}
		})
	}
	for _, n := range []int{1, 200, 1000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			tools := make([]Tool, n)
			for i := range tools {
				tools[i] = MustFunc("tool_"+strconv.Itoa(i), "Tool number "+strconv.Itoa(i), benchWeather)
			}
			c := NewClient(model, WithTools(tools))
			ctx := context.Background()
			if _, err := c.Prompt("the answer?").Call(ctx); err != nil { // the tools' first use
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Prompt("the answer?").Call(ctx)
				if err != nil || resp.Content() != "42" || resp.Rounds != 1 {
					b.Fatal(err, resp)
				}
			}
		})
	}
}

// ownTool is a Tool of a program's own type, as an MCP tool is.
type ownTool struct{ name string }

func (t ownTool) Definition() chat.ToolDefinition {
	return chat.ToolDefinition{Name: t.name, Description: "A tool of its own type",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1}},"required":["city"]}`)}
}
func (ownTool) Metadata() Metadata                                    { return Metadata{} }
func (ownTool) Call(context.Context, json.RawMessage) (string, error) { return "sunny", nil }
