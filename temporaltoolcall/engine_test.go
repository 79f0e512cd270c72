package temporaltoolcall

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
)

var update = flag.Bool("update", false, "write the recorded histories of testdata/ anew")

// engineInput is the Input of a real-engine conversation.
func engineInput(script string) Input {
	return Input{Messages: []chat.Message{chat.UserMessage(script)}, Key: "tenant-7",
		HeartbeatTimeout: 2 * time.Second}
}

func start(t *testing.T, c client.Client, id, queue string, in Input) client.WorkflowRun {
	t.Helper()
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: queue}, WorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// historyOf returns the history of a run, and its size in bytes, and
// checks that no secret of the tool context entered it.
func historyOf(t *testing.T, c client.Client, id, runID string) (*historypb.History, int) {
	t.Helper()
	h := &historypb.History{}
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	b, err := temporalproto.CustomJSONMarshalOptions{}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cr3t") {
		t.Errorf("the history of %s holds the tool context's secret", id)
	}
	size := 0
	for _, e := range h.Events {
		size += e.Size()
	}
	return h, size
}

// record writes a history to testdata for the replay test, with -update.
func record(t *testing.T, name string, h *historypb.History) {
	t.Helper()
	if !*update {
		return
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: " "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKillWorkerMidCall: three sequential tool calls; the worker is killed
// (SIGKILL) while the second runs, and a second worker finishes the
// conversation. The first call ran exactly once; the second, of a tool
// that changes something, is not run again and the model is told the
// worker was lost; of a read-only tool, it is run again. The history is
// valid and the answer arrives.
func TestKillWorkerMidCall(t *testing.T) {
	for _, tc := range []struct {
		tool      string
		second    int // runs of the second call
		lastFound string
		file      string
	}{
		{"step", 1, "step 3 done", "crash-step.json"},
		{"lookup", 2, "step 3 done", "crash-lookup.json"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			c := dial(t)
			runs := filepath.Join(t.TempDir(), "runs")
			queue := "crash-" + tc.tool
			id := "crash-" + tc.tool + fmt.Sprint(time.Now().UnixNano())
			a := startWorker(t, queue, runs)
			run := start(t, c, id, queue, engineInput("steps 3 60000 0 "+tc.tool))
			waitFor(t, time.Minute, "the second call to start", func() bool {
				starts, _ := toolRuns(t, runs)
				return starts[id+" c2"] > 0
			})
			a.kill()
			killed := time.Now()
			startWorker(t, queue, runs)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			resp, err := Result(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("finished %s after the crash", time.Since(killed).Round(time.Millisecond))
			starts, ends := toolRuns(t, runs)
			if starts[id+" c1"] != 1 || ends[id+" c1"] != 1 {
				t.Errorf("the first call started %d and ended %d times, want once", starts[id+" c1"], ends[id+" c1"])
			}
			if starts[id+" c2"] != tc.second {
				t.Errorf("the second call started %d times, want %d", starts[id+" c2"], tc.second)
			}
			if starts[id+" c3"] != 1 {
				t.Errorf("the third call started %d times, want once", starts[id+" c3"])
			}
			if err := toolcalltest.CheckHistory(resp.History); err != nil {
				t.Error(err)
			}
			if want := "finished 3 steps; last: " + tc.lastFound; resp.Content() != want {
				t.Errorf("answer %q, want %q", resp.Content(), want)
			}
			second := resp.Executions[1]
			switch tc.second {
			case 1:
				if !second.IsError || second.Result != lostWorker {
					t.Errorf("the second call's result is %q, want the lost-worker error", second.Result)
				}
			default:
				if second.IsError || !strings.HasPrefix(second.Result, "step 2 done") {
					t.Errorf("the second call's result is %q (error %v), want it run again", second.Result, second.IsError)
				}
			}
			h, size := historyOf(t, c, id, run.GetRunID())
			t.Logf("history: %d events, %d bytes, %d rounds", len(h.Events), size, resp.Rounds)
			record(t, tc.file, h)
		})
	}
}

// TestApprovalAcrossWorkerRestart: the call waits for approval; the worker
// is stopped; a while later a new worker is started and the Update
// approves: the call runs once, on the new worker.
func TestApprovalAcrossWorkerRestart(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "approval"
	id := fmt.Sprint("approval-", time.Now().UnixNano())
	a := startWorker(t, queue, runs)
	run := start(t, c, id, queue, engineInput("steps 1 0 0 transfer"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var pending []toolcall.PendingCall
	waitFor(t, time.Minute, "the call to wait", func() bool {
		var err error
		pending, err = Pending(ctx, c, id, "")
		return err == nil && len(pending) == 1
	})
	if pending[0].ID != "c1" || pending[0].Reason != "approval" {
		t.Fatalf("pending = %+v", pending)
	}
	a.stop()
	time.Sleep(2 * time.Second) // the day the approval takes, shortened
	startWorker(t, queue, runs)
	err := Decide(ctx, c, id, "", map[string]toolcall.Decision{"c9": {Allow: true}})
	if err == nil || !strings.Contains(err.Error(), `call "c9" does not wait`) {
		t.Errorf("a decision for a call that does not wait: %v", err)
	}
	if err := Decide(ctx, c, id, "", map[string]toolcall.Decision{"c1": {Allow: true}}); err != nil {
		t.Fatal(err)
	}
	resp, err := Result(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	starts, ends := toolRuns(t, runs)
	if starts[id+" c1"] != 1 || ends[id+" c1"] != 1 {
		t.Errorf("the approved call started %d and ended %d times, want once", starts[id+" c1"], ends[id+" c1"])
	}
	if want := "finished 1 steps; last: step 1 done"; resp.Content() != want {
		t.Errorf("answer %q, want %q", resp.Content(), want)
	}
	h, _ := historyOf(t, c, id, run.GetRunID())
	record(t, "approval.json", h)
}

// TestHundredConversationsOneWorkerKilled: 100 conversations over two
// worker processes, one killed half-way: all complete, and no tool call
// that completed ran twice.
func TestHundredConversationsOneWorkerKilled(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "hundred"
	a := startWorker(t, queue, runs)
	startWorker(t, queue, runs)
	const n = 100
	prefix := fmt.Sprint("hundred-", time.Now().UnixNano(), "-")
	began := time.Now()
	runsOf := make([]client.WorkflowRun, n)
	for i := range runsOf {
		runsOf[i] = start(t, c, fmt.Sprint(prefix, i), queue, engineInput("steps 3 300 0 step"))
	}
	waitFor(t, 2*time.Minute, "half the tool calls to end", func() bool {
		_, ends := toolRuns(t, runs)
		return len(ends) >= 3*n/2
	})
	a.kill()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	resps := make([]*toolcall.Response, n)
	for i, run := range runsOf {
		wg.Go(func() { resps[i], errs[i] = Result(ctx, run) })
	}
	wg.Wait()
	t.Logf("100 conversations took %s", time.Since(began).Round(time.Millisecond))
	lost := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("conversation %d: %v", i, errs[i])
			continue
		}
		if !strings.HasPrefix(resps[i].Content(), "finished 3 steps") {
			t.Errorf("conversation %d answered %q", i, resps[i].Content())
		}
		if err := toolcalltest.CheckHistory(resps[i].History); err != nil {
			t.Errorf("conversation %d: %v", i, err)
		}
		for _, e := range resps[i].Executions {
			if e.Result == lostWorker {
				lost++
			}
		}
	}
	starts, ends := toolRuns(t, runs)
	total := 0
	for key, s := range starts {
		total += s
		if ends[key] > 0 && s != 1 {
			t.Errorf("%s completed and started %d times", key, s)
		}
	}
	t.Logf("tool calls run: %d for %d conversations (%.2f each); %d lost with the killed worker", total, n, float64(total)/n, lost)
}

// TestContinueAsNewPast4MiB: a conversation whose history passes the
// 4 MiB at which the server suggests continuing as new goes on in a new
// run carrying the conversation, and ends.
func TestContinueAsNewPast4MiB(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "large"
	startWorker(t, queue, runs)
	id := fmt.Sprint("large-", time.Now().UnixNano())
	in := engineInput("steps 12 0 60000 lookup")
	in.MaxIterations = 20
	run := start(t, c, id, queue, in)
	firstRun := run.GetRunID() // Result follows the runs: take the first's id now
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	resp, err := Result(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if want := "finished 12 steps; last: step 12 done"; resp.Content() != want {
		t.Errorf("answer %q, want %q", resp.Content(), want)
	}
	if err := toolcalltest.CheckHistory(resp.History); err != nil {
		t.Error(err)
	}
	if len(resp.Executions) != 12 || resp.Rounds != 13 {
		t.Errorf("%d executions in %d rounds, want 12 in 13", len(resp.Executions), resp.Rounds)
	}
	first, size := historyOf(t, c, id, firstRun)
	last := first.Events[len(first.Events)-1]
	if last.GetEventType() != enums.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
		t.Fatalf("the first run (%d bytes, %d events) ended with %v, not by continuing as new", size, len(first.Events), last.GetEventType())
	}
	total, nruns := size, 1
	for runID := last.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId(); runID != ""; {
		h, s := historyOf(t, c, id, runID)
		total += s
		nruns++
		end := h.Events[len(h.Events)-1]
		runID = end.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	}
	if total <= 4<<20 {
		t.Errorf("the histories hold %d bytes, not past 4 MiB", total)
	}
	t.Logf("first run: %d bytes in %d events; %d runs: %d bytes for %d rounds (%d bytes a round)", size, len(first.Events), nruns, total, resp.Rounds, total/resp.Rounds)
}

// TestNoWorkerRunning: with no worker on the conversation's task queue,
// Pending and Decide fail, when the server gives up or ctx ends, with an
// error that says a worker is needed.
func TestNoWorkerRunning(t *testing.T) {
	c := dial(t)
	id := fmt.Sprint("noworker-", time.Now().UnixNano())
	start(t, c, id, "nobody-polls", engineInput("steps 1 0 0 transfer"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Pending(ctx, c, id, "")
	if err == nil || !strings.Contains(err.Error(), "no worker answered (is a worker of the conversation's task queue running?)") {
		t.Errorf("Pending: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = Decide(ctx, c, id, "", map[string]toolcall.Decision{"c1": {Allow: true}})
	if err == nil || !strings.Contains(err.Error(), "no worker applied the decisions before the context ended") {
		t.Errorf("Decide: %v", err)
	}
	if err := c.TerminateWorkflow(context.Background(), id, "", "test over"); err != nil {
		t.Fatal(err)
	}
}

// TestAbortCancelsTheRound (go test -update records its history for the
// replay test): on the real engine, a call that aborts the
// conversation while another runs: the running call is cancelled, and the
// conversation ends only once it has stopped, with ErrFatal and the whole
// round recorded.
func TestAbortCancelsTheRound(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "abort"
	id := fmt.Sprint("abort-", time.Now().UnixNano())
	startWorker(t, queue, runs)
	run := start(t, c, id, queue, engineInput("abort 60000"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := Result(ctx, run)
	if !errors.Is(err, toolcall.ErrFatal) {
		t.Fatalf("error %v, want ErrFatal", err)
	}
	raw, rerr := os.ReadFile(runs)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !strings.Contains(string(raw), "cancelled "+id+" c1") {
		t.Errorf("when the conversation ended, the running call had not stopped; runs:\n%s", raw)
	}
	if resp == nil || len(resp.Executions) != 2 {
		t.Fatalf("Response %+v, want the round's two executions", resp)
	}
	if e := resp.Executions[0]; e.Result != cancelledCall {
		t.Errorf("the cancelled call's record: %q", e.Result)
	}
	if e := resp.Executions[1]; e.Result != "tool fatal failed" {
		t.Errorf("the aborting call's record: %q", e.Result)
	}
	h, _ := historyOf(t, c, id, run.GetRunID())
	record(t, "abort.json", h)
}

// TestForgedDecisionOnTheEngine: on the real engine, another workflow of
// the namespace schedules the tool activity on the conversations' task
// queue with an "allow" of its own: the worker refuses it and the tool
// does not run.
func TestForgedDecisionOnTheEngine(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "forged"
	startWorker(t, queue, runs)
	id := fmt.Sprint("rogue-", time.Now().UnixNano())
	call := chat.ToolCall{ID: "c1", Name: "transfer", Arguments: []byte(`{"n":1}`)}
	req := toolRequest{Reply: chat.AssistantMessage("", call), Decision: &toolcall.Decision{Allow: true},
		DecisionSeal: "decision.AAAA", Key: "tenant-7", MaxBytes: 1 << 20}
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: queue}, "rogue", req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = run.Get(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "is not one this conversation accepted") {
		t.Fatalf("error %v, want the forged decision refused", err)
	}
	if starts, _ := toolRuns(t, runs); starts[id+" c1"] != 0 {
		t.Errorf("the transfer ran %d times", starts[id+" c1"])
	}
}

// TestManyCallsOnALongConversation: on the real engine, 41 calls in one
// round of a 1.2 MiB conversation, which once wrote 48 MiB of activity
// inputs and was ended by the server: each activity carries its own call,
// and the conversation completes.
func TestManyCallsOnALongConversation(t *testing.T) {
	c := dial(t)
	runs := filepath.Join(t.TempDir(), "runs")
	queue := "many"
	startWorker(t, queue, runs)
	id := fmt.Sprint("many-", time.Now().UnixNano())
	in := engineInput("many 41 " + strings.Repeat("a", 1200<<10))
	run := start(t, c, id, queue, in)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := Result(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Executions) != 41 || resp.Content() != "42 messages after the question" {
		t.Fatalf("%d executions, answer %q", len(resp.Executions), resp.Content())
	}
	if _, size := historyOf(t, c, id, run.GetRunID()); size > 8<<20 {
		t.Errorf("the history holds %d bytes; the round's inputs should not carry the conversation", size)
	}
}

// TestRetryAfterOnTheEngine: on the real engine, a model rate limited twice
// with Retry-After 3s is asked again after 3s each time, not after the
// backoff's 1s and 2s.
func TestRetryAfterOnTheEngine(t *testing.T) {
	c := dial(t)
	queue := "ratelimit"
	startWorker(t, queue, filepath.Join(t.TempDir(), "runs"))
	id := fmt.Sprint("ratelimit-", time.Now().UnixNano())
	began := time.Now()
	run := start(t, c, id, queue, engineInput("ratelimit"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := Result(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); resp.Content() != "answered after the waits" || took < 6*time.Second {
		t.Errorf("answer %q after %s, want it after two waits of 3s", resp.Content(), took)
	}
}
