package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// ledger counts the runs of each call id, across pauses and resumes.
type ledger struct {
	mu   sync.Mutex
	runs map[string]int
}

func (l *ledger) add(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[string]int{}
	}
	l.runs[id]++
}

func (l *ledger) get() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.runs {
		out[k] = v
	}
	return out
}

type transferArgs struct {
	To     string `json:"to"`
	Amount int    `json:"amount" jsonschema:"minimum=1,maximum=1000"`
}

// bankTools: a transfer needs approval; a balance does not.
func bankTools(l *ledger) []toolcall.Tool {
	transfer := toolcall.MustFunc("transfer", "Sends money", func(ctx context.Context, in transferArgs) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		l.add(info.ID)
		return fmt.Sprintf("sent %d to %s", in.Amount, in.To), nil
	}, toolcall.WithNeedsApproval(true))
	balance := toolcall.MustFunc("balance", "The balance", func(ctx context.Context, _ struct{}) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		l.add(info.ID)
		return "100", nil
	})
	return []toolcall.Tool{transfer, balance}
}

func assertHistoryValid(t *testing.T, h []chat.Message) {
	t.Helper()
	require.NoError(t, tt.CheckHistory(h))
}

func TestApproverDecides(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		decision toolcall.Decision
		result   string
		isError  bool
		paused   bool
	}{
		{"allow", toolcall.Decision{Allow: true}, "sent 5 to ana", false, false},
		{"deny", toolcall.Decision{Deny: "over the daily limit"}, "tool call denied: over the daily limit", true, false},
		{"result", toolcall.Decision{Result: "already sent yesterday"}, "already sent yesterday", false, false},
		{"edited", toolcall.Decision{Allow: true, Arguments: json.RawMessage(`{"to":"ana","amount":3}`)}, "sent 3 to ana", false, false},
		{"edited badly", toolcall.Decision{Allow: true, Arguments: json.RawMessage(`{"to":"ana","amount":5000}`)}, `invalid arguments for tool "transfer": amount: must be <= 1000`, true, false},
		{"pause", toolcall.Decision{}, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var l ledger
			var seen []string
			approver := toolcall.WithApprover(func(ctx context.Context, call chat.ToolCall, md toolcall.Metadata) toolcall.Decision {
				seen = append(seen, fmt.Sprintf("%s %s needs=%v tenant=%v", call.Name, call.Arguments, md.NeedsApproval, toolcall.ToolContextFrom(ctx).Value("tenant")))
				if call.Name == "balance" {
					return toolcall.Decision{Allow: true}
				}
				return tc.decision
			})
			model := tt.NewModel(tt.ToolCalls(tt.Call("t1", "transfer", `{"to":"ana","amount":5}`), tt.Call("b1", "balance", ``)), tt.Text("done"))
			resp, err := toolcall.NewClient(model, approver, toolcall.WithLimits(toolcall.Limits{Concurrency: 1})).
				Prompt("pay ana").Tools(bankTools(&l)).ToolContext(map[string]any{"tenant": "acme"}).Call(context.Background())
			assert.Equal(t, []string{`transfer {"to":"ana","amount":5} needs=true tenant=acme`, `balance {} needs=false tenant=acme`}, seen)
			assertHistoryValid(t, resp.History)
			if tc.paused {
				var p *toolcall.Paused
				require.ErrorAs(t, err, &p)
				assert.Equal(t, map[string]int{"b1": 1}, l.get(), "the paused call did not run; the other did")
				require.Len(t, p.Pending, 1)
				assert.Equal(t, "t1", p.Pending[0].ID)
				assert.Equal(t, "approval", p.Pending[0].Reason)
				return
			}
			require.NoError(t, err)
			e := resp.Executions[0]
			assert.Equal(t, tc.result, e.Result)
			assert.Equal(t, tc.isError, e.IsError)
			if tc.result == "sent 5 to ana" || tc.result == "sent 3 to ana" {
				assert.Equal(t, 1, l.get()["t1"])
			} else {
				assert.Zero(t, l.get()["t1"], "the tool did not run")
			}
		})
	}
}

func TestNoApproverNeverRuns(t *testing.T) {
	t.Parallel()
	var l ledger
	model := tt.NewModel(tt.ToolCalls(tt.Call("t1", "transfer", `{"to":"ana","amount":5}`), tt.Call("b1", "balance", `{}`)), tt.Text("done"))
	resp, err := toolcall.NewClient(model).Prompt("pay").Tools(bankTools(&l)).Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "toolcall: paused: 1 tool call waits for a decision", err.Error())
	assert.Equal(t, map[string]int{"b1": 1}, l.get())
	assert.Len(t, model.Requests(), 1, "the model is not asked again")
	assert.Len(t, resp.History, 1, "the history ends before the reply with the waiting call")
	require.Len(t, resp.Executions, 1)
	assert.Equal(t, "b1", resp.Executions[0].Call.ID)

	// A wrapper type keeps the mark when it forwards Metadata.
	model = tt.NewModel(tt.ToolCalls(tt.Call("t2", "transfer", `{"to":"bo","amount":1}`)), tt.Text("done"))
	_, err = toolcall.NewClient(model).Prompt("pay").Tools(wrapped{bankTools(&l)[0]}).Call(context.Background())
	require.ErrorAs(t, err, &p)
	assert.Zero(t, l.get()["t2"])
}

type wrapped struct{ toolcall.Tool }

func TestPauseJSONResume(t *testing.T) {
	t.Parallel()
	var l ledger
	tools := bankTools(&l)
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("t1", "transfer", `{"to":"ana","amount":5}`), tt.Call("b1", "balance", `{}`),
			tt.Call("t2", "transfer", `{"to":"bo","amount":7}`), tt.Call("t3", "transfer", `{"to":"cy","amount":9}`),
			tt.Call("t4", "transfer", `{"to":"di","amount":2}`)),
		tt.Text("done"),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(tools))
	_, err := client.Prompt("pay everyone").Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	require.Len(t, p.Pending, 4)
	saved, err := json.Marshal(p)
	require.NoError(t, err)
	assert.NotContains(t, string(saved), "tenant")

	// Another process: a fresh client over the same model script.
	var back toolcall.Paused
	require.NoError(t, json.Unmarshal(saved, &back))
	fresh := toolcall.NewClient(model, toolcall.WithTools(tools))
	// t4 gets no decision: it keeps waiting.
	_, err = fresh.Prompt().Resume(&back, map[string]toolcall.Decision{
		"t1": {Allow: true},
		"t2": {Deny: "bo is not a known payee"},
		"t3": {Allow: true, Arguments: json.RawMessage(`{"to":"cy","amount":9000}`)},
	}).Call(context.Background())
	var again *toolcall.Paused
	require.ErrorAs(t, err, &again)
	require.Len(t, again.Pending, 1)
	assert.Equal(t, "t4", again.Pending[0].ID)
	assert.Len(t, model.Requests(), 1, "no model round while a call waits")

	resp, err := fresh.Prompt().Resume(again, map[string]toolcall.Decision{"t4": {Allow: true}}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
	assert.Equal(t, map[string]int{"t1": 1, "b1": 1, "t4": 1}, l.get(), "every call ran at most once, across pause and resume")
	assertHistoryValid(t, resp.History)
	msgs := model.Requests()[1].Messages
	require.Len(t, msgs, 7)
	var results []string
	for _, m := range msgs[2:] {
		results = append(results, m.ToolCallID+": "+m.Content)
	}
	assert.Equal(t, []string{
		"t1: sent 5 to ana",
		"b1: 100",
		"t2: tool call denied: bo is not a known payee",
		`t3: invalid arguments for tool "transfer": amount: must be <= 1000`,
		"t4: sent 2 to di",
	}, results, "one result per call, in call order")

	_, err = fresh.Prompt().Resume(again, map[string]toolcall.Decision{"zz": {Allow: true}}).Call(context.Background())
	require.EqualError(t, err, `toolcall: resume: a decision for call "zz", which does not wait`)
	_, err = fresh.Prompt("hi").Resume(again, nil).Call(context.Background())
	require.EqualError(t, err, "toolcall: a resumed prompt takes its history and state from the Paused state, and no messages or state")
}

// TestLongRunningAndCredential: a tool pauses its own call, for a result
// that comes later or for a credential.
func TestLongRunningAndCredential(t *testing.T) {
	t.Parallel()
	reimburse := toolcall.MustFunc("reimburse", "Asks for a reimbursement", func(_ context.Context, in struct {
		Amount int `json:"amount"`
	}) (string, error) {
		if in.Amount > 100 {
			return "", toolcall.Pause(fmt.Sprintf("ticket-%d waits for a manager", in.Amount))
		}
		return "approved", nil
	})
	var keyRuns int
	weather := toolcall.MustFunc("weather", "The weather", func(ctx context.Context, _ struct{}) (string, error) {
		keyRuns++
		key, _ := toolcall.ToolContextFrom(ctx).Value("apiKey").(string)
		if key == "" {
			return "", toolcall.Pause("an API key for weather.example")
		}
		return "sunny (key " + key[:3] + "...)", nil
	})
	model := tt.NewModel(tt.ToolCalls(tt.Call("r1", "reimburse", `{"amount":500}`), tt.Call("w1", "weather", `{}`)), tt.Text("done"))
	client := toolcall.NewClient(model, toolcall.WithTools(reimburse, weather))
	_, err := client.Prompt("go").Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	assert.Equal(t, []toolcall.PendingCall{
		{ToolCall: tt.Call("r1", "reimburse", `{"amount":500}`), Reason: "ticket-500 waits for a manager"},
		{ToolCall: tt.Call("w1", "weather", `{}`), Reason: "an API key for weather.example"},
	}, p.Pending)

	resp, err := client.Prompt().ToolContext(map[string]any{"apiKey": "sk-secret-key"}).Resume(p, map[string]toolcall.Decision{
		"r1": {Result: "reimbursed: approved by the manager"},
		"w1": {Allow: true},
	}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "reimbursed: approved by the manager", resp.Executions[0].Result)
	assert.Equal(t, "sunny (key sk-...)", resp.Executions[1].Result)
	assert.Equal(t, 2, keyRuns, "the tool ran again on resume")
	for _, body := range model.RequestBodies() {
		assert.False(t, strings.Contains(string(body), "sk-secret-key"), "the credential never reaches the wire")
	}
}

func TestPausedIsAnError(t *testing.T) {
	t.Parallel()
	var p *toolcall.Paused
	err := fmt.Errorf("wrapped: %w", &toolcall.Paused{Pending: make([]toolcall.PendingCall, 2)})
	require.True(t, errors.As(err, &p))
	assert.Equal(t, "wrapped: toolcall: paused: 2 tool calls wait for a decision", err.Error())
}

// TestStateAcrossPause: state written before a pause reaches the resumed
// call's tools and Response, and the resumed Response records the whole
// resumed round, the calls done before the pause included (not run again).
func TestStateAcrossPause(t *testing.T) {
	t.Parallel()
	var l ledger
	tools := bankTools(&l)
	remember := toolcall.MustFunc("remember", "Remembers the payee", func(ctx context.Context, _ struct{}) (string, error) {
		toolcall.SetState(ctx, "payee", "ana-id-7")
		return "ok", nil
	})
	recall := toolcall.MustFunc("recall", "Recalls the payee", func(ctx context.Context, _ struct{}) (string, error) {
		return fmt.Sprint(toolcall.ToolContextFrom(ctx).Value("payee")), nil
	})
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("r1", "remember", `{}`)),
		tt.ToolCalls(tt.Call("b1", "balance", `{}`), tt.Call("t1", "transfer", `{"to":"ana","amount":5}`)),
		tt.ToolCalls(tt.Call("c1", "recall", `{}`)),
		tt.Text("done"),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(append(tools, remember, recall)))
	_, err := client.Prompt("pay").Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	assert.Equal(t, map[string]any{"payee": "ana-id-7"}, p.State)
	saved, err := json.Marshal(p)
	require.NoError(t, err)
	var back toolcall.Paused
	require.NoError(t, json.Unmarshal(saved, &back))

	resp, err := client.Prompt().Resume(&back, map[string]toolcall.Decision{"t1": {Allow: true}}).Call(context.Background())
	require.NoError(t, err)
	var ids []string
	for _, e := range resp.Executions {
		ids = append(ids, e.Call.ID)
	}
	assert.Equal(t, []string{"b1", "t1", "c1"}, ids, "the resumed round, then the next")
	assert.Equal(t, "ana-id-7", resp.Executions[2].Result)
	assert.Equal(t, map[string]any{"payee": "ana-id-7"}, resp.State)
	assert.Equal(t, map[string]int{"b1": 1, "t1": 1}, l.get())
}
