package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

var (
	sealKey  = bytes.Repeat([]byte("k"), 32)
	otherKey = bytes.Repeat([]byte("o"), 32)
)

// pauseTransfer runs a call that pauses on "transfer 10 to ana" (t1),
// after a balance (b1) ran in the same reply and a tool wrote the session
// state in the round before, under a model name and options; it returns
// the paused state as stored JSON.
func pauseTransfer(t *testing.T, l *ledger, opts ...toolcall.ClientOption) (*toolcall.Client, []byte) {
	t.Helper()
	remember := toolcall.MustFunc("remember", "Remembers the payee", func(ctx context.Context, _ struct{}) (string, error) {
		toolcall.SetState(ctx, "payee", "ana-id-7")
		return "ok", nil
	})
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("r1", "remember", `{}`)),
		tt.ToolCalls(tt.Call("b1", "balance", `{}`), tt.Call("t1", "transfer", `{"to":"ana","amount":10}`)),
		tt.Text("done"),
		tt.Text("done again"),
	)
	client := toolcall.NewClient(model, append([]toolcall.ClientOption{toolcall.WithTools(append(bankTools(l), remember))}, opts...)...)
	temp := 0.5
	_, err := client.Prompt("pay ana 10").Model("m1").Options(chat.Options{Temperature: &temp}).Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	require.Len(t, p.Pending, 1)
	stored, err := json.Marshal(p)
	require.NoError(t, err)
	return client, stored
}

func decode(t *testing.T, stored []byte) *toolcall.Paused {
	t.Helper()
	var p toolcall.Paused
	require.NoError(t, json.Unmarshal(stored, &p))
	return &p
}

// edit applies f to the stored state as generic JSON.
func edit(t *testing.T, stored []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(stored, &m))
	f(m)
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

func lastReplyCalls(m map[string]any) []any {
	h := m["history"].([]any)
	return h[len(h)-1].(map[string]any)["tool_calls"].([]any)
}

// replays is the claim of the tests' sealing clients that resume one
// stored state more than once.
var replays = toolcall.WithResumeClaim(toolcall.AllowReplays)

var allowT1 = map[string]toolcall.Decision{"t1": {Allow: true}}

// TestResumeRunsOnlyTheCallsOfTheStoredReply: without a seal, a stored
// pause whose waiting calls are not exactly calls of the reply it pauses
// runs nothing.
func TestResumeRunsOnlyTheCallsOfTheStoredReply(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(m map[string]any){
		"the reply's arguments": func(m map[string]any) {
			lastReplyCalls(m)[1].(map[string]any)["arguments"] = json.RawMessage(`{"to":"ana","amount":10000}`)
		},
		"the waiting call's arguments": func(m map[string]any) {
			m["pending"].([]any)[0].(map[string]any)["arguments"] = json.RawMessage(`{"to":"mallory","amount":10}`)
		},
		"the reply's tool name": func(m map[string]any) {
			lastReplyCalls(m)[0].(map[string]any)["name"] = "transfer"
		},
		"a waiting call the reply lacks": func(m map[string]any) {
			m["pending"] = append(m["pending"].([]any), map[string]any{"id": "t9", "name": "transfer", "arguments": json.RawMessage(`{"to":"mallory","amount":999}`), "reason": "approval"})
		},
		"a waiting call listed twice": func(m map[string]any) {
			m["pending"] = append(m["pending"].([]any), m["pending"].([]any)[0])
		},
		"a done call that is not the reply's": func(m map[string]any) {
			m["done"].([]any)[0].(map[string]any)["call"].(map[string]any)["id"] = "zz"
		},
		"a reply call neither done nor waiting": func(m map[string]any) {
			m["done"] = []any{}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var l ledger
			client, stored := pauseTransfer(t, &l)
			before := l.get()
			_, err := client.Prompt().Resume(decode(t, edit(t, stored, f)), allowT1).Call(context.Background())
			require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
			assert.Equal(t, before, l.get(), "nothing ran")
		})
	}
	t.Run("the same arguments written otherwise", func(t *testing.T) {
		t.Parallel()
		var l ledger
		client, stored := pauseTransfer(t, &l)
		stored = edit(t, stored, func(m map[string]any) {
			m["pending"].([]any)[0].(map[string]any)["arguments"] = json.RawMessage(`{ "amount": 1e1, "to": "ana" }`)
		})
		resp, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.NoError(t, err, "the same JSON value")
		assert.Equal(t, "done", resp.Content())
		assert.Equal(t, 1, l.get()["t1"])
	})
}

// TestSealedPauseRefusesEveryEdit: a sealed state edited in any field, or
// sealed with another key, is refused before anything runs.
func TestSealedPauseRefusesEveryEdit(t *testing.T) {
	t.Parallel()
	keys := toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey})
	var l ledger
	_, stored := pauseTransfer(t, &l, keys, replays)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(stored, &fields))
	for _, f := range []string{"id", "pending", "history", "done", "round", "model", "options", "state", "seal"} {
		require.Contains(t, fields, f, "the sealed state holds every field")
	}
	for name, f := range map[string]func(m map[string]any){
		"id":      func(m map[string]any) { m["id"] = "another" },
		"pending": func(m map[string]any) { m["pending"].([]any)[0].(map[string]any)["reason"] = "none" },
		"history": func(m map[string]any) {
			h := m["history"].([]any)
			h[0].(map[string]any)["content"] = "pay ana 10000"
		},
		"done":    func(m map[string]any) { m["done"].([]any)[0].(map[string]any)["result"] = "0" },
		"round":   func(m map[string]any) { m["round"] = 1 },
		"model":   func(m map[string]any) { m["model"] = "m2" },
		"options": func(m map[string]any) { m["options"] = map[string]any{"temperature": 2} },
		"state":   func(m map[string]any) { m["state"] = map[string]any{"payee": "mallory"} },
		"no seal": func(m map[string]any) { delete(m, "seal") },
		"seal":    func(m map[string]any) { m["seal"] = "k1.AAAA" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var l ledger
			client, stored := pauseTransfer(t, &l, keys, replays)
			before := l.get()
			_, err := client.Prompt().Resume(decode(t, edit(t, stored, f)), allowT1).Call(context.Background())
			require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
			assert.Equal(t, before, l.get(), "nothing ran")
		})
	}
	t.Run("another key", func(t *testing.T) {
		t.Parallel()
		var l ledger
		_, stored := pauseTransfer(t, &l, toolcall.WithSealKeys("k1", map[string][]byte{"k1": otherKey}), replays)
		client, _ := pauseTransfer(t, &l, keys, replays)
		before := l.get()
		_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
		assert.Equal(t, before, l.get())
	})
	t.Run("unsealed state to a sealing client", func(t *testing.T) {
		t.Parallel()
		var l ledger
		_, stored := pauseTransfer(t, &l)
		client, _ := pauseTransfer(t, &l, keys, replays)
		_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
	})
	t.Run("sealed state to a client without keys", func(t *testing.T) {
		t.Parallel()
		var l ledger
		_, stored := pauseTransfer(t, &l, keys, replays)
		client, _ := pauseTransfer(t, &l)
		_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
	})
	t.Run("rotated keys open the old seal", func(t *testing.T) {
		t.Parallel()
		var l ledger
		_, stored := pauseTransfer(t, &l, keys, replays)
		client, _ := pauseTransfer(t, &l, toolcall.WithSealKeys("k2", map[string][]byte{"k1": sealKey, "k2": otherKey}), replays)
		resp, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "done", resp.Content())
		assert.Equal(t, 1, l.get()["t1"], "the approved call ran once")
	})
	t.Run("a weak key", func(t *testing.T) {
		t.Parallel()
		client := toolcall.NewClient(tt.NewModel(tt.Text("hi")), toolcall.WithSealKeys("k1", map[string][]byte{"k1": []byte("short")}))
		_, err := client.Prompt("hi").Call(context.Background())
		require.ErrorContains(t, err, `WithSealKeys: key "k1" has 5 bytes, fewer than 32`)
	})
}

// TestResumeRunsEachApprovedCallAtMostOnce: the same *Paused resumed
// twice, and one stored state resumed concurrently with a claim store.
func TestResumeRunsEachApprovedCallAtMostOnce(t *testing.T) {
	t.Parallel()
	t.Run("same value twice in one process", func(t *testing.T) {
		t.Parallel()
		var l ledger
		client, stored := pauseTransfer(t, &l)
		p := decode(t, stored)
		_, err := client.Prompt().Resume(p, allowT1).Call(context.Background())
		require.NoError(t, err)
		_, err = client.Prompt().Resume(p, allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrAlreadyResumed)
		assert.Equal(t, 1, l.get()["t1"])
	})
	t.Run("a caller's mistake does not use it up", func(t *testing.T) {
		t.Parallel()
		var l ledger
		client, stored := pauseTransfer(t, &l)
		p := decode(t, stored)
		_, err := client.Prompt().Resume(p, map[string]toolcall.Decision{"t1": {Allow: true, Deny: "no"}}).Call(context.Background())
		require.Error(t, err)
		_, err = client.Prompt().Resume(p, allowT1).Call(context.Background())
		require.NoError(t, err)
	})
	t.Run("concurrent resumes of one stored state", func(t *testing.T) {
		t.Parallel()
		var claims sync.Map
		claim := toolcall.WithResumeClaim(func(_ context.Context, id string) error {
			if _, taken := claims.LoadOrStore(id, true); taken {
				return fmt.Errorf("paused state %s: %w", id, toolcall.ErrAlreadyResumed)
			}
			return nil
		})
		var l ledger
		client, stored := pauseTransfer(t, &l, claim)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				var p toolcall.Paused
				if err := json.Unmarshal(stored, &p); err != nil {
					errs[i] = err
					return
				}
				_, errs[i] = client.Prompt().Resume(&p, allowT1).Call(context.Background())
			})
		}
		wg.Wait()
		assert.Equal(t, 1, l.get()["t1"], "the approved call ran once")
		failed := 0
		for _, err := range errs {
			if err != nil {
				require.ErrorIs(t, err, toolcall.ErrAlreadyResumed)
				failed++
			}
		}
		assert.Equal(t, 1, failed, "one resume got the error")
	})
	t.Run("a claim that fails runs nothing", func(t *testing.T) {
		t.Parallel()
		var l ledger
		down := errors.New("store down")
		client, stored := pauseTransfer(t, &l, toolcall.WithResumeClaim(func(context.Context, string) error { return down }))
		_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.ErrorIs(t, err, down)
		assert.Zero(t, l.get()["t1"])
	})
}

// TestResumeKeepsTheCallsDoneBeforeThePause: an abort on resume keeps
// their records, and a resumed round that returns directly returns their
// results too.
func TestResumeKeepsTheCallsDoneBeforeThePause(t *testing.T) {
	t.Parallel()
	t.Run("abort", func(t *testing.T) {
		t.Parallel()
		charge := toolcall.MustFunc("charge", "Charges a card", func(context.Context, struct{}) (string, error) {
			return "", fmt.Errorf("card processor gone: %w", toolcall.ErrFatal)
		}, toolcall.WithNeedsApproval(true))
		note := toolcall.MustFunc("note", "Takes a note", func(context.Context, struct{}) (string, error) { return "noted", nil })
		model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "charge", `{}`), tt.Call("n1", "note", `{}`)))
		client := toolcall.NewClient(model, toolcall.WithTools(charge, note))
		_, err := client.Prompt("go").Call(context.Background())
		var p *toolcall.Paused
		require.ErrorAs(t, err, &p)
		require.Len(t, p.Done, 1)

		resp, err := client.Prompt().Resume(p, map[string]toolcall.Decision{"c1": {Allow: true}}).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrFatal)
		assertHistoryValid(t, resp.History)
		last := resp.History[len(resp.History)-1]
		assert.Equal(t, "n1", last.ToolCallID)
		assert.Equal(t, "noted", last.Content, "the call done before the pause keeps its result")
	})
	t.Run("return direct", func(t *testing.T) {
		t.Parallel()
		lookup := toolcall.MustFunc("lookup", "Looks up", func(context.Context, struct{}) (string, error) { return "found", nil }, toolcall.WithReturnDirect(true))
		book := toolcall.MustFunc("book", "Books", func(context.Context, struct{}) (string, error) { return "booked", nil },
			toolcall.WithReturnDirect(true), toolcall.WithNeedsApproval(true))
		model := tt.NewModel(tt.ToolCalls(tt.Call("l1", "lookup", `{}`), tt.Call("b1", "book", `{}`)))
		client := toolcall.NewClient(model, toolcall.WithTools(lookup, book))
		_, err := client.Prompt("go").Call(context.Background())
		var p *toolcall.Paused
		require.ErrorAs(t, err, &p)
		resp, err := client.Prompt().Resume(p, map[string]toolcall.Decision{"b1": {Allow: true}}).Call(context.Background())
		require.NoError(t, err)
		require.True(t, resp.ReturnedDirect)
		assert.Equal(t, []string{"found", "booked"}, resp.DirectResults())
	})
}

// TestResumeRefusesTheCallersMistakes: they are errors for the caller,
// never messages to the model, and nothing runs.
func TestResumeRefusesTheCallersMistakes(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		tools     bool
		decisions map[string]toolcall.Decision
		want      string
	}{
		"tool not offered":      {false, allowT1, `toolcall: resume: call "t1" of tool "transfer" is allowed, and the prompt does not offer that tool`},
		"allow and deny":        {true, map[string]toolcall.Decision{"t1": {Allow: true, Deny: "no"}}, `toolcall: resume: the decision for call "t1" sets more than one of Allow, Deny and Result`},
		"allow and result":      {true, map[string]toolcall.Decision{"t1": {Allow: true, Result: "sent"}}, `toolcall: resume: the decision for call "t1" sets more than one of Allow, Deny and Result`},
		"deny and result":       {true, map[string]toolcall.Decision{"t1": {Deny: "no", Result: "sent"}}, `toolcall: resume: the decision for call "t1" sets more than one of Allow, Deny and Result`},
		"arguments with deny":   {true, map[string]toolcall.Decision{"t1": {Deny: "no", Arguments: json.RawMessage(`{}`)}}, `toolcall: resume: the decision for call "t1" gives Arguments without Allow`},
		"a call that waits not": {true, map[string]toolcall.Decision{"b1": {Allow: true}}, `toolcall: resume: a decision for call "b1", which does not wait`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var l ledger
			client, stored := pauseTransfer(t, &l)
			before := l.get()
			model := tt.NewModel(tt.Text("must not be asked"))
			c := toolcall.NewClient(model)
			p := c.Prompt().Resume(decode(t, stored), tc.decisions)
			if tc.tools {
				c = client
				p = c.Prompt().Resume(decode(t, stored), tc.decisions)
			}
			_, err := p.Call(context.Background())
			require.EqualError(t, err, tc.want)
			assert.Equal(t, before, l.get(), "nothing ran")
			assert.Empty(t, model.Requests(), "the model was not asked")
		})
	}
}

// TestDecisionWithoutTheTool: a denial or a result reaches the model with
// the person's words also when the resuming prompt does not offer the
// waiting call's tool; allowing it stays an error for the caller.
func TestDecisionWithoutTheTool(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		d       toolcall.Decision
		result  string
		isError bool
	}{
		"deny":   {toolcall.Decision{Deny: "over the daily limit"}, "tool call denied: over the daily limit", true},
		"result": {toolcall.Decision{Result: "sent by hand"}, "sent by hand", false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var l ledger
			_, stored := pauseTransfer(t, &l)
			// Another process: its client offers no transfer tool.
			client := toolcall.NewClient(tt.NewModel(tt.Text("noted")))
			resp, err := client.Prompt().Resume(decode(t, stored), map[string]toolcall.Decision{"t1": tc.d}).Call(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "noted", resp.Content())
			require.Len(t, resp.Executions, 2)
			e := resp.Executions[1]
			assert.Equal(t, "t1", e.Call.ID)
			assert.Equal(t, tc.result, e.Result)
			assert.Equal(t, tc.isError, e.IsError)
			assert.NotErrorIs(t, e.Err, toolcall.ErrToolNotFound)
			h := resp.History
			tm := h[len(h)-2]
			assert.Equal(t, chat.RoleTool, tm.Role)
			assert.Equal(t, "t1", tm.ToolCallID)
			assert.Equal(t, tc.result, tm.Content)
			assert.Zero(t, l.get()["t1"], "the transfer never ran")
		})
	}
}

// TestAfterToolTellsAWaitingCall: AfterTool sees a waiting call with an
// error that wraps ErrPending and no result, and a finished one without.
func TestAfterToolTellsAWaitingCall(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		seen = map[string]toolcall.ToolExecution{}
	)
	hooks := toolcall.Hooks{AfterTool: func(ctx context.Context, e toolcall.ToolExecution) {
		mu.Lock()
		defer mu.Unlock()
		seen[e.Call.ID] = e
	}}
	var l ledger
	pauseTransfer(t, &l, toolcall.WithHooks(hooks))
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, seen, "t1")
	assert.ErrorIs(t, seen["t1"].Err, toolcall.ErrPending)
	assert.Empty(t, seen["t1"].Result)
	assert.False(t, seen["t1"].IsError)
	require.Contains(t, seen, "b1")
	assert.NoError(t, seen["b1"].Err)
	assert.NotErrorIs(t, seen["b1"].Err, toolcall.ErrPending)
	assert.Equal(t, "100", seen["b1"].Result)
}

// TestResumeGoesOnAfterAFailedModelRequest: the approved calls of a
// resume ran and the model request after them failed. The claimed state
// cannot run again, and the Response returned with the error holds what
// is needed to go on, through Call or Stream: the history with the
// round's results and the session state. Going on runs nothing again.
func TestResumeGoesOnAfterAFailedModelRequest(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			t.Parallel()
			var l ledger
			claimed := map[string]bool{}
			var mu sync.Mutex
			claim := toolcall.WithResumeClaim(func(_ context.Context, id string) error {
				mu.Lock()
				defer mu.Unlock()
				if claimed[id] {
					return toolcall.ErrAlreadyResumed
				}
				claimed[id] = true
				return nil
			})
			_, stored := pauseTransfer(t, &l)
			model := &downFirst{m: tt.NewModel(tt.Text("sent 10 to ana"))}
			client := toolcall.NewClient(model, toolcall.WithTools(bankTools(&l)), claim)
			prompt := client.Prompt().Resume(decode(t, stored), allowT1)
			var resp *toolcall.Response
			var err error
			if stream {
				for ev, e := range prompt.Stream(context.Background()) {
					if e != nil {
						resp, err = ev.Response, e
					}
				}
			} else {
				resp, err = prompt.Call(context.Background())
			}
			require.ErrorIs(t, err, errDown)
			require.NotNil(t, resp)
			assert.Equal(t, 1, l.get()["t1"])
			last := resp.History[len(resp.History)-1]
			assert.Equal(t, "t1", last.ToolCallID, "the history ends with the round's results")
			assert.Equal(t, map[string]any{"payee": "ana-id-7"}, resp.State)

			_, err = client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
			require.ErrorIs(t, err, toolcall.ErrAlreadyResumed)

			resp, err = client.Prompt().Messages(resp.History...).State(resp.State).Call(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "sent 10 to ana", resp.Content())
			assert.Equal(t, 1, l.get()["t1"], "the approved call ran once")
		})
	}
}
