package temporaltoolcall

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/oteltoolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// TestSpansCarryWorkflowIDs: oteltoolcall's hooks make their chat and
// execute_tool spans inside the activities, with the workflow's id and
// run id on them.
func TestSpansCarryWorkflowIDs(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	var runs atomic.Int64
	w := &Worker{Model: toolcalltest.NewFuncModel(scenarios[0].reply), Tools: testTools(t, &runs),
		Hooks: oteltoolcall.Hooks(oteltoolcall.WithTracerProvider(tp))}
	env := newEnv(t, w)
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "conversation-42"})
	if _, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("go")}}); err != nil {
		t.Fatal(err)
	}
	var chats, tools int
	for _, s := range spans.Ended() {
		attrs := map[attribute.Key]string{}
		for _, a := range s.Attributes() {
			attrs[a.Key] = a.Value.String()
		}
		switch {
		case strings.HasPrefix(s.Name(), "chat"):
			chats++
		case strings.HasPrefix(s.Name(), "execute_tool"):
			tools++
		}
		if attrs["temporalWorkflowID"] != "conversation-42" || attrs["temporalRunID"] == "" {
			t.Errorf("span %s has workflow id %q and run id %q", s.Name(), attrs["temporalWorkflowID"], attrs["temporalRunID"])
		}
	}
	if chats != 4 || tools != 3 {
		t.Errorf("%d chat spans and %d execute_tool spans, want 4 and 3", chats, tools)
	}
}

// TestModelErrorsRetryOrNot: a model error a retry cannot fix is tried
// once; a server error is retried up to ModelAttempts; both end the
// conversation with the chat error.
func TestModelErrorsRetryOrNot(t *testing.T) {
	for _, tc := range []struct {
		err   error
		tries int64
	}{
		{chat.ErrUnauthorized, 1},
		{chat.ErrBadRequest, 1},
		{chat.ErrModelNotFound, 1},
		{chat.ErrToolsNotSupported, 1},
		{chat.ErrServer, 3},
		{chat.ErrRateLimited, 3},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			var tries atomic.Int64
			model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
				tries.Add(1)
				return nil, &chat.ProviderError{Provider: "test", StatusCode: 500, Err: tc.err}
			})
			env := newEnv(t, &Worker{Model: model})
			_, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("hi")}, ModelAttempts: 3})
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if tries.Load() != tc.tries {
				t.Errorf("the model was asked %d times, want %d", tries.Load(), tc.tries)
			}
		})
	}
}

// TestPayloadTooLarge: a conversation that cannot fit in one payload
// fails with a clear error instead of getting stuck.
func TestPayloadTooLarge(t *testing.T) {
	var asked atomic.Int64
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		asked.Add(1)
		return text("hi"), nil
	})
	env := newEnv(t, &Worker{Model: model})
	_, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage(strings.Repeat("a", 5000))}, MaxPayloadBytes: 4000})
	if !errors.Is(err, ErrPayloadTooLarge) || !strings.Contains(err.Error(), "the model request of round 1 is") {
		t.Errorf("error %v, want ErrPayloadTooLarge naming the model request", err)
	}
	if asked.Load() != 0 {
		t.Errorf("the model was asked %d times", asked.Load())
	}
}

// TestContinuesAsNewWhenSuggested: when the server suggests it, the
// workflow continues as new after a round, carrying the conversation;
// the new run finishes it as one run would have.
func TestContinuesAsNewWhenSuggested(t *testing.T) {
	var runs atomic.Int64
	tools := testTools(t, &runs)
	model := toolcalltest.NewFuncModel(scenarios[0].reply)
	in := Input{Messages: []chat.Message{chat.UserMessage("go")}, State: map[string]any{"last": "red"}}

	env := newEnv(t, &Worker{Model: model, Tools: tools})
	env.SetContinueAsNewSuggested(true)
	env.ExecuteWorkflow(WorkflowName, in)
	var can *workflow.ContinueAsNewError
	if !errors.As(env.GetWorkflowError(), &can) {
		t.Fatalf("error %v, want the workflow to continue as new", env.GetWorkflowError())
	}
	var next Input
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.Continued == nil || next.Continued.Rounds != 1 || len(next.Continued.History) != 3 || runs.Load() != 1 {
		t.Fatalf("continued with %+v after %d runs, want the first round carried", next.Continued, runs.Load())
	}
	env = newEnv(t, &Worker{Model: model, Tools: tools})
	got, err := runWorkflow(t, env, next)
	if err != nil {
		t.Fatal(err)
	}
	want, err := toolcall.NewClient(model, toolcall.WithTools(tools)).Prompt("go").Call(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if g, w := comparable(t, got), comparable(t, want); g != w {
		t.Errorf("after continuing as new:\n%s\nPrompt.Call:\n%s", g, w)
	}
}

// TestRetryAfterIsTheNextDelay: a model error with Retry-After waits that
// long before the next attempt, in place of the backoff (1s, then 2s).
func TestRetryAfterIsTheNextDelay(t *testing.T) {
	var tries atomic.Int64
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		if tries.Add(1) <= 2 {
			return nil, &chat.ProviderError{Provider: "test", StatusCode: 429, Err: chat.ErrRateLimited, RetryAfter: 45 * time.Second}
		}
		return text("hi"), nil
	})
	env := newEnv(t, &Worker{Model: model})
	start := env.Now()
	resp, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("hi")}, ModelAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content() != "hi" || tries.Load() != 3 {
		t.Fatalf("answer %q after %d tries", resp.Content(), tries.Load())
	}
	if waited := env.Now().Sub(start); waited < 90*time.Second {
		t.Errorf("the workflow waited %s between the attempts, want the two Retry-Afters of 45s", waited)
	}
}

// TestModelReplyTooLarge: a reply too large to record as a payload ends
// the conversation with ErrPayloadTooLarge, naming it, after one request.
func TestModelReplyTooLarge(t *testing.T) {
	var asked atomic.Int64
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		asked.Add(1)
		return text(strings.Repeat("b", 5000)), nil
	})
	env := newEnv(t, &Worker{Model: model})
	_, err := runWorkflow(t, env, Input{Messages: []chat.Message{chat.UserMessage("hi")}, MaxPayloadBytes: 4000})
	if !errors.Is(err, ErrPayloadTooLarge) || !strings.Contains(err.Error(), "the model reply of round 1 is") {
		t.Errorf("error %v, want ErrPayloadTooLarge naming the model reply", err)
	}
	if asked.Load() != 1 {
		t.Errorf("the model was asked %d times, want once", asked.Load())
	}
}
