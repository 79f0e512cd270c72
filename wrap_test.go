package toolcall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

type wrapOptions struct {
	Detailed bool `json:"detailed"`
}

type wrapArgs struct {
	City    string      `json:"city" jsonschema:"minLength=1"`
	Unit    string      `json:"unit,omitempty" jsonschema:"enum=C,enum=F"`
	Days    int         `json:"days" jsonschema:"minimum=1,maximum=14"`
	Tags    []string    `json:"tags,omitempty" jsonschema:"maxItems=2"`
	Options wrapOptions `json:"options,omitzero"`
}

// userWrapper is how a program wraps a tool without the library's help.
type userWrapper struct{ toolcall.Tool }

func (w userWrapper) Call(ctx context.Context, args json.RawMessage) (string, error) {
	return w.Tool.Call(ctx, args)
}

// A tool wrapped by middleware or by a type of the program's own gives the
// same verdict, result and history as the bare tool, in both schema
// variants; with middleware, as bare, each call is checked exactly once.
func TestWrappedToolsCheckLikeBareOnes(t *testing.T) {
	var runs atomic.Int32
	weather := toolcall.MustFunc("weather", "Weather", func(_ context.Context, in wrapArgs) (string, error) {
		runs.Add(1)
		return fmt.Sprintf("%s/%s/%d/%v/%v", in.City, in.Unit, in.Days, in.Tags, in.Options.Detailed), nil
	})
	raw, err := toolcall.NewTool(chat.ToolDefinition{Name: "weather", InputSchema: mustSchema(t, wrapArgs{})},
		func(_ context.Context, args json.RawMessage) (string, error) {
			runs.Add(1)
			return string(args), nil
		})
	require.NoError(t, err)

	var checks atomic.Int32
	toolcall.SetOnCheck(func(string) { checks.Add(1) })
	defer toolcall.SetOnCheck(nil)
	passthrough := toolcall.WithMiddleware(func(ctx context.Context, _ chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
		return next(ctx)
	})

	cases := []struct {
		name, args   string
		ok, okStrict bool
	}{
		{"full", `{"city":"Oslo","unit":"C","days":3,"tags":["a"],"options":{"detailed":true}}`, true, true},
		{"required only", `{"city":"Oslo","days":3}`, true, false},
		{"strict form", `{"city":"Oslo","unit":null,"days":3,"tags":null,"options":null}`, false, true},
		{"null optional", `{"city":"Oslo","days":3,"unit":null}`, false, false},
		{"empty", ``, false, false},
		{"null", `null`, false, false},
		{"blank", `  `, false, false},
		{"missing required", `{"city":"Oslo"}`, false, false},
		{"wrong type", `{"city":"Oslo","days":"3"}`, false, false},
		{"enum", `{"city":"Oslo","days":3,"unit":"K","tags":null,"options":null}`, false, false},
		{"below minimum", `{"city":"Oslo","days":0}`, false, false},
		{"above maximum", `{"city":"Oslo","days":15}`, false, false},
		{"integral float", `{"city":"Oslo","days":2.0,"unit":"F","tags":[],"options":{"detailed":false}}`, true, true},
		{"fraction", `{"city":"Oslo","days":2.5}`, false, false},
		{"unknown field", `{"city":"Oslo","days":3,"extra":1}`, false, false},
		{"duplicate key", `{"city":"Oslo","days":3,"days":4}`, false, false},
		{"malformed", `{"city":"Oslo",`, false, false},
		{"trailing data", `{"city":"Oslo","days":3} x`, false, false},
		{"too many tags", `{"city":"Oslo","days":3,"tags":["a","b","c"]}`, false, false},
		{"nested wrong type", `{"city":"Oslo","days":3,"options":{"detailed":"yes"}}`, false, false},
		{"nested unknown", `{"city":"Oslo","days":3,"options":{"detailed":true,"x":1}}`, false, false},
		{"empty string", `{"city":"","days":3}`, false, false},
		{"array arguments", `[1,2]`, false, false},
		{"invalid UTF-8", "{\"city\":\"\xff\",\"days\":3}", false, false},
		{"escaped unicode", `{"city":"\u00d8rsta","days":1,"unit":"F","tags":["x","y"],"options":{"detailed":true}}`, true, true},
	}
	require.GreaterOrEqual(t, len(cases), 20)

	type outcome struct {
		isError bool
		result  string
		history []chat.Message
		ran     int32
		checks  int32
	}
	run := func(t *testing.T, tool toolcall.Tool, args string, opts ...toolcall.ClientOption) outcome {
		t.Helper()
		runs.Store(0)
		checks.Store(0)
		model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "weather", args)), tt.Text("done"))
		resp, err := toolcall.NewClient(model, opts...).Prompt("weather?").Tools(tool).Call(context.Background())
		require.NoError(t, err)
		require.Len(t, resp.Executions, 1)
		assertValidHistory(t, resp.History)
		return outcome{resp.Executions[0].IsError, resp.Executions[0].Result, resp.History, runs.Load(), checks.Load()}
	}
	for _, bare := range []toolcall.Tool{weather, raw} {
		for _, strict := range []bool{false, true} {
			var opts []toolcall.ClientOption
			want := func(c struct {
				name, args   string
				ok, okStrict bool
			}) bool {
				return c.ok
			}
			if strict {
				opts = append(opts, toolcall.WithStrictTools())
				want = func(c struct {
					name, args   string
					ok, okStrict bool
				}) bool {
					return c.okStrict
				}
			}
			for _, c := range cases {
				name := fmt.Sprintf("%T/strict=%v/%s", bare, strict, c.name)
				t.Run(name, func(t *testing.T) {
					b := run(t, bare, c.args, opts...)
					assert.Equal(t, !want(c), b.isError, "verdict: %s", b.result)
					assert.EqualValues(t, 1, b.checks, "the bare tool is checked once")
					if b.isError {
						assert.Zero(t, b.ran, "a rejected call never runs the tool")
					}
					mw := run(t, bare, c.args, append(opts, passthrough)...)
					assert.Equal(t, b.isError, mw.isError)
					assert.Equal(t, b.result, mw.result)
					assert.Equal(t, b.history, mw.history)
					assert.EqualValues(t, 1, mw.checks, "middleware adds no check")
					w := run(t, userWrapper{bare}, c.args, opts...)
					assert.Equal(t, b.isError, w.isError)
					assert.Equal(t, b.result, w.result)
					assert.Equal(t, b.history, w.history)
					assert.Equal(t, b.ran, w.ran)
				})
			}
		}
	}
}

// Middleware sees only checked calls, in the order given, and may refuse one.
func TestMiddlewareOrderAndRefusal(t *testing.T) {
	var trail []string
	tool := toolcall.MustFunc("echo", "Echo", func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		trail = append(trail, "tool "+in.Text)
		return in.Text, nil
	})
	mw := func(name string) toolcall.Middleware {
		return func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
			trail = append(trail, name+" "+string(call.Arguments))
			if strings.Contains(string(call.Arguments), "forbidden") {
				return "", fmt.Errorf("%s refused the call", name)
			}
			out, err := next(ctx)
			return name + "(" + out + ")", err
		}
	}
	model := tt.NewModel(tt.ToolCalls(
		tt.Call("c1", "echo", `{"text":"hi"}`),
		tt.Call("c2", "echo", `{"text":1}`),
		tt.Call("c3", "echo", `{"text":"forbidden"}`),
	), tt.Text("done"))
	resp, err := toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{Concurrency: 1}),
		toolcall.WithMiddleware(mw("outer")), toolcall.WithMiddleware(mw("inner"))).
		Prompt("go").Tools(tool).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{
		`outer {"text":"hi"}`, `inner {"text":"hi"}`, "tool hi",
		`outer {"text":"forbidden"}`,
	}, trail)
	require.Len(t, resp.Executions, 3)
	assert.Equal(t, "outer(inner(hi))", resp.Executions[0].Result)
	assert.Equal(t, `invalid arguments for tool "echo": text: expected string, got number`, resp.Executions[1].Result)
	assert.Equal(t, "outer refused the call", resp.Executions[2].Result)
	assert.True(t, resp.Executions[2].IsError)
}

func mustSchema(t *testing.T, v any) json.RawMessage {
	t.Helper()
	s, err := toolcall.SchemaFor(v)
	require.NoError(t, err)
	return s
}
