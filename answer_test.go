package toolcall_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// Order is the typed answer of the tests.
type Order struct {
	Item string `json:"item" jsonschema:"description=What to order"`
	Qty  int    `json:"qty" jsonschema:"minimum=1,maximum=10"`
	Size string `json:"size" jsonschema:"enum=S,enum=M,enum=L"`
}

func stockTool() toolcall.Tool {
	return toolcall.MustFunc("stock", "Sizes in stock", func(ctx context.Context, _ struct{}) (string, error) {
		return "M and L", nil
	})
}

func answer(id, args string) tt.Reply {
	return tt.ToolCalls(tt.Call(id, "final_answer", args))
}

// TestAnswerDecodes: tools run first, then the answer is decoded into the
// caller's value; the model was offered the answer tool and required to
// call a tool.
func TestAnswerDecodes(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "stock", `{}`)), answer("a1", `{"item":"shirt","qty":2,"size":"M"}`))
	var got Order
	resp, err := toolcall.NewClient(model, toolcall.WithTools(stockTool())).Prompt("Order two shirts in a size in stock").Answer(&got).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Order{Item: "shirt", Qty: 2, Size: "M"}, got)
	assert.Zero(t, resp.Repairs)
	assert.Equal(t, 2, resp.Rounds)
	require.Len(t, resp.Executions, 2)
	assert.Equal(t, "M and L", resp.Executions[0].Result)
	require.NoError(t, tt.CheckHistory(resp.History))
	req := model.Requests()[0]
	assert.Equal(t, chat.ToolChoice{Mode: chat.ToolChoiceRequired}, req.ToolChoice)
	require.Len(t, req.Tools, 2)
	assert.Equal(t, "final_answer", req.Tools[1].Name)
	assert.JSONEq(t, `{"type":"object","properties":{"item":{"type":"string","description":"What to order"},"qty":{"type":"integer","minimum":1,"maximum":10},"size":{"type":"string","enum":["S","M","L"]}},"required":["item","qty","size"],"additionalProperties":false}`,
		string(req.Tools[1].InputSchema))
}

// TestAnswerRepaired: an answer that is not JSON, lacks a required field,
// breaks an enum or a bound, or comes as text, goes back to the model with
// what was wrong, and the next one decodes.
func TestAnswerRepaired(t *testing.T) {
	t.Parallel()
	for name, bad := range map[string]struct {
		reply tt.Reply
		told  string
	}{
		"not JSON":         {answer("a1", `{"item":"shirt",`), "not valid JSON"},
		"missing required": {answer("a1", `{"item":"shirt","qty":2}`), "size"},
		"enum":             {answer("a1", `{"item":"shirt","qty":2,"size":"XL"}`), "size"},
		"bound":            {answer("a1", `{"item":"shirt","qty":20,"size":"M"}`), "qty"},
		"text":             {tt.Text("Two shirts in M."), "must be given by calling the tool final_answer"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			model := tt.NewModel(bad.reply, answer("a2", `{"item":"shirt","qty":2,"size":"M"}`))
			var got Order
			resp, err := toolcall.NewClient(model).Prompt("Order two shirts").Answer(&got).Call(context.Background())
			require.NoError(t, err)
			assert.Equal(t, Order{Item: "shirt", Qty: 2, Size: "M"}, got)
			assert.Equal(t, 1, resp.Repairs)
			second := model.Requests()[1].Messages
			assert.Contains(t, second[len(second)-1].Content, bad.told, "the model is told what was wrong")
			require.NoError(t, tt.CheckHistory(resp.History))
		})
	}
}

// TestAnswerNeverValid: a model that never gives a valid answer ends the
// call with an *AnswerError carrying its last answer, after the repairs
// allowed; the caller's value is untouched.
func TestAnswerNeverValid(t *testing.T) {
	t.Parallel()
	bad := `{"item":"shirt","qty":0,"size":"M"}`
	model := tt.NewModel(answer("a1", bad), answer("a2", bad), answer("a3", bad), answer("a4", bad))
	got := Order{Item: "unchanged"}
	resp, err := toolcall.NewClient(model).Prompt("Order").Answer(&got).Call(context.Background())
	var ae *toolcall.AnswerError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, bad, ae.Raw)
	assert.Equal(t, 2, ae.Repairs)
	require.NotEmpty(t, ae.Violations)
	assert.Equal(t, "qty", ae.Violations[0].Path)
	assert.Equal(t, Order{Item: "unchanged"}, got)
	assert.Equal(t, 3, len(model.Requests()), "the answer and two repairs")
	require.NotNil(t, resp)
	assert.Equal(t, 2, resp.Repairs)
	require.NoError(t, tt.CheckHistory(resp.History))

	// Text every time, with one repair allowed.
	model = tt.NewModel(tt.Text("a shirt"), tt.Text("a shirt, really"))
	_, err = toolcall.NewClient(model, toolcall.WithLimits(toolcall.Limits{MaxAnswerRepairs: 1})).Prompt("Order").Answer(&got).Call(context.Background())
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "a shirt, really", ae.Raw)
	assert.EqualError(t, err, "toolcall: the final answer is invalid after 1 repairs: the final answer must be given by calling the tool final_answer, not as text")
}

// TestAnswerAndReturnDirect: a tool that returns directly does not end a
// call that asks for a typed answer; the model answers after it.
func TestAnswerAndReturnDirect(t *testing.T) {
	t.Parallel()
	direct := toolcall.MustFunc("status", "Order status", func(ctx context.Context, _ struct{}) (string, error) {
		return "shipped", nil
	}, toolcall.WithReturnDirect(true))
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "status", `{}`)), answer("a1", `{"item":"shirt","qty":1,"size":"S"}`))
	var got Order
	resp, err := toolcall.NewClient(model, toolcall.WithTools(direct)).Prompt("Status?").Answer(&got).Call(context.Background())
	require.NoError(t, err)
	assert.False(t, resp.ReturnedDirect)
	assert.Equal(t, Order{Item: "shirt", Qty: 1, Size: "S"}, got)
}

// TestAnswerStreams: Stream ends with the answer decoded, as Call does.
func TestAnswerStreams(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(answer("a1", `{"item":"hat","qty":3,"size":"L"}`))
	var got Order
	var done *toolcall.Response
	for ev, err := range toolcall.NewClient(model).Prompt("Three hats").Answer(&got).Stream(context.Background()) {
		require.NoError(t, err)
		if ev.Kind == toolcall.EventDone {
			done = ev.Response
		}
	}
	require.NotNil(t, done)
	assert.Equal(t, Order{Item: "hat", Qty: 3, Size: "L"}, got)
}

// TestAnswerRefusesTheCallersMistakes: not a pointer, not an object, and a
// tool of the answer tool's name are errors for the caller; nothing is
// sent.
func TestAnswerRefusesTheCallersMistakes(t *testing.T) {
	t.Parallel()
	clash := toolcall.MustFunc("final_answer", "Mine", func(ctx context.Context, _ struct{}) (string, error) { return "", nil })
	var n int
	for name, tc := range map[string]struct {
		tools []any
		v     any
		want  string
	}{
		"value":        {nil, Order{}, "toolcall: Prompt.Answer needs a non-nil pointer to decode into, got toolcall_test.Order"},
		"nil":          {nil, (*Order)(nil), "toolcall: Prompt.Answer needs a non-nil pointer to decode into, got *toolcall_test.Order"},
		"not a struct": {nil, &n, "toolcall: Prompt.Answer: the answer's type: toolcall: int: unsupported parameter type: arguments must be a struct, got int"},
		"clash":        {[]any{clash}, &Order{}, `tool "final_answer" has the name of the answer tool of Prompt.Answer`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			model := tt.NewModel(answer("a1", `{}`))
			p := toolcall.NewClient(model).Prompt("x").Answer(tc.v)
			if tc.tools != nil {
				p.Tools(tc.tools...)
			}
			_, err := p.Call(context.Background())
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "error %q, want %q", err, tc.want)
			assert.Empty(t, model.Requests())
			if name == "clash" {
				assert.True(t, errors.Is(err, toolcall.ErrInvalidTool))
			}
		})
	}
}

// structured is a scripted model that asks for structured output natively.
type structured struct{ *tt.Model }

func (structured) StructuredOutput() bool { return true }

// TestAnswerNative: with a model that supports it, the schema goes in
// Request.Output and the answer is the reply's text; a text that breaks
// the schema, or is not JSON, goes back with what was wrong.
func TestAnswerNative(t *testing.T) {
	t.Parallel()
	model := structured{tt.NewModel(
		tt.ToolCalls(tt.Call("c1", "stock", `{}`)),
		tt.Text(`{"item":"shirt","qty":20,"size":"M"}`),
		tt.Text(`two shirts`),
		tt.Text(`{"item":"shirt","qty":2,"size":"M"}`),
	)}
	var got Order
	resp, err := toolcall.NewClient(model, toolcall.WithTools(stockTool())).Prompt("Order two shirts").Answer(&got).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Order{Item: "shirt", Qty: 2, Size: "M"}, got)
	assert.Equal(t, 2, resp.Repairs)
	reqs := model.Requests()
	require.Len(t, reqs, 4)
	first := reqs[0]
	require.NotNil(t, first.Output)
	assert.Equal(t, "answer", first.Output.Name)
	assert.Contains(t, string(first.Output.Schema), `"enum":["S","M","L"]`)
	assert.Len(t, first.Tools, 1, "no answer tool")
	assert.True(t, first.ToolChoice.IsZero(), "tools are not required")
	last := func(r *chat.Request) string { return r.Messages[len(r.Messages)-1].Content }
	assert.Equal(t, "Your answer does not follow the schema: qty: must be <= 10. Answer again, with only the JSON.", last(reqs[2]))
	assert.Contains(t, last(reqs[3]), "Your answer does not follow the schema: ")
	assert.Contains(t, last(reqs[3]), "not valid JSON")
	require.NoError(t, tt.CheckHistory(resp.History))
}

// TestAnswerMode: the caller forces the tool on a model that could answer
// natively; forcing native on one that cannot, or an unknown mode, is an
// error and sends nothing.
func TestAnswerMode(t *testing.T) {
	t.Parallel()
	model := structured{tt.NewModel(answer("a1", `{"item":"hat","qty":1,"size":"S"}`))}
	var got Order
	_, err := toolcall.NewClient(model).Prompt("A hat").Answer(&got).AnswerMode(chat.OutputTool).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Order{Item: "hat", Qty: 1, Size: "S"}, got)
	assert.Nil(t, model.Requests()[0].Output)

	plain := tt.NewModel(tt.Text(`{}`))
	_, err = toolcall.NewClient(plain).Prompt("A hat").Answer(&got).AnswerMode(chat.OutputNative).Call(context.Background())
	assert.EqualError(t, err, "toolcall: Prompt.AnswerMode: the model (*toolcalltest.Model) cannot ask for an answer in a schema natively; use chat.OutputTool")
	_, err = toolcall.NewClient(plain).Prompt("A hat").Answer(&got).AnswerMode("json").Call(context.Background())
	assert.EqualError(t, err, `toolcall: Prompt.AnswerMode: unknown mode "json"; the modes are chat.OutputNative and chat.OutputTool`)
	assert.Empty(t, plain.Requests())
}

// TestAnswerAcrossAPause: a call that asks for a typed answer and pauses
// is resumed with the same request for it, and ends with the answer; a
// resume that does not ask for it, or for another type, is refused.
func TestAnswerAcrossAPause(t *testing.T) {
	t.Parallel()
	var l ledger
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("t1", "transfer", `{"to":"ana","amount":10}`)),
		answer("a1", `{"item":"transfer","qty":1,"size":"S"}`),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(bankTools(&l)))
	var got Order
	_, err := client.Prompt("pay ana, then report").Answer(&got).Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "github.com/toolcall-go/toolcall_test.Order", p.Answer)

	_, err = client.Prompt().Resume(p, allowT1).Call(context.Background())
	require.EqualError(t, err, `toolcall: the paused call asked for a typed answer of type "github.com/toolcall-go/toolcall_test.Order", and the resuming prompt for "": give Prompt.Answer a value of the same type`)
	var other struct{ X int }
	_, err = client.Prompt().Resume(p, allowT1).Answer(&other).Call(context.Background())
	require.ErrorContains(t, err, `and the resuming prompt for "struct { X int }"`)
	assert.Zero(t, l.get()["t1"], "nothing ran")

	resp, err := client.Prompt().Resume(p, allowT1).Answer(&got).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Order{Item: "transfer", Qty: 1, Size: "S"}, got)
	assert.Equal(t, 1, l.get()["t1"])
	require.NoError(t, tt.CheckHistory(resp.History))
}

// TestAnswerGivenInAPausedRound: the answer given in the round that
// paused ends the resumed call, and a returnDirect call in that round does
// not end it without the answer.
func TestAnswerGivenInAPausedRound(t *testing.T) {
	t.Parallel()
	var l ledger
	status := toolcall.MustFunc("status", "Order status", func(ctx context.Context, _ struct{}) (string, error) {
		return "shipped", nil
	}, toolcall.WithReturnDirect(true), toolcall.WithNeedsApproval(true))
	tools := []any{bankTools(&l), status}
	for name, tc := range map[string]struct {
		reply     tt.Reply
		decisions map[string]toolcall.Decision
		more      []tt.Reply
	}{
		"answer beside a waiting call": {tt.ToolCalls(tt.Call("t1", "transfer", `{"to":"ana","amount":10}`), tt.Call("a1", "final_answer", `{"item":"x","qty":1,"size":"S"}`)), allowT1, nil},
		"returnDirect call resumed":    {tt.ToolCalls(tt.Call("s1", "status", `{}`)), map[string]toolcall.Decision{"s1": {Allow: true}}, []tt.Reply{answer("a2", `{"item":"x","qty":1,"size":"S"}`)}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			model := tt.NewModel(append([]tt.Reply{tc.reply}, tc.more...)...)
			client := toolcall.NewClient(model, toolcall.WithTools(tools...))
			var got Order
			_, err := client.Prompt("go").Answer(&got).Call(context.Background())
			var p *toolcall.Paused
			require.ErrorAs(t, err, &p)
			resp, err := client.Prompt().Resume(p, tc.decisions).Answer(&got).Call(context.Background())
			require.NoError(t, err)
			assert.Equal(t, Order{Item: "x", Qty: 1, Size: "S"}, got)
			assert.False(t, resp.ReturnedDirect)
			assert.Equal(t, 1+len(tc.more), len(model.Requests()), "no request after the answer")
		})
	}
}

// TestAnswerAtLimitAndItsBounds: WithAnswerAtLimit takes the answer the
// model gives at the limit; repairs never go past the iteration limit,
// even with no limit on repairs; the approver and middleware do not see
// the answer tool.
func TestAnswerAtLimitAndItsBounds(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "stock", `{}`)), answer("a1", `{"item":"x","qty":1,"size":"S"}`))
	var got Order
	_, err := toolcall.NewClient(model, toolcall.WithTools(stockTool()), toolcall.WithMaxIterations(1), toolcall.WithAnswerAtLimit()).
		Prompt("go").Answer(&got).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Order{Item: "x", Qty: 1, Size: "S"}, got)
	assert.Equal(t, chat.ToolChoice{Name: "final_answer"}, model.Requests()[1].ToolChoice)

	texts := make([]tt.Reply, 50)
	for i := range texts {
		texts[i] = tt.Text("words")
	}
	model = tt.NewModel(texts...)
	_, err = toolcall.NewClient(model, toolcall.WithMaxIterations(3), toolcall.WithLimits(toolcall.Limits{MaxAnswerRepairs: toolcall.NoLimit})).
		Prompt("go").Answer(&got).Call(context.Background())
	var ae *toolcall.AnswerError
	require.ErrorAs(t, err, &ae)
	assert.LessOrEqual(t, len(model.Requests()), 4, "bounded by the iteration limit")

	var seen []string
	approver := toolcall.WithApprover(func(ctx context.Context, call chat.ToolCall, md toolcall.Metadata) toolcall.Decision {
		seen = append(seen, "approver "+call.Name)
		return toolcall.Decision{} // everything waits for a person
	})
	mw := toolcall.WithMiddleware(func(ctx context.Context, call chat.ToolCall, next func(context.Context) (string, error)) (string, error) {
		seen = append(seen, "middleware "+call.Name)
		return next(ctx)
	})
	model = tt.NewModel(answer("a1", `{"item":"x","qty":1,"size":"S"}`))
	_, err = toolcall.NewClient(model, approver, mw).Prompt("go").Answer(&got).Call(context.Background())
	require.NoError(t, err)
	assert.Empty(t, seen)
}

// TestAsModelRefusesOutput: a Client used as a model does not drop a
// request's output schema.
func TestAsModelRefusesOutput(t *testing.T) {
	t.Parallel()
	m := toolcall.NewClient(tt.NewModel(tt.Text("hi"))).AsModel()
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}, Output: &chat.OutputFormat{Name: "answer"}})
	require.EqualError(t, err, "toolcall: a Client used as a model does not send Request.Output; ask for a typed answer with Prompt.Answer")
}
