package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

func weatherTool(t *testing.T, opts ...toolcall.ToolOption) toolcall.Tool {
	t.Helper()
	w, err := toolcall.NewFunc("currentWeather", "Get the weather in location", currentWeather, opts...)
	require.NoError(t, err)
	return w
}

// assertValidHistory checks that the history is valid to send again.
func assertValidHistory(t *testing.T, h []chat.Message) {
	t.Helper()
	assert.NoError(t, tt.CheckHistory(h))
}

func TestOneRoundTrip(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	weather, err := toolcall.NewFunc("currentWeather", "Get the weather in location",
		func(ctx context.Context, in WeatherRequest) (WeatherResponse, error) {
			runs.Add(1)
			return currentWeather(ctx, in)
		})
	require.NoError(t, err)
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("call_1", "currentWeather", `{"location":"Paris","unit":"C"}`)),
		tt.Text("It is 30 degrees in Paris."),
	)
	resp, err := toolcall.NewClient(model).Prompt().User("Weather in Paris?").Tools(weather).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "It is 30 degrees in Paris.", resp.Content())
	assert.EqualValues(t, 1, runs.Load())

	reqs := model.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].Tools, reqs[1].Tools)
	require.Len(t, reqs[0].Tools, 1)
	assert.Equal(t, "currentWeather", reqs[0].Tools[0].Name)
	assert.Equal(t, []chat.Message{
		chat.UserMessage("Weather in Paris?"),
		chat.AssistantMessage("", tt.Call("call_1", "currentWeather", `{"location":"Paris","unit":"C"}`)),
		{Role: chat.RoleTool, Content: `{"temp":30,"unit":"C"}`, ToolCallID: "call_1", ToolName: "currentWeather"},
	}, reqs[1].Messages)
	assert.JSONEq(t, `{"model":"","stream":false,"messages":[
		{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"currentWeather","arguments":"{\"location\":\"Paris\",\"unit\":\"C\"}"}}]},
		{"role":"tool","content":"{\"temp\":30,\"unit\":\"C\"}","tool_call_id":"call_1"}],
		"tools":[{"type":"function","function":{"name":"currentWeather","description":"Get the weather in location",
		"parameters":{"type":"object","properties":{"location":{"type":"string","description":"City name"},"unit":{"type":"string","enum":["C","F"]}},"required":["location","unit"],"additionalProperties":false}}}]}`,
		string(model.RequestBodies()[1]))
	assertValidHistory(t, resp.History)
	assert.Len(t, resp.History, 4)
}

// barrierTool blocks until n calls have started, proving they overlap.
func barrierTool(t *testing.T, name string, n int, started *sync.WaitGroup, gate chan struct{}) toolcall.Tool {
	t.Helper()
	var mu sync.Mutex
	count := 0
	tool, err := toolcall.NewFunc(name, "waits for its peers", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		started.Done()
		mu.Lock()
		count++
		if count == n {
			close(gate)
		}
		mu.Unlock()
		select {
		case <-gate:
			return fmt.Sprintf("%s-%d", name, in.N), nil
		case <-time.After(10 * time.Second):
			return "", errors.New("peers never started: calls are not concurrent")
		}
	})
	require.NoError(t, err)
	return tool
}

func TestParallelCalls(t *testing.T) {
	t.Parallel()
	var started sync.WaitGroup
	started.Add(2)
	gate := make(chan struct{})
	a := barrierTool(t, "a", 2, &started, gate)
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("c1", "a", `{"n":1}`), tt.Call("c2", "a", `{"n":2}`)),
		tt.Text("done"),
	)
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(a).Call(context.Background())
	require.NoError(t, err)
	require.Len(t, resp.Executions, 2)
	assert.False(t, resp.Executions[0].IsError, resp.Executions[0].Result)
	msgs := model.Requests()[1].Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, "c1", msgs[2].ToolCallID)
	assert.Equal(t, "a-1", msgs[2].Content)
	assert.Equal(t, "c2", msgs[3].ToolCallID)
	assert.Equal(t, "a-2", msgs[3].Content)
}

func goroutineID() string {
	var buf [64]byte
	return strings.Fields(string(buf[:runtimeStack(buf[:])]))[1]
}

func TestSingleCallRunsOnCallerGoroutine(t *testing.T) {
	t.Parallel()
	var toolGoroutine string
	tool, err := toolcall.NewFunc("where", "where it runs", func(context.Context, struct{}) (string, error) {
		toolGoroutine = goroutineID()
		return "here", nil
	})
	require.NoError(t, err)
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "where", ``)), tt.Text("ok"))
	_, err = toolcall.NewClient(model).Prompt("go").Tools(tool).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, goroutineID(), toolGoroutine)
}

func TestSequentialAndBound(t *testing.T) {
	t.Parallel()
	for _, opt := range []toolcall.ClientOption{toolcall.WithLimits(toolcall.Limits{Concurrency: 1}), toolcall.WithLimits(toolcall.Limits{Concurrency: 1})} {
		var running, peak atomic.Int32
		var order []int
		var mu sync.Mutex
		tool, err := toolcall.NewFunc("step", "one step", func(_ context.Context, in struct {
			N int `json:"n"`
		}) (int, error) {
			if r := running.Add(1); r > peak.Load() {
				peak.Store(r)
			}
			time.Sleep(time.Millisecond)
			mu.Lock()
			order = append(order, in.N)
			mu.Unlock()
			running.Add(-1)
			return in.N, nil
		})
		require.NoError(t, err)
		model := tt.NewModel(tt.ToolCalls(tt.Call("1", "step", `{"n":1}`), tt.Call("2", "step", `{"n":2}`), tt.Call("3", "step", `{"n":3}`)), tt.Text("ok"))
		_, err = toolcall.NewClient(model, opt).Prompt("go").Tools(tool).Call(context.Background())
		require.NoError(t, err)
		assert.EqualValues(t, 1, peak.Load())
		assert.Equal(t, []int{1, 2, 3}, order)
	}
}

func TestConcurrencyBound(t *testing.T) {
	t.Parallel()
	// Six calls under a bound of 2: each waits until two have run at once
	// (or a generous timeout), so the peak is 2 exactly when the bound holds.
	var running, peak atomic.Int32
	tool, err := toolcall.NewFunc("step", "one step", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		r := running.Add(1)
		for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
		}
		deadline := time.Now().Add(5 * time.Second)
		for peak.Load() < 2 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		running.Add(-1)
		return in.N, nil
	})
	require.NoError(t, err)
	var calls []chat.ToolCall
	for i := range 6 {
		calls = append(calls, tt.Call(fmt.Sprint(i), "step", fmt.Sprintf(`{"n":%d}`, i)))
	}
	model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("ok"))
	resp, err := toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{Concurrency: 2})).Prompt("go").Tools(tool).Call(context.Background())
	require.NoError(t, err)
	assert.EqualValues(t, 2, peak.Load())
	for i, e := range resp.Executions {
		assert.Equal(t, fmt.Sprint(i), e.Result, "results in call order")
	}
}

func TestEmptyAndNullArguments(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	tool, err := toolcall.NewFunc("ping", "ping", func(context.Context, struct{}) (string, error) {
		runs.Add(1)
		return "pong", nil
	})
	require.NoError(t, err)
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "ping", ``), tt.Call("2", "ping", `null`), tt.Call("3", "ping", ` `)), tt.Text("ok"))
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(tool).Call(context.Background())
	require.NoError(t, err)
	assert.EqualValues(t, 3, runs.Load())
	for _, e := range resp.Executions {
		assert.Equal(t, "pong", e.Result)
		assert.False(t, e.IsError)
	}
}

type failingTools struct {
	_ toolcall.Method `tool:"Fail" description:"fails"`
	_ toolcall.Method `tool:"Blank" description:"fails without a message"`
	_ toolcall.Method `tool:"Panic" description:"panics"`
	_ toolcall.Method `tool:"Fatal" description:"fails fatally"`
	_ toolcall.Method `tool:"OK" description:"works"`
}

func (failingTools) Fail() error { return errors.New("database unavailable") }
func (failingTools) Blank() error {
	return errors.New(" ")
}
func (failingTools) Panic() string { panic("secret internal state") }
func (failingTools) Fatal() error  { return fmt.Errorf("quota exhausted: %w", toolcall.ErrFatal) }
func (failingTools) OK() string    { return "fine" }

func TestToolErrorsGoToTheModel(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("1", "Fail", ``), tt.Call("2", "Blank", ``), tt.Call("3", "Panic", ``), tt.Call("4", "OK", ``)),
		tt.ToolCalls(tt.Call("5", "Panic", ``)), // a single call: inline path
		tt.Text("sorry"),
	)
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(failingTools{}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "sorry", resp.Content())
	require.Len(t, resp.Executions, 5)
	want := []struct {
		result  string
		isError bool
	}{
		{"database unavailable", true},
		{"tool Blank failed", true},
		{"tool Panic failed: internal error", true},
		{"fine", false},
		{"tool Panic failed: internal error", true},
	}
	for i, w := range want {
		assert.Equal(t, w.result, resp.Executions[i].Result, i)
		assert.Equal(t, w.isError, resp.Executions[i].IsError, i)
	}
	var te *toolcall.ToolError
	require.ErrorAs(t, resp.Executions[2].Err, &te)
	assert.Equal(t, "secret internal state", te.Panic)
	assert.Equal(t, "3", te.CallID)
	for _, body := range model.RequestBodies() {
		assert.NotContains(t, string(body), "secret internal state")
		assert.NotContains(t, string(body), "goroutine")
	}
	assert.True(t, model.Requests()[1].Messages[2].IsError)
}

func TestErrorHandlerAborts(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "Fail", ``), tt.Call("2", "OK", ``)), tt.Text("unused"))
	client := toolcall.NewClient(model, toolcall.WithToolErrorHandler(func(ctx context.Context, err *toolcall.ToolError) (string, error) {
		return "", err
	}))
	resp, err := client.Prompt("go").Tools(failingTools{}).Call(context.Background())
	var te *toolcall.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "Fail", te.Name)
	assert.EqualError(t, te.Err, "database unavailable")
	assert.Len(t, model.Requests(), 1, "no second request after an abort")
	require.NotNil(t, resp)
	assertValidHistory(t, resp.History)
}

func TestFatalErrorAbortsByDefault(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "Fatal", ``)), tt.Text("unused"))
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(failingTools{}).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrFatal)
	var te *toolcall.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "Fatal", te.Name)
	assertValidHistory(t, resp.History)
	assert.Len(t, resp.History, 3)
}

// A fatal call cancels its siblings; their failures echo that cancellation
// and must not hide the fatal error, even when they come first in call order.
func TestFatalErrorWinsOverCancelledSiblings(t *testing.T) {
	t.Parallel()
	waiter, err := toolcall.NewFunc("waiter", "waits", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	require.NoError(t, err)
	fatal, err := toolcall.NewFunc("fatal", "fails", func(context.Context, struct{}) (string, error) {
		return "", fmt.Errorf("quota: %w", toolcall.ErrFatal)
	})
	require.NoError(t, err)
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "waiter", ``), tt.Call("2", "fatal", ``)), tt.Text("unused"))
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(waiter, fatal).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrFatal)
	assert.NotErrorIs(t, err, context.Canceled)
	assertValidHistory(t, resp.History)
	require.Len(t, resp.Executions, 2)
	assert.True(t, resp.Executions[0].IsError, "the cancelled sibling is flagged")
}

func TestCancelDuringTool(t *testing.T) {
	// Not parallel: the leak check below must see only this test's goroutines.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	entered := make(chan struct{}, 2)
	slow, err := toolcall.NewFunc("slow", "slow", func(ctx context.Context, _ struct{}) (string, error) {
		entered <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	})
	require.NoError(t, err)
	for _, calls := range [][]chat.ToolCall{
		{tt.Call("1", "slow", ``)},
		{tt.Call("1", "slow", ``), tt.Call("2", "slow", ``)},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		model := tt.NewModel(tt.ToolCalls(calls...), tt.Text("unused"))
		go func() { <-entered; cancel() }()
		start := time.Now()
		resp, err := toolcall.NewClient(model).Prompt("go").Tools(slow).Call(ctx)
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 5*time.Second)
		assertValidHistory(t, resp.History)
		for len(entered) > 0 {
			<-entered
		}
		cancel()
	}
}

func TestBadArgumentsAreReportedAndCorrected(t *testing.T) {
	t.Parallel()
	type Args struct {
		City string   `json:"city"`
		Unit string   `json:"unit" jsonschema:"enum=C,enum=F"`
		Days int      `json:"days" jsonschema:"minimum=1,maximum=14"`
		Code string   `json:"code,omitempty" jsonschema:"pattern=^[A-Z]{3}$"`
		Tags []string `json:"tags,omitempty"`
	}
	var runs atomic.Int32
	tool, err := toolcall.NewFunc("forecast", "forecast", func(_ context.Context, in Args) (string, error) {
		runs.Add(1)
		return fmt.Sprintf("%s %d days", in.City, in.Days), nil
	})
	require.NoError(t, err)
	cases := []struct{ args, want string }{
		{`{"city":`, `invalid arguments for tool "forecast": city: arguments are not valid JSON: unexpected end of input`},
		{`{"city":"Oslo","unit":"C","days":"3"}`, `invalid arguments for tool "forecast": days: expected integer, got string`},
		{`{"unit":"C","days":3}`, `invalid arguments for tool "forecast": city: required field is missing`},
		{`{"city":"Oslo","unit":"K","days":3}`, `invalid arguments for tool "forecast": unit: must be one of "C", "F"`},
		{`{"city":"Oslo","unit":"C","days":30}`, `invalid arguments for tool "forecast": days: must be <= 14`},
		{`{"city":"Oslo","unit":"C","days":0}`, `invalid arguments for tool "forecast": days: must be >= 1`},
		{`{"city":"Oslo","unit":"C","days":3,"code":"osl"}`, `invalid arguments for tool "forecast": code: must match the pattern ^[A-Z]{3}$`},
		{`{"city":"Oslo","unit":"C","days":3,"tags":[1]}`, `invalid arguments for tool "forecast": tags[0]: expected string, got number`},
		{`{"city":"Oslo","unit":"C","days":3,"extra":1}`, `invalid arguments for tool "forecast": extra: unknown field; remove it`},
		{`{"days":2.5}`, `invalid arguments for tool "forecast": days: expected integer, got 2.5; city: required field is missing; unit: required field is missing`},
	}
	for _, c := range cases {
		runs.Store(0)
		model := tt.NewModel(
			tt.ToolCalls(tt.Call("bad", "forecast", c.args)),
			tt.ToolCalls(tt.Call("good", "forecast", `{"city":"Oslo","unit":"C","days":3}`)),
			tt.Text("Oslo: fine"),
		)
		resp, err := toolcall.NewClient(model).Prompt("go").Tools(tool).Call(context.Background())
		require.NoError(t, err, c.args)
		msgs := model.Requests()[1].Messages
		assert.Equal(t, c.want, msgs[len(msgs)-1].Content, c.args)
		assert.True(t, resp.Executions[0].IsError)
		var ae *toolcall.ArgumentError
		assert.ErrorAs(t, resp.Executions[0].Err, &ae)
		assert.EqualValues(t, 1, runs.Load(), "only the corrected call ran: %s", c.args)
		assert.Equal(t, "Oslo 3 days", resp.Executions[1].Result)
	}
}

func TestUnknownTools(t *testing.T) {
	t.Parallel()
	var secretRuns atomic.Int32
	secret, err := toolcall.NewFunc("deleteAll", "registered but not offered", func(context.Context, struct{}) (string, error) {
		secretRuns.Add(1)
		return "deleted", nil
	})
	require.NoError(t, err)
	var reg toolcall.Registry
	require.NoError(t, reg.Register(secret, weatherTool(t)))

	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "launchRockets", `{}`), tt.Call("2", "deleteAll", `{}`)), tt.Text("ok"))
	client := toolcall.NewClient(model, toolcall.WithRegistry(&reg))
	resp, err := client.Prompt("go").ToolNames("currentWeather").Call(context.Background())
	require.NoError(t, err)
	assert.Zero(t, secretRuns.Load(), "a tool not offered never runs")
	msgs := model.Requests()[1].Messages
	assert.Equal(t, `tool "launchRockets" does not exist; available tools: currentWeather`, msgs[2].Content)
	assert.Equal(t, `tool "deleteAll" does not exist; available tools: currentWeather`, msgs[3].Content)
	assert.ErrorIs(t, resp.Executions[0].Err, toolcall.ErrToolNotFound)

	model = tt.NewModel(tt.ToolCalls(tt.Call("1", "deleteAll", `{}`)), tt.Text("unused"))
	abortUnknown := func(ctx context.Context, te *toolcall.ToolError) (string, error) {
		if errors.Is(te, toolcall.ErrToolNotFound) {
			return "", te
		}
		return toolcall.DefaultToolErrorHandler(ctx, te)
	}
	client = toolcall.NewClient(model, toolcall.WithRegistry(&reg), toolcall.WithToolErrorHandler(abortUnknown))
	resp, err = client.Prompt("go").ToolNames("currentWeather").Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrToolNotFound)
	assert.Zero(t, secretRuns.Load())
	assertValidHistory(t, resp.History)
}

type directTools struct {
	_ toolcall.Method `tool:"Book" description:"book a table" returnDirect:"true"`
	_ toolcall.Method `tool:"Confirm" description:"confirm" returnDirect:"true"`
	_ toolcall.Method `tool:"Lookup" description:"look up"`
	_ toolcall.Method `tool:"BrokenDirect" description:"fails" returnDirect:"true"`
	_ toolcall.Method `tool:"Decide" description:"direct at run time"`
}

func (directTools) Book() string        { return "booked" }
func (directTools) Confirm() string     { return "confirmed" }
func (directTools) Lookup() string      { return "found" }
func (directTools) BrokenDirect() error { return errors.New("no tables") }
func (directTools) Decide(ctx context.Context) string {
	toolcall.SetReturnDirect(ctx)
	return "decided"
}

func TestReturnDirect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		calls    []chat.ToolCall
		direct   bool
		content  string
		requests int
	}{
		{"one direct tool", []chat.ToolCall{tt.Call("1", "Book", ``)}, true, "booked", 1},
		{"two direct tools", []chat.ToolCall{tt.Call("1", "Book", ``), tt.Call("2", "Confirm", ``)}, true, "booked\nconfirmed", 1},
		{"mixed", []chat.ToolCall{tt.Call("1", "Book", ``), tt.Call("2", "Lookup", ``)}, false, "final", 2},
		{"direct tool failed", []chat.ToolCall{tt.Call("1", "BrokenDirect", ``)}, false, "final", 2},
		{"direct at run time", []chat.ToolCall{tt.Call("1", "Decide", ``)}, true, "decided", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := tt.NewModel(tt.ToolCalls(tc.calls...), tt.Text("final"))
			resp, err := toolcall.NewClient(model).Prompt("go").Tools(directTools{}).Call(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.direct, resp.ReturnedDirect)
			assert.Equal(t, tc.content, resp.Content())
			assert.Len(t, model.Requests(), tc.requests)
			assertValidHistory(t, resp.History)
		})
	}
}

func TestIterationLimit(t *testing.T) {
	t.Parallel()
	always := func(req *chat.Request) (*chat.Response, error) {
		return tt.ToolCalls(tt.Call(fmt.Sprintf("c%d", len(req.Messages)), "ping", `{}`)).Response, nil
	}
	ping, err := toolcall.NewFunc("ping", "ping", func(context.Context, struct{}) (string, error) { return "pong", nil })
	require.NoError(t, err)
	for _, n := range []int{1, 3} {
		model := tt.NewFuncModel(always)
		resp, err := toolcall.NewClient(model, toolcall.WithMaxIterations(n)).Prompt("go").Tools(ping).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrMaxIterations)
		want := map[int]string{1: "1 tool round", 3: "3 tool rounds"}[n]
		require.EqualError(t, err, "toolcall: iteration limit reached: the model still called tools after "+want)
		assert.Len(t, resp.Executions, n, "exactly N tool rounds")
		assert.Len(t, model.Requests(), n+1)
		assertValidHistory(t, resp.History)
		last := resp.History[len(resp.History)-1]
		assert.Equal(t, chat.RoleTool, last.Role, "the unanswered calls are not in the history")

		// One round fewer is enough when the model stops in time.
		script := []tt.Reply{}
		for range n {
			script = append(script, tt.ToolCalls(tt.Call("x", "ping", `{}`)))
		}
		model = tt.NewModel(append(script, tt.Text("done"))...)
		resp, err = toolcall.NewClient(model, toolcall.WithMaxIterations(n)).Prompt("go").Tools(ping).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "done", resp.Content())
	}
}

func TestForcedToolChoiceFirstRoundOnly(t *testing.T) {
	t.Parallel()
	for _, choice := range []chat.ToolChoice{{Mode: chat.ToolChoiceRequired}, {Name: "currentWeather"}} {
		model := tt.NewModel(tt.ToolCalls(tt.Call("1", "currentWeather", `{"location":"Paris","unit":"C"}`)), tt.Text("done"))
		_, err := toolcall.NewClient(model).Prompt("go").Tools(weatherTool(t)).ToolChoice(choice).Call(context.Background())
		require.NoError(t, err)
		reqs := model.Requests()
		assert.Equal(t, choice, reqs[0].ToolChoice)
		assert.Equal(t, chat.ToolChoice{Mode: chat.ToolChoiceAuto}, reqs[1].ToolChoice)
		assert.NotContains(t, string(model.RequestBodies()[1]), `"tool_choice":"required"`)
	}
}

func TestToolContext(t *testing.T) {
	t.Parallel()
	var seen []map[string]any
	var mu sync.Mutex
	probe, err := toolcall.NewFunc("probe", "probe", func(ctx context.Context, _ struct{}) (string, error) {
		m := map[string]any{}
		for k, v := range toolcall.ToolContextFrom(ctx).All() {
			m[k] = v
		}
		info, ok := toolcall.CallInfoFrom(ctx)
		m["_call"] = fmt.Sprintf("%v %s %s %d %d", ok, info.ID, info.Name, info.Round, len(info.History))
		mu.Lock()
		seen = append(seen, m)
		mu.Unlock()
		return "ok", nil
	})
	require.NoError(t, err)
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "probe", ``)), tt.Text("done"))
	client := toolcall.NewClient(model)
	ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(map[string]any{"tenantId": "default-tenant", "region": "eu"}))
	_, err = client.Prompt("go").Tools(probe).ToolContext(map[string]any{"tenantId": "acme-secret-tenant"}).Call(ctx)
	require.NoError(t, err)
	require.Len(t, seen, 1)
	assert.Equal(t, map[string]any{"tenantId": "acme-secret-tenant", "region": "eu", "_call": "true c1 probe 1 2"}, seen[0])
	for _, body := range model.RequestBodies() {
		assert.NotContains(t, string(body), "acme-secret-tenant")
		assert.NotContains(t, string(body), "default-tenant")
		assert.NotContains(t, string(body), "tenantId")
	}

	// No tool context at all: the tool gets an empty one.
	var updated []Customer
	model = tt.NewModel(tt.ToolCalls(tt.Call("c1", "CustomerInfo", `{"id":1}`)), tt.Text("done"))
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(CustomerTools{Updated: &updated}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, `{"id":1,"name":"Ada","tenant":""}`, resp.Executions[0].Result)
}

func TestResolutionByName(t *testing.T) {
	t.Parallel()
	var reg toolcall.Registry
	require.NoError(t, reg.Register(weatherTool(t), DateTimeTools{Now: time.Now, Alarms: new([]time.Time)}))
	assert.Equal(t, []string{"currentWeather", "getCurrentDateTime", "setAlarm"}, reg.Names())
	assert.ErrorIs(t, reg.Register(weatherTool(t)), toolcall.ErrInvalidTool)

	model := tt.NewModel(tt.Text("hi"))
	client := toolcall.NewClient(model, toolcall.WithRegistry(&reg))
	_, err := client.Prompt("go").ToolNames("currentWeather").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "currentWeather", model.Requests()[0].Tools[0].Name)

	_, err = client.Prompt("go").ToolNames("nope").Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrToolNotFound)
	assert.Contains(t, err.Error(), `"nope"`)
	assert.Len(t, model.Requests(), 1, "no request for an unknown name")
}

func TestCallToolsReplaceDefaults(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.Text("a"), tt.Text("b"))
	client := toolcall.NewClient(model, toolcall.WithTools(weatherTool(t)))
	_, err := client.Prompt("go").Call(context.Background())
	require.NoError(t, err)
	_, err = client.Prompt("go").Tools(Calculator{}).Call(context.Background())
	require.NoError(t, err)
	reqs := model.Requests()
	assert.Equal(t, []string{"currentWeather"}, toolNames(reqs[0].Tools))
	assert.Equal(t, []string{"Sum", "SquareRoot"}, toolNames(reqs[1].Tools))
}

func toolNames(defs []chat.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestDynamicToolProvider(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	provider := toolsetFunc(func(ctx context.Context, req *chat.Request) ([]toolcall.Tool, error) {
		asked.Add(1)
		if strings.Contains(req.Messages[0].Content, "weather") {
			return []toolcall.Tool{weatherTool(t)}, nil
		}
		return nil, nil
	})
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "currentWeather", `{"location":"Paris","unit":"C"}`)), tt.Text("done"), tt.Text("plain"))
	client := toolcall.NewClient(model, toolcall.WithToolset(provider))
	resp, err := client.Prompt("weather in Paris?").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, `{"temp":30,"unit":"C"}`, resp.Executions[0].Result)
	assert.EqualValues(t, 2, asked.Load(), "asked before each model request")
	_, err = client.Prompt("hello").Call(context.Background())
	require.NoError(t, err)
	assert.Empty(t, model.Requests()[2].Tools)
}

func TestResponseRecord(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)),
		tt.ToolCalls(tt.Call("2", "SquareRoot", `{"x":9}`), tt.Call("3", "SquareRoot", `{"x":-1}`)),
		tt.Text("3 and 3"),
	)
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(Calculator{}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 3, resp.Rounds)
	assert.Len(t, resp.Intermediate, 3)
	assert.Equal(t, chat.Usage{PromptTokens: 30, CompletionTokens: 15, TotalTokens: 45}, resp.Usage)
	require.Len(t, resp.Executions, 3)
	e := resp.Executions
	assert.Equal(t, "Sum", e[0].Call.Name)
	assert.JSONEq(t, `{"a":1,"b":2}`, string(e[0].Call.Arguments))
	assert.Equal(t, "3", e[0].Result)
	assert.Equal(t, 1, e[0].Round)
	assert.Equal(t, "3", e[1].Result)
	assert.Equal(t, 2, e[2].Round)
	assert.True(t, e[2].IsError)
	assert.Equal(t, "x must not be negative", e[2].Result)
	for _, x := range e {
		assert.Positive(t, x.Duration)
	}
	assert.Len(t, resp.History, 7)
}

func TestManagerUserLoop(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)), tt.Text("3"))
	client := toolcall.NewClient(model, toolcall.WithEligibility(never))
	resp, err := client.Prompt("1+2?").Tools(Calculator{}).Call(context.Background())
	require.NoError(t, err)
	require.Len(t, resp.Message.ToolCalls, 1, "tool calls come back untouched")
	assert.Empty(t, resp.Executions)

	tools, err := toolcall.ToolsFrom(Calculator{})
	require.NoError(t, err)
	m := toolcall.NewManager()
	defs, err := m.Definitions(tools)
	require.NoError(t, err)
	req := &chat.Request{Messages: resp.History[:1], Tools: defs}
	ex, err := m.Execute(context.Background(), tools, req, resp.Intermediate[0])
	require.NoError(t, err)
	assert.Equal(t, "3", ex.Executions[0].Result)
	req.Messages = ex.History
	final, err := model.Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "3", final.Message.Content)
	assertValidHistory(t, ex.History)

	// An eligibility predicate vetoes execution.
	model = tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)))
	client = toolcall.NewClient(model, toolcall.WithEligibility(func(r *chat.Response) bool { return false }))
	resp, err = client.Prompt("1+2?").Tools(Calculator{}).Call(context.Background())
	require.NoError(t, err)
	assert.Empty(t, resp.Executions)
	assert.Len(t, resp.Message.ToolCalls, 1)
}

func TestManagerExecuteToolContextAndRound(t *testing.T) {
	t.Parallel()
	var got []string
	probe, err := toolcall.NewFunc("probe", "reports what it sees", func(ctx context.Context, _ struct{}) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		tc := toolcall.ToolContextFrom(ctx)
		got = append(got, fmt.Sprintf("round %d tenant %v user %v", info.Round, tc.Value("tenant"), tc.Value("user")))
		return "ok", nil
	})
	require.NoError(t, err)
	tools := []toolcall.Tool{probe}
	m := toolcall.NewManager()
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("go")}}
	ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(map[string]any{"tenant": "default", "user": "u1"}))
	for i := range 2 {
		resp := tt.ToolCalls(tt.Call(fmt.Sprint(i), "probe", `{}`)).Response
		ex, err := m.Execute(ctx, tools, req, resp)
		require.NoError(t, err)
		req.Messages = ex.History
	}
	assert.Equal(t, []string{"round 1 tenant default user u1", "round 2 tenant default user u1"}, got)
}

func TestHooks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []string
	rec := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)), tt.Text("3"))
	client := toolcall.NewClient(model, toolcall.WithHooks(toolcall.Hooks{
		BeforeModel: func(ctx context.Context, req *chat.Request) context.Context {
			rec(fmt.Sprint("model ", len(req.Messages)))
			return ctx
		},
		AfterModel: func(ctx context.Context, mc toolcall.ModelCall) {
			rec(fmt.Sprint("model done round ", mc.Round, " messages ", len(mc.Request.Messages), " calls ", mc.Response.HasToolCalls(), " ", mc.Err, " timed ", mc.Duration > 0))
		},
		BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			rec("tool " + call.Name + " " + string(call.Arguments))
			return ctx
		},
		AfterTool: func(ctx context.Context, e toolcall.ToolExecution) {
			rec(fmt.Sprint("tool done ", e.Call.Name, " ", string(e.Call.Arguments), " -> ", e.Result, " ", e.IsError, " ", e.Err, " timed ", e.Duration > 0))
		},
	}))
	_, err := client.Prompt("go").Tools(Calculator{}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"model 1", "model done round 1 messages 1 calls true <nil> timed true",
		`tool Sum {"a":1,"b":2}`, `tool done Sum {"a":1,"b":2} -> 3 false <nil> timed true`,
		"model 3", "model done round 2 messages 3 calls false <nil> timed true",
	}, events)

	// Failures reach the hooks too: the model's error, and a tool's.
	events = nil
	failing := toolcall.NewClient(tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":"x","b":2}`)), tt.Fail(errors.New("overloaded"))),
		toolcall.WithHooks(toolcall.Hooks{
			AfterModel: func(ctx context.Context, mc toolcall.ModelCall) {
				rec(fmt.Sprint("model done round ", mc.Round, " nil response ", mc.Response == nil, " ", mc.Err))
			},
			AfterTool: func(ctx context.Context, e toolcall.ToolExecution) {
				rec(fmt.Sprint("tool done ", e.Result, " ", e.IsError, " ", e.Err != nil))
			},
		}))
	_, err = failing.Prompt("go").Tools(Calculator{}).Call(context.Background())
	require.ErrorContains(t, err, "overloaded")
	assert.Equal(t, []string{
		"model done round 1 nil response false <nil>",
		`tool done invalid arguments for tool "Sum": a: expected number, got string true true`,
		"model done round 2 nil response true overloaded",
	}, events)
}

func TestConcurrentClient(t *testing.T) {
	t.Parallel()
	model := tt.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == chat.RoleTool {
			return tt.Text("answer " + last.Content).Response, nil
		}
		return tt.ToolCalls(tt.Call("a", "Sum", `{"a":1,"b":2}`), tt.Call("b", "Sum", `{"a":3,"b":4}`)).Response, nil
	})
	client := toolcall.NewClient(model, toolcall.WithTools(Calculator{}))
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Prompt(fmt.Sprint("q", i)).ToolContext(map[string]any{"i": i}).Call(context.Background())
			if err == nil && resp.Content() != "answer 7" {
				err = fmt.Errorf("got %q", resp.Content())
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestToolTimeout(t *testing.T) {
	t.Parallel()
	// The fast tool finishes while the slow one is still running (it waits
	// for it), and the slow one is stopped by its timeout, not by the fast
	// one finishing.
	fastDone := make(chan struct{})
	var sawFast atomic.Bool
	slow, err := toolcall.NewFunc("slow", "slow", func(ctx context.Context, _ struct{}) (string, error) {
		select {
		case <-fastDone:
			sawFast.Store(true)
		case <-ctx.Done():
			return "", ctx.Err()
		}
		<-ctx.Done()
		return "", ctx.Err()
	})
	require.NoError(t, err)
	fast, err := toolcall.NewFunc("fast", "fast", func(context.Context, struct{}) (string, error) {
		close(fastDone)
		return "quick", nil
	})
	require.NoError(t, err)
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "slow", ``), tt.Call("2", "fast", ``)), tt.Text("done"))
	resp, err := toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{ToolTimeout: 500 * time.Millisecond})).Prompt("go").Tools(slow, fast).Call(context.Background())
	require.NoError(t, err)
	assert.True(t, sawFast.Load(), "the fast tool did not finish while the slow one ran")
	assert.True(t, resp.Executions[0].IsError)
	assert.Equal(t, "timed out after 500ms: context deadline exceeded", resp.Executions[0].Result)
	assert.False(t, resp.Executions[1].IsError)
	assert.Equal(t, "quick", resp.Executions[1].Result)
	assert.Equal(t, "done", resp.Content())
}

func TestDuplicateToolNamesInRequest(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.Text("unused"))
	_, err := toolcall.NewClient(model).Prompt("go").Tools(weatherTool(t), weatherTool(t)).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrInvalidTool)
	require.EqualError(t, err, `toolcall: tool "currentWeather": duplicate tool name: "currentWeather" is given by func tool (func(context.Context, toolcall_test.WeatherRequest) (toolcall_test.WeatherResponse, error)) and func tool (func(context.Context, toolcall_test.WeatherRequest) (toolcall_test.WeatherResponse, error))`)
	assert.Empty(t, model.Requests())
}

func TestSameToolTwiceIsOfferedOnce(t *testing.T) {
	t.Parallel()
	weather := weatherTool(t)
	reg := &toolcall.Registry{}
	require.NoError(t, reg.Register(weather))
	dynamic := toolsetFunc(func(context.Context, *chat.Request) ([]toolcall.Tool, error) {
		return []toolcall.Tool{weather, nil}[:1], nil
	})
	model := tt.NewModel(tt.Text("ok"))
	client := toolcall.NewClient(model, toolcall.WithRegistry(reg), toolcall.WithToolset(dynamic))
	_, err := client.Prompt("go").Tools(weather, weather).ToolNames("currentWeather").Call(context.Background())
	require.NoError(t, err)
	require.Len(t, model.Requests(), 1)
	require.Len(t, model.Requests()[0].Tools, 1)
	assert.Equal(t, "currentWeather", model.Requests()[0].Tools[0].Name)
}

func TestModelErrorKeepsHistory(t *testing.T) {
	t.Parallel()
	boom := errors.New("server on fire")
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)), tt.Fail(boom))
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(Calculator{}).Call(context.Background())
	require.ErrorIs(t, err, boom)
	assert.Len(t, resp.History, 3)
	assertValidHistory(t, resp.History)
	assert.Equal(t, 2, resp.Rounds, "the failed request counts")
	assert.Len(t, resp.Intermediate, 1)
}

func TestStream(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)), tt.Text("The sum is 3."))
	var kinds []toolcall.EventKind
	var text strings.Builder
	var final *toolcall.Response
	for ev, err := range toolcall.NewClient(model).Prompt("1+2?").Tools(Calculator{}).Stream(context.Background()) {
		require.NoError(t, err)
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case toolcall.EventText:
			text.WriteString(ev.Text)
		case toolcall.EventToolResult:
			assert.Equal(t, "3", ev.Execution.Result)
		case toolcall.EventDone:
			final = ev.Response
		}
	}
	assert.Equal(t, []toolcall.EventKind{toolcall.EventToolCall, toolcall.EventToolResult, toolcall.EventText, toolcall.EventText, toolcall.EventText, toolcall.EventText, toolcall.EventDone}, kinds)
	assert.Equal(t, "The sum is 3.", text.String())
	require.NotNil(t, final)
	assert.Equal(t, "The sum is 3.", final.Content())

	// Stopping early stops the loop: no second request.
	model = tt.NewModel(tt.ToolCalls(tt.Call("1", "Sum", `{"a":1,"b":2}`)), tt.Text("unused"))
	for range toolcall.NewClient(model).Prompt("1+2?").Tools(Calculator{}).Stream(context.Background()) {
		break
	}
	assert.Len(t, model.Requests(), 1)
}

func TestStrictTools(t *testing.T) {
	t.Parallel()
	type Args struct {
		City string `json:"city"`
		Unit string `json:"unit,omitempty"`
	}
	tool, err := toolcall.NewFunc("w", "w", func(_ context.Context, in Args) (string, error) { return in.City + in.Unit, nil })
	require.NoError(t, err)
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "w", `{"city":"Oslo","unit":null}`)), tt.Text("ok"))
	resp, err := toolcall.NewClient(model, toolcall.WithStrictTools()).Prompt("go").Tools(tool).Call(context.Background())
	require.NoError(t, err)
	def := model.Requests()[0].Tools[0]
	assert.True(t, def.Strict)
	assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":["string","null"]}},"required":["city","unit"],"additionalProperties":false}`, string(def.InputSchema))
	assert.Equal(t, "Oslo", resp.Executions[0].Result, "null is accepted for an optional field")
}

var _ = json.RawMessage{}

func TestClientAsModel(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "CustomerInfo", `{"id":3}`)), tt.Text("Ada works for acme"))
	client := toolcall.NewClient(model, toolcall.WithTools(CustomerTools{Updated: new([]Customer)}))
	var m chat.Model = client.AsModel()
	ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(map[string]any{"tenantId": "acme"}))
	resp, err := m.Chat(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("who is 3?")}})
	require.NoError(t, err)
	assert.Equal(t, "Ada works for acme", resp.Message.Content)
	assert.Equal(t, 30, resp.Usage.TotalTokens)
	msgs := model.Requests()[1].Messages
	assert.Equal(t, `{"id":3,"name":"Ada","tenant":"acme"}`, msgs[2].Content)
}

func TestDefaultToolErrorHandlerText(t *testing.T) {
	for _, tc := range []struct {
		te   toolcall.ToolError
		want string
	}{
		{toolcall.ToolError{Name: "pay", Err: errors.New("card declined")}, "card declined"},
		{toolcall.ToolError{Name: "pay", Err: errors.New("  ")}, "tool pay failed"},
		{toolcall.ToolError{Name: "pay"}, "tool pay failed"},
		{toolcall.ToolError{Name: "pay", Err: fmt.Errorf("service down: %w", toolcall.ErrFatal)}, "tool pay failed"},
		{toolcall.ToolError{Name: "pay", Err: toolcall.ErrFatal}, "tool pay failed"},
		{toolcall.ToolError{Name: "pay", Panic: "boom", Err: errors.New("panic: boom")}, "tool pay failed: internal error"},
	} {
		text, _ := toolcall.DefaultToolErrorHandler(context.Background(), &tc.te)
		require.Equal(t, tc.want, text)
	}
}

func TestNilModel(t *testing.T) {
	t.Parallel()
	c := toolcall.NewClient(nil)
	_, err := c.Prompt("hi").Call(context.Background())
	require.EqualError(t, err, "toolcall: the Client has no model (NewClient was given nil)")
	var errs []string
	for _, err := range c.Prompt("hi").Stream(context.Background()) {
		errs = append(errs, fmt.Sprint(err))
	}
	assert.Equal(t, []string{"toolcall: the Client has no model (NewClient was given nil)"}, errs)
}

func TestConcurrentRegistryAndManager(t *testing.T) {
	t.Parallel()
	var reg toolcall.Registry
	m := toolcall.NewManager()
	sum, err := toolcall.ToolsFrom(Calculator{})
	require.NoError(t, err)
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("go")}}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 100 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			name := fmt.Sprint("echo_", i)
			tool := toolcall.MustFunc(name, "echo", func(context.Context, struct{}) (string, error) { return name, nil })
			if err := reg.Register(tool); err != nil {
				errs <- err
				return
			}
			if got, ok := reg.Lookup(name); !ok || got != tool {
				errs <- fmt.Errorf("%s: resolved %v %v", name, got, ok)
			}
			_ = reg.Names()
		}()
		go func() {
			defer wg.Done()
			resp := tt.ToolCalls(tt.Call("a", "Sum", fmt.Sprintf(`{"a":%d,"b":1}`, i)), tt.Call("b", "Sum", `{"a":0,"b":0}`)).Response
			ex, err := m.Execute(context.Background(), sum, req, resp)
			if err == nil && (ex.Executions[0].Result != fmt.Sprint(i+1) || ex.Executions[1].Result != "0" || len(ex.History) != 4) {
				err = fmt.Errorf("call %d: %+v", i, ex.Executions)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Len(t, reg.Names(), 100)
	assert.Len(t, req.Messages, 1, "the request is not modified")
}

type slowTools struct {
	_ toolcall.Method `tool:"Wait" timeout:"30ms"`
}

func (slowTools) Wait(ctx context.Context) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

func TestPerToolTimeout(t *testing.T) {
	t.Parallel()
	blocked, err := toolcall.NewFunc("blocked", "waits for its context", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, toolcall.WithTimeout(20*time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, 20*time.Millisecond, blocked.Metadata().Timeout)
	quick := toolcall.MustFunc("quick", "quick", func(context.Context, struct{}) (string, error) { return "done", nil })
	model := tt.NewModel(tt.ToolCalls(tt.Call("1", "blocked", ``), tt.Call("2", "Wait", ``), tt.Call("3", "quick", ``)), tt.Text("ok"))
	// The tools' own timeouts win over the client's, which is far longer.
	resp, err := toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{ToolTimeout: time.Minute})).
		Prompt("go").Tools(blocked, slowTools{}, quick).Call(context.Background())
	require.NoError(t, err)
	require.Len(t, resp.Executions, 3)
	assert.Equal(t, "timed out after 20ms: context deadline exceeded", resp.Executions[0].Result)
	assert.Equal(t, "timed out after 30ms: context deadline exceeded", resp.Executions[1].Result)
	assert.Equal(t, "done", resp.Executions[2].Result)
	assert.False(t, resp.Executions[2].IsError)
}

func TestCallsWithoutIDs(t *testing.T) {
	t.Parallel()
	// A model that sends no ids (or repeats one) gets unique ones, the same
	// in the stream's events, the executions, the response and the history.
	script := func() *tt.Model {
		return tt.NewModel(tt.ToolCalls(tt.Call("", "Sum", `{"a":1,"b":2}`), tt.Call("", "Sum", `{"a":3,"b":4}`), tt.Call("x", "Sum", `{"a":0,"b":0}`), tt.Call("x", "Sum", `{"a":0,"b":1}`)), tt.Text("done"))
	}
	want := []string{"call_0", "call_1", "x", "x_1"}
	client := toolcall.NewClient(script())
	var events []string
	var resp *toolcall.Response
	for ev, err := range client.Prompt("go").Tools(Calculator{}).Stream(context.Background()) {
		require.NoError(t, err)
		switch ev.Kind {
		case toolcall.EventToolCall:
			events = append(events, "call "+ev.ToolCall.ID)
		case toolcall.EventToolResult:
			events = append(events, "result "+ev.Execution.Call.ID)
		case toolcall.EventDone:
			resp = ev.Response
		}
	}
	assert.Equal(t, []string{"call call_0", "call call_1", "call x", "call x_1", "result call_0", "result call_1", "result x", "result x_1"}, events)
	require.NotNil(t, resp)
	var ids []string
	for _, c := range resp.Intermediate[0].Message.ToolCalls {
		ids = append(ids, c.ID)
	}
	assert.Equal(t, want, ids)
	assertValidHistory(t, resp.History)

	model := script()
	resp, err := toolcall.NewClient(model).Prompt("go").Tools(Calculator{}).Call(context.Background())
	require.NoError(t, err)
	assertValidHistory(t, resp.History)
	assert.Equal(t, "", model.Requests()[0].Messages[0].ToolCallID)
	sent := model.Requests()[1].Messages
	for i, id := range want {
		assert.Equal(t, id, sent[1].ToolCalls[i].ID)
		assert.Equal(t, id, sent[2+i].ToolCallID)
	}
}

func TestNilReplyReachesAfterModel(t *testing.T) {
	t.Parallel()
	var seen []error
	model := tt.NewFuncModel(func(*chat.Request) (*chat.Response, error) { return nil, nil })
	client := toolcall.NewClient(model, toolcall.WithHooks(toolcall.Hooks{
		AfterModel: func(_ context.Context, mc toolcall.ModelCall) { seen = append(seen, mc.Err) },
	}))
	_, err := client.Prompt("go").Call(context.Background())
	require.ErrorIs(t, err, chat.ErrBadResponse)
	require.Len(t, seen, 1)
	assert.ErrorIs(t, seen[0], chat.ErrBadResponse)
}

func TestZeroValueManager(t *testing.T) {
	t.Parallel()
	var m toolcall.Manager
	tools, err := toolcall.ToolsFrom(Calculator{})
	require.NoError(t, err)
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("go")}}
	ex, err := m.Execute(context.Background(), tools, req, tt.ToolCalls(tt.Call("1", "Sum", `{"a":[[1]],"b":2}`), tt.Call("2", "Sum", `{"a":1,"b":2}`)).Response)
	require.NoError(t, err)
	assert.Equal(t, `invalid arguments for tool "Sum": a: expected number, got array`, ex.Executions[0].Result)
	assert.Equal(t, "3", ex.Executions[1].Result)
}

// toolsetFunc adapts a func to a toolcall.Toolset.
type toolsetFunc func(ctx context.Context, req *chat.Request) ([]toolcall.Tool, error)

func (f toolsetFunc) Tools(ctx context.Context, req *chat.Request) ([]toolcall.Tool, error) {
	return f(ctx, req)
}

// never declines every reply's tool calls, for a loop of the test's own.
func never(*chat.Response) bool { return false }

// TestStrictWithAGivenSchema: WithStrict sends a schema given by
// WithInputSchema in its strict variant and checks calls against it, for
// every kind of tool, as it does a reflected schema.
func TestStrictWithAGivenSchema(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"}},"required":["city"]}`)
	strict := `{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":["string","null"]}},"required":["city","unit"]}`
	type Args struct {
		City string  `json:"city"`
		Unit *string `json:"unit"`
	}
	fn := func(_ context.Context, in Args) (string, error) { return in.City, nil }
	kinds := map[string]func() (toolcall.Tool, error){
		"NewFunc": func() (toolcall.Tool, error) {
			return toolcall.NewFunc("w", "w", fn, toolcall.WithInputSchema(schema), toolcall.WithStrict(true))
		},
		"NewTool": func() (toolcall.Tool, error) {
			return toolcall.NewTool(chat.ToolDefinition{Name: "w", InputSchema: schema, Strict: true},
				func(context.Context, json.RawMessage) (string, error) { return "Oslo", nil })
		},
		"NewMethod": func() (toolcall.Tool, error) {
			return toolcall.NewMethod(strictMethods{}, "W", toolcall.WithName("w"), toolcall.WithInputSchema(schema), toolcall.WithStrict(true))
		},
	}
	for kind, mk := range kinds {
		t.Run(kind, func(t *testing.T) {
			tool, err := mk()
			require.NoError(t, err)
			def := tool.Definition()
			assert.True(t, def.Strict)
			assert.JSONEq(t, strict, string(def.InputSchema))
			model := tt.NewModel(tt.ToolCalls(tt.Call("1", "w", `{"city":"Oslo"}`), tt.Call("2", "w", `{"city":"Oslo","unit":null}`)), tt.Text("ok"))
			resp, err := toolcall.NewClient(model).Prompt("go").Tools(tool).Call(context.Background())
			require.NoError(t, err)
			assert.True(t, resp.Executions[0].IsError, "unit is required in the strict variant: %s", resp.Executions[0].Result)
			assert.False(t, resp.Executions[1].IsError, resp.Executions[1].Result)
		})
	}
}

type strictMethods struct{}

type strictArgs struct {
	City string  `json:"city"`
	Unit *string `json:"unit"`
}

func (strictMethods) W(_ context.Context, in strictArgs) (string, error) { return in.City, nil }
