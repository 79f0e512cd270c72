package temporaltoolcall

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"go.temporal.io/api/enums/v1"
)

// answerInput is the Input of a real-engine conversation that asks for
// an order.
func answerInput(t *testing.T, script string, mode chat.OutputMode) Input {
	in := engineInput("answer " + script)
	in.Output, in.OutputMode = orderOutput(t, false), mode
	return in
}

// TestAnswerOnTheEngine: conversations that ask for a typed answer, on
// the real server: tools run before the answer, the answer decodes in
// both modes, answers that break the schema (not JSON, a required field
// missing, an enum broken) go back to the model with what was wrong and
// the next decodes, and a model that never complies ends in a
// *toolcall.AnswerError with the raw answer.
func TestAnswerOnTheEngine(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "answer"
	startWorker(t, queue, runs)
	for _, tc := range []struct {
		name        string
		script      string
		mode        chat.OutputMode
		wantRepairs int
		told        string // in the history after a repair
		wantRaw     string // of the AnswerError, when the model never complies
		wantRule    string // of the AnswerError's first violation
	}{
		{name: "native, after a tool", script: "lookup ok"},
		{name: "tool, after a tool", script: "lookup ok", mode: chat.OutputTool},
		{name: "native, not JSON", script: "lookup notjson ok", wantRepairs: 1,
			told: "Your answer does not follow the schema: arguments are not valid JSON"},
		{name: "native, an enum broken", script: "badsize ok", wantRepairs: 1,
			told: "Your answer does not follow the schema: size: "},
		{name: "tool, not JSON", script: "lookup notjson ok", mode: chat.OutputTool, wantRepairs: 1,
			told: `invalid arguments for tool "final_answer": arguments are not valid JSON`},
		{name: "tool, a required field missing", script: "nosize ok", mode: chat.OutputTool, wantRepairs: 1,
			told: `invalid arguments for tool "final_answer": `},
		{name: "tool, prose", script: "prose ok", mode: chat.OutputTool, wantRepairs: 1,
			told: "the final answer must be given by calling the tool final_answer, not as text"},
		{name: "native, never complies", script: "lookup badsize", wantRaw: answers["badsize"], wantRule: "enum"},
		{name: "tool, never complies", script: "nosize", mode: chat.OutputTool, wantRaw: answers["nosize"], wantRule: "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint("answer-", time.Now().UnixNano())
			run := start(t, c, id, queue, answerInput(t, tc.script, tc.mode))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := Result(ctx, run)
			if tc.wantRaw != "" {
				var ae *toolcall.AnswerError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v, want a *toolcall.AnswerError", err)
				}
				if ae.Raw != tc.wantRaw || ae.Repairs != 2 || len(ae.Violations) == 0 || ae.Violations[0].Rule != tc.wantRule {
					t.Errorf("AnswerError %+v, want the raw answer %s after 2 repairs, breaking %s", ae, tc.wantRaw, tc.wantRule)
				}
				if resp == nil || resp.Repairs != 2 {
					t.Errorf("the Response so far: %+v, want one with 2 repairs", resp)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got order
			if err := Answer(resp, &got); err != nil {
				t.Fatal(err)
			}
			if got != wantOrder || resp.Repairs != tc.wantRepairs {
				t.Errorf("answer %+v after %d repairs, want %+v after %d", got, resp.Repairs, wantOrder, tc.wantRepairs)
			}
			if strings.HasPrefix(tc.script, "lookup") {
				if e := resp.Executions[0]; e.Call.Name != "lookup" || !strings.HasPrefix(e.Result, "step 1 done") {
					t.Errorf("the first execution %+v, want lookup's result", e)
				}
				if starts, _ := toolRuns(t, runs); starts[id+" c1"] != 1 {
					t.Errorf("lookup ran %d times, want once", starts[id+" c1"])
				}
			}
			if tc.told != "" && !slices.ContainsFunc(resp.History, func(m chat.Message) bool { return strings.HasPrefix(m.Content, tc.told) }) {
				t.Errorf("the model was not told %q:\n%s", tc.told, texts(resp.History))
			}
		})
	}
}

// TestAnswerAcrossDecisionOnTheEngine: a typed answer is asked for, and a
// call of the reply before it waits for approval; once decided, the
// conversation still ends with the typed answer, and the call ran once.
func TestAnswerAcrossDecisionOnTheEngine(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "answer-decision"
	startWorker(t, queue, runs)
	id := fmt.Sprint("answer-decision-", time.Now().UnixNano())
	run := start(t, c, id, queue, answerInput(t, "transfer nosize ok", chat.OutputTool))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	waitFor(t, time.Minute, "the call to wait", func() bool {
		pending, err := Pending(ctx, c, id, "")
		return err == nil && len(pending) == 1 && pending[0].ID == "c1"
	})
	if err := Decide(ctx, c, id, "", map[string]toolcall.Decision{"c1": {Allow: true}}); err != nil {
		t.Fatal(err)
	}
	resp, err := Result(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	var got order
	if err := Answer(resp, &got); err != nil {
		t.Fatal(err)
	}
	if got != wantOrder || resp.Repairs != 1 {
		t.Errorf("answer %+v after %d repairs, want %+v after 1", got, resp.Repairs, wantOrder)
	}
	if starts, ends := toolRuns(t, runs); starts[id+" c1"] != 1 || ends[id+" c1"] != 1 {
		t.Errorf("the approved call started %d and ended %d times, want once", starts[id+" c1"], ends[id+" c1"])
	}
	h, _ := historyOf(t, c, id, run.GetRunID())
	record(t, "answer-decision.json", h)
}

// TestAnswerNativeUnsupportedOnTheEngine: a native answer asked of a
// worker whose model cannot give one fails the conversation, saying so,
// before any activity is scheduled.
func TestAnswerNativeUnsupportedOnTheEngine(t *testing.T) {
	c := dial(t)
	queue := "answer-plain"
	startWorker(t, queue, filepath.Join(t.TempDir(), "runs"), envPlain+"=1")
	id := fmt.Sprint("answer-plain-", time.Now().UnixNano())
	run := start(t, c, id, queue, answerInput(t, "ok", chat.OutputNative))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Result(ctx, run)
	if err == nil || !strings.Contains(err.Error(), "Input.OutputMode: the model (temporaltoolcall.modelFunc) cannot ask for an answer in a schema natively") {
		t.Fatalf("error %v, want one saying the model cannot answer natively", err)
	}
	h, _ := historyOf(t, c, id, run.GetRunID())
	for _, e := range h.Events {
		if e.EventType == enums.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
			t.Fatalf("an activity was scheduled: %v", e)
		}
	}
}
