package toolcall_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// renderEvent writes one stream step as a line, so a test can assert a
// whole sequence at once.
func renderEvent(ev toolcall.Event, err error) string {
	if err != nil {
		return fmt.Sprintf("error kind=%d response=%t: %v", ev.Kind, ev.Response != nil, err)
	}
	switch ev.Kind {
	case toolcall.EventText:
		return "text " + strconv.Quote(ev.Text)
	case toolcall.EventToolCall:
		return fmt.Sprintf("call %s %s %s", ev.ToolCall.ID, ev.ToolCall.Name, ev.ToolCall.Arguments)
	case toolcall.EventToolResult:
		e := ev.Execution
		return fmt.Sprintf("result r%d %s %s error=%t: %s", e.Round, e.Call.ID, e.Call.Name, e.IsError, e.Result)
	case toolcall.EventDone:
		return fmt.Sprintf("done response=%t: %s", ev.Response != nil, ev.Response.Content())
	}
	return fmt.Sprintf("unknown kind %d", ev.Kind)
}

// collectStream ranges over seq to its end and returns every step, the
// Response of the last step (EventDone or the error) and the error.
func collectStream(seq iter.Seq2[toolcall.Event, error]) (events []string, resp *toolcall.Response, err error) {
	for ev, e := range seq {
		events = append(events, renderEvent(ev, e))
		if e != nil || ev.Kind == toolcall.EventDone {
			resp, err = ev.Response, e
		}
	}
	return events, resp, err
}

// normalized drops what legitimately differs between two runs: durations.
func normalized(r *toolcall.Response) *toolcall.Response {
	if r == nil {
		return nil
	}
	c := *r
	c.Executions = append([]toolcall.ToolExecution(nil), r.Executions...)
	for i := range c.Executions {
		c.Executions[i].Duration = 0
	}
	return &c
}

// assertSameAsCall runs the prompt again with Call on a fresh model and
// checks it ends as the stream did: same error text, same Response.
func assertSameAsCall(t *testing.T, model *tt.Model, opts []toolcall.ClientOption, tools []any, streamResp *toolcall.Response, streamErr error) {
	t.Helper()
	resp, err := toolcall.NewClient(model, opts...).Prompt("go").Tools(tools...).Call(context.Background())
	if streamErr == nil {
		require.NoError(t, err)
	} else {
		require.EqualError(t, err, streamErr.Error())
	}
	assert.Equal(t, normalized(resp), normalized(streamResp), "Call and Stream end with the same Response")
}

// queryTool returns a tool "name" taking {"q": string} that counts its runs
// and records its arguments, then answers with fn.
func queryTool(t *testing.T, name string, runs *atomic.Int32, seen *[]string, fn func(ctx context.Context, q string) (string, error), opts ...toolcall.ToolOption) toolcall.Tool {
	t.Helper()
	tool, err := toolcall.NewFunc(name, "looks "+name+" up", func(ctx context.Context, in struct {
		Q string `json:"q"`
	}) (string, error) {
		runs.Add(1)
		if seen != nil {
			*seen = append(*seen, in.Q)
		}
		return fn(ctx, in.Q)
	}, opts...)
	require.NoError(t, err)
	return tool
}

// chatOnly hides the scripted model's Stream method.
type chatOnly struct{ m *tt.Model }

func (c chatOnly) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	return c.m.Chat(ctx, req)
}

// TestStreamPolicies shows that Stream runs the tool loop with the same
// policies as Call: each subtest asserts the whole event sequence, the
// final Response, and (where the run is deterministic) that Call ends the
// same way.
func TestStreamPolicies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("tool error is reported and the loop continues", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{queryTool(t, "lookup", &runs, nil, func(context.Context, string) (string, error) {
			return "", errors.New("database unavailable")
		})}
		script := func() *tt.Model {
			return tt.NewModel(tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"rates"}`)), tt.Text("Sorry, no data."))
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model).Prompt("go").Tools(tools...).Stream(ctx))
		require.NoError(t, err)
		assert.Equal(t, []string{
			`call c1 lookup {"q":"rates"}`,
			`result r1 c1 lookup error=true: database unavailable`,
			`text "Sorry,"`, `text " no"`, `text " data."`,
			`done response=true: Sorry, no data.`,
		}, events)
		assert.EqualValues(t, 1, runs.Load())
		require.NotNil(t, resp)
		assert.Equal(t, "Sorry, no data.", resp.Content())
		assert.Equal(t, 2, resp.Rounds)
		require.Len(t, resp.Executions, 1)
		var te *toolcall.ToolError
		require.ErrorAs(t, resp.Executions[0].Err, &te)
		assert.EqualError(t, te.Err, "database unavailable")
		reqs := model.Requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, chat.Message{Role: chat.RoleTool, Content: "database unavailable", ToolCallID: "c1", ToolName: "lookup", IsError: true},
			reqs[1].Messages[2])
		assert.Len(t, resp.History, 4)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), nil, tools, resp, err)
	})

	t.Run("tool panic is reported without its stack", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{queryTool(t, "explode", &runs, nil, func(context.Context, string) (string, error) {
			panic("secret internal state")
		})}
		script := func() *tt.Model {
			return tt.NewModel(tt.ToolCalls(tt.Call("c1", "explode", `{"q":"x"}`)), tt.Text("It failed."))
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model).Prompt("go").Tools(tools...).Stream(ctx))
		require.NoError(t, err)
		assert.Equal(t, []string{
			`call c1 explode {"q":"x"}`,
			`result r1 c1 explode error=true: tool explode failed: internal error`,
			`text "It"`, `text " failed."`,
			`done response=true: It failed.`,
		}, events)
		require.NotNil(t, resp)
		assert.Equal(t, "It failed.", resp.Content())
		var te *toolcall.ToolError
		require.ErrorAs(t, resp.Executions[0].Err, &te)
		assert.Equal(t, "secret internal state", te.Panic)
		for _, body := range model.RequestBodies() {
			assert.NotContains(t, string(body), "secret internal state")
			assert.NotContains(t, string(body), "goroutine")
			assert.NotContains(t, string(body), ".go:")
		}
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), nil, tools, resp, err)
	})

	t.Run("unknown tool is reported and nothing runs", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{queryTool(t, "lookup", &runs, nil, func(context.Context, string) (string, error) { return "found", nil })}
		script := func() *tt.Model {
			return tt.NewModel(tt.ToolCalls(tt.Call("c1", "launchRockets", `{}`)), tt.Text("I cannot."))
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model).Prompt("go").Tools(tools...).Stream(ctx))
		require.NoError(t, err)
		assert.Equal(t, []string{
			`call c1 launchRockets {}`,
			`result r1 c1 launchRockets error=true: tool "launchRockets" does not exist; available tools: lookup`,
			`text "I"`, `text " cannot."`,
			`done response=true: I cannot.`,
		}, events)
		assert.Zero(t, runs.Load(), "no tool ran")
		reqs := model.Requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, chat.Message{Role: chat.RoleTool, Content: `tool "launchRockets" does not exist; available tools: lookup`,
			ToolCallID: "c1", ToolName: "launchRockets", IsError: true}, reqs[1].Messages[2])
		require.NotNil(t, resp)
		assert.ErrorIs(t, resp.Executions[0].Err, toolcall.ErrToolNotFound)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), nil, tools, resp, err)
	})

	t.Run("bad arguments are reported and the corrected call runs", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		var seen []string
		tools := []any{queryTool(t, "lookup", &runs, &seen, func(_ context.Context, q string) (string, error) { return q + ": 3%", nil })}
		script := func() *tt.Model {
			return tt.NewModel(
				tt.ToolCalls(tt.Call("c1", "lookup", `{"q":1}`)),
				tt.ToolCalls(tt.Call("c2", "lookup", `{"q":"rates"}`)),
				tt.Text("Rates: 3%."),
			)
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model).Prompt("go").Tools(tools...).Stream(ctx))
		require.NoError(t, err)
		assert.Equal(t, []string{
			`call c1 lookup {"q":1}`,
			`result r1 c1 lookup error=true: invalid arguments for tool "lookup": q: expected string, got number`,
			`call c2 lookup {"q":"rates"}`,
			`result r2 c2 lookup error=false: rates: 3%`,
			`text "Rates:"`, `text " 3%."`,
			`done response=true: Rates: 3%.`,
		}, events)
		assert.EqualValues(t, 1, runs.Load(), "the bad call did not run")
		assert.Equal(t, []string{"rates"}, seen)
		require.NotNil(t, resp)
		var ae *toolcall.ArgumentError
		assert.ErrorAs(t, resp.Executions[0].Err, &ae)
		assert.Equal(t, 3, resp.Rounds)
		assert.Len(t, resp.History, 6)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), nil, tools, resp, err)
	})

	t.Run("returnDirect ends without a second request", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{queryTool(t, "book", &runs, nil, func(_ context.Context, q string) (string, error) { return "booked " + q, nil },
			toolcall.WithReturnDirect(true))}
		script := func() *tt.Model {
			return tt.NewModel(tt.ToolCalls(tt.Call("c1", "book", `{"q":"table 4"}`)), tt.Text("unused"))
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model).Prompt("go").Tools(tools...).Stream(ctx))
		require.NoError(t, err)
		assert.Equal(t, []string{
			`call c1 book {"q":"table 4"}`,
			`result r1 c1 book error=false: booked table 4`,
			`done response=true: booked table 4`,
		}, events)
		assert.Len(t, model.Requests(), 1, "no second model request")
		assert.Equal(t, 1, model.Remaining())
		require.NotNil(t, resp)
		assert.True(t, resp.ReturnedDirect)
		assert.Equal(t, "booked table 4", resp.Content())
		assert.Equal(t, []string{"booked table 4"}, resp.DirectResults())
		assert.Equal(t, 1, resp.Rounds)
		assert.Len(t, resp.History, 3)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), nil, tools, resp, err)
	})

	t.Run("fatal tool error ends the stream with the response", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{
			queryTool(t, "charge", &runs, nil, func(context.Context, string) (string, error) {
				return "", fmt.Errorf("quota exhausted: %w", toolcall.ErrFatal)
			}),
			queryTool(t, "lookup", &runs, nil, func(context.Context, string) (string, error) { return "found", nil }),
		}
		opts := []toolcall.ClientOption{toolcall.WithLimits(toolcall.Limits{Concurrency: 1})}
		script := func() *tt.Model {
			return tt.NewModel(tt.ToolCalls(tt.Call("c1", "charge", `{"q":"10"}`), tt.Call("c2", "lookup", `{"q":"x"}`)), tt.Text("unused"))
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model, opts...).Prompt("go").Tools(tools...).Stream(ctx))
		assert.Equal(t, []string{
			`call c1 charge {"q":"10"}`,
			`call c2 lookup {"q":"x"}`,
			`result r1 c1 charge error=true: tool charge failed`,
			`result r1 c2 lookup error=true: tool call not executed: the request was aborted`,
			`error kind=0 response=true: toolcall: tool "charge" (call c1): quota exhausted: toolcall: fatal tool error`,
		}, events)
		require.ErrorIs(t, err, toolcall.ErrFatal)
		var te *toolcall.ToolError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, "c1", te.CallID)
		assert.EqualValues(t, 1, runs.Load(), "the sibling did not run after the abort")
		assert.Len(t, model.Requests(), 1)
		require.NotNil(t, resp)
		assert.Equal(t, []chat.Message{
			chat.UserMessage("go"),
			chat.AssistantMessage("", tt.Call("c1", "charge", `{"q":"10"}`), tt.Call("c2", "lookup", `{"q":"x"}`)),
			{Role: chat.RoleTool, Content: "tool charge failed", ToolCallID: "c1", ToolName: "charge", IsError: true},
			{Role: chat.RoleTool, Content: "tool call not executed: the request was aborted", ToolCallID: "c2", ToolName: "lookup", IsError: true},
		}, resp.History)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), opts, tools, resp, err)
	})

	t.Run("model error in round 2 keeps round 1", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{queryTool(t, "lookup", &runs, nil, func(context.Context, string) (string, error) { return "found", nil })}
		script := func() *tt.Model {
			return tt.NewModel(tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"x"}`)), tt.Fail(errors.New("overloaded")))
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model).Prompt("go").Tools(tools...).Stream(ctx))
		require.EqualError(t, err, "overloaded")
		assert.Equal(t, []string{
			`call c1 lookup {"q":"x"}`,
			`result r1 c1 lookup error=false: found`,
			`error kind=0 response=true: overloaded`,
		}, events)
		require.NotNil(t, resp)
		assert.Equal(t, 2, resp.Rounds, "the failed request counts")
		assert.Len(t, resp.Intermediate, 1)
		require.Len(t, resp.Executions, 1)
		assert.Equal(t, "found", resp.Executions[0].Result)
		assert.Equal(t, model.Requests()[1].Messages, resp.History, "the history is what round 2 sent")
		assert.Len(t, resp.History, 3)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), nil, tools, resp, err)
	})

	t.Run("iteration limit", func(t *testing.T) {
		t.Parallel()
		var runs atomic.Int32
		tools := []any{queryTool(t, "ping", &runs, nil, func(context.Context, string) (string, error) { return "pong", nil })}
		opts := []toolcall.ClientOption{toolcall.WithMaxIterations(2)}
		script := func() *tt.Model {
			return tt.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
				return tt.ToolCalls(tt.Call(fmt.Sprintf("c%d", len(req.Messages)), "ping", `{"q":"x"}`)).Response, nil
			})
		}
		model := script()
		events, resp, err := collectStream(toolcall.NewClient(model, opts...).Prompt("go").Tools(tools...).Stream(ctx))
		require.ErrorIs(t, err, toolcall.ErrMaxIterations)
		// The third reply's call is announced as it arrives; the limit then
		// stops the loop, so it never runs and is not in the history.
		assert.Equal(t, []string{
			`call c1 ping {"q":"x"}`,
			`result r1 c1 ping error=false: pong`,
			`call c3 ping {"q":"x"}`,
			`result r2 c3 ping error=false: pong`,
			`call c5 ping {"q":"x"}`,
			`error kind=0 response=true: toolcall: iteration limit reached: the model still called tools after 2 tool rounds`,
		}, events)
		assert.EqualValues(t, 2, runs.Load(), "exactly 2 tool rounds")
		assert.Len(t, model.Requests(), 3)
		require.NotNil(t, resp)
		assert.Equal(t, 3, resp.Rounds)
		assert.Len(t, resp.Executions, 2)
		assert.Len(t, resp.History, 5)
		assert.Equal(t, chat.RoleTool, resp.History[4].Role)
		assertValidHistory(t, resp.History)
		assertSameAsCall(t, script(), opts, tools, resp, err)
	})

	t.Run("cancel while a tool is blocked", func(t *testing.T) {
		t.Parallel()
		for _, calls := range [][]chat.ToolCall{
			{tt.Call("c1", "block", `{"q":"x"}`)},                                      // runs on the caller's goroutine
			{tt.Call("c1", "block", `{"q":"x"}`), tt.Call("c2", "block", `{"q":"y"}`)}, // runs concurrently
		} {
			t.Run(fmt.Sprint(len(calls), " calls"), func(t *testing.T) {
				var runs atomic.Int32
				entered := make(chan struct{}, len(calls))
				block := queryTool(t, "block", &runs, nil, func(ctx context.Context, _ string) (string, error) {
					entered <- struct{}{}
					select {
					case <-ctx.Done():
						return "", ctx.Err()
					case <-time.After(20 * time.Second): // a bug fails the test instead of hanging
						return "", errors.New("the tool's context was never cancelled")
					}
				})
				model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("unused"))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				cancelled := make(chan struct{})
				go func() {
					defer close(cancelled)
					for range calls {
						<-entered
					}
					cancel()
				}()
				type outcome struct {
					events []string
					resp   *toolcall.Response
					err    error
				}
				done := make(chan outcome, 1)
				start := time.Now()
				go func() {
					var o outcome
					o.events, o.resp, o.err = collectStream(toolcall.NewClient(model).Prompt("go").Tools(block).Stream(ctx))
					done <- o
				}()
				var o outcome
				select {
				case o = <-done:
				case <-time.After(30 * time.Second):
					t.Fatal("the stream did not end after the context was cancelled")
				}
				<-cancelled
				assert.Less(t, time.Since(start), 5*time.Second, "the stream ended promptly")
				require.ErrorIs(t, o.err, context.Canceled)
				want := []string{}
				for _, c := range calls {
					want = append(want, fmt.Sprintf("call %s %s %s", c.ID, c.Name, c.Arguments))
				}
				for _, c := range calls {
					want = append(want, fmt.Sprintf("result r1 %s %s error=true: tool call cancelled", c.ID, c.Name))
				}
				want = append(want, "error kind=0 response=true: context canceled")
				assert.Equal(t, want, o.events)
				assert.EqualValues(t, len(calls), runs.Load())
				assert.Len(t, model.Requests(), 1)
				require.NotNil(t, o.resp)
				assert.Len(t, o.resp.History, 2+len(calls))
				assertValidHistory(t, o.resp.History)
			})
		}
	})

	t.Run("breaking out stops the loop", func(t *testing.T) {
		t.Parallel()
		withText := tt.Reply{Response: &chat.Response{
			Message:      chat.AssistantMessage("checking", tt.Call("c1", "lookup", `{"q":"x"}`)),
			FinishReason: chat.FinishToolCalls,
		}}
		for _, tc := range []struct {
			name      string
			chatOnly  bool
			replies   []tt.Reply
			breakAt   int // break after this many events
			want      []string
			requests  int
			toolRuns  int32
			remaining int
		}{
			{"at the tool call", false, []tt.Reply{tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"x"}`)), tt.Text("unused")}, 1,
				[]string{`call c1 lookup {"q":"x"}`}, 1, 0, 1},
			{"at the tool result", false, []tt.Reply{tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"x"}`)), tt.Text("unused")}, 2,
				[]string{`call c1 lookup {"q":"x"}`, `result r1 c1 lookup error=false: found`}, 1, 1, 1},
			{"at the first of two results", false, []tt.Reply{tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"x"}`), tt.Call("c2", "lookup", `{"q":"y"}`)), tt.Text("unused")}, 3,
				[]string{`call c1 lookup {"q":"x"}`, `call c2 lookup {"q":"y"}`, `result r1 c1 lookup error=false: found`}, 1, 2, 1},
			{"in the text before a call", false, []tt.Reply{withText, tt.Text("unused")}, 1,
				[]string{`text "checking"`}, 1, 0, 1},
			{"in the final text", false, []tt.Reply{tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"x"}`)), tt.Text("one two three"), tt.Text("unused")}, 3,
				[]string{`call c1 lookup {"q":"x"}`, `result r1 c1 lookup error=false: found`, `text "one"`}, 2, 1, 1},
			{"chat-only model, in the text", true, []tt.Reply{withText, tt.Text("unused")}, 1,
				[]string{`text "checking"`}, 1, 0, 1},
			{"chat-only model, at the tool call", true, []tt.Reply{withText, tt.Text("unused")}, 2,
				[]string{`text "checking"`, `call c1 lookup {"q":"x"}`}, 1, 0, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				var runs atomic.Int32
				lookup := queryTool(t, "lookup", &runs, nil, func(context.Context, string) (string, error) { return "found", nil })
				model := tt.NewModel(tc.replies...)
				var cm chat.Model = model
				if tc.chatOnly {
					cm = chatOnly{model}
				}
				var events []string
				for ev, err := range toolcall.NewClient(cm).Prompt("go").Tools(lookup).Stream(context.Background()) {
					events = append(events, renderEvent(ev, err))
					if len(events) == tc.breakAt {
						break
					}
				}
				// The range statement has returned, so the loop has too:
				// nothing may ask the model again later.
				assert.Equal(t, tc.want, events)
				assert.Len(t, model.Requests(), tc.requests, "no model request after the break")
				assert.Equal(t, tc.remaining, model.Remaining())
				assert.Equal(t, tc.toolRuns, runs.Load())
			})
		}
	})
}
