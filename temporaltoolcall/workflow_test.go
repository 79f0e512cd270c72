package temporaltoolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// toolRounds counts the assistant messages with tool calls in req.
func toolRounds(req *chat.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0 {
			n++
		}
	}
	return n
}

func lastTool(req *chat.Request) string {
	if m := req.Messages[len(req.Messages)-1]; m.Role == chat.RoleTool {
		return m.Content
	}
	return ""
}

type stepIn struct {
	N int `json:"n"`
}

type rememberIn struct {
	Value string `json:"value"`
}

// testTools are the tools of the comparisons: step counts its runs,
// direct returns directly, remember writes and reads the session state,
// fatal aborts the conversation.
func testTools(t *testing.T, runs *atomic.Int64) []toolcall.Tool {
	t.Helper()
	step := toolcall.MustFunc("step", "Do step n", func(ctx context.Context, in stepIn) (string, error) {
		runs.Add(1)
		if in.N == 2 { // the second call takes a moment, so calls of a reply finish out of order
			time.Sleep(20 * time.Millisecond)
		}
		return fmt.Sprintf("step %d done", in.N), nil
	})
	direct := toolcall.MustFunc("direct", "Answer directly", func(ctx context.Context, in stepIn) (string, error) {
		return fmt.Sprintf("direct %d", in.N), nil
	}, toolcall.WithReturnDirect(true))
	remember := toolcall.MustFunc("remember", "Remember a value", func(ctx context.Context, in rememberIn) (string, error) {
		before, _ := toolcall.ToolContextFrom(ctx).Value("last").(string)
		toolcall.SetState(ctx, "last", in.Value)
		return "before: " + before, nil
	})
	fatal := toolcall.MustFunc("fatal", "Fail for good", func(ctx context.Context, in struct{}) (string, error) {
		return "", fmt.Errorf("disk gone: %w", toolcall.ErrFatal)
	})
	return []toolcall.Tool{step, direct, remember, fatal}
}

// A scenario runs one script through Prompt.Call and through the workflow.
type scenario struct {
	name          string
	reply         func(req *chat.Request) (*chat.Response, error)
	maxIterations int
	answerAtLimit bool
	state         map[string]any
	wantErr       error
	wantContent   string
}

func calls(cs ...chat.ToolCall) *chat.Response {
	return &chat.Response{Message: chat.AssistantMessage("", cs...), FinishReason: chat.FinishToolCalls}
}

func text(s string) *chat.Response {
	return &chat.Response{Message: chat.AssistantMessage(s), FinishReason: chat.FinishStop, Usage: chat.Usage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5}}
}

var scenarios = []scenario{
	{
		name: "three sequential calls",
		reply: func(req *chat.Request) (*chat.Response, error) {
			if n := toolRounds(req); n < 3 {
				return calls(toolcalltest.Call(fmt.Sprintf("c%d", n+1), "step", fmt.Sprintf(`{"n":%d}`, n+1))), nil
			}
			return text("done after " + lastTool(req)), nil
		},
		wantContent: "done after step 3 done",
	},
	{
		name: "parallel calls, results in call order, ids made unique",
		reply: func(req *chat.Request) (*chat.Response, error) {
			if toolRounds(req) == 0 {
				return calls(toolcalltest.Call("x", "step", `{"n":2}`), toolcalltest.Call("x", "step", `{"n":1}`),
					toolcalltest.Call("", "step", `{"n":3}`)), nil
			}
			return text("ok"), nil
		},
		wantContent: "ok",
	},
	{
		name: "returnDirect",
		reply: func(req *chat.Request) (*chat.Response, error) {
			return calls(toolcalltest.Call("d1", "direct", `{"n":1}`), toolcalltest.Call("d2", "direct", `{"n":2}`)), nil
		},
		wantContent: "direct 1\ndirect 2",
	},
	{
		name: "returnDirect mixed with another tool goes back to the model",
		reply: func(req *chat.Request) (*chat.Response, error) {
			if toolRounds(req) == 0 {
				return calls(toolcalltest.Call("d1", "direct", `{"n":1}`), toolcalltest.Call("s1", "step", `{"n":1}`)), nil
			}
			return text("mixed"), nil
		},
		wantContent: "mixed",
	},
	{
		name: "unknown tool and bad arguments are fed back",
		reply: func(req *chat.Request) (*chat.Response, error) {
			if toolRounds(req) == 0 {
				return calls(toolcalltest.Call("u", "nope", `{}`), toolcalltest.Call("b", "step", `{"n":"two"}`)), nil
			}
			var got []string
			for _, m := range req.Messages[len(req.Messages)-2:] {
				got = append(got, m.Content)
			}
			return text(strings.Join(got, " | ")), nil
		},
	},
	{
		name: "iteration limit",
		reply: func(req *chat.Request) (*chat.Response, error) {
			return calls(toolcalltest.Call(fmt.Sprint("c", toolRounds(req)), "step", `{"n":1}`)), nil
		},
		maxIterations: 2,
		wantErr:       toolcall.ErrMaxIterations,
	},
	{
		name: "answer at limit",
		reply: func(req *chat.Request) (*chat.Response, error) {
			if req.ToolChoice.Mode == chat.ToolChoiceNone {
				return text("final answer"), nil
			}
			return calls(toolcalltest.Call(fmt.Sprint("c", toolRounds(req)), "step", `{"n":1}`)), nil
		},
		maxIterations: 2,
		answerAtLimit: true,
		wantContent:   "final answer",
	},
	{
		name: "a cut reply runs nothing",
		reply: func(req *chat.Request) (*chat.Response, error) {
			r := calls(toolcalltest.Call("c1", "step", `{"n":1}`))
			r.FinishReason = chat.FinishLength
			return r, nil
		},
		wantErr: toolcall.ErrReplyCut,
	},
	{
		name: "an empty answer is an error",
		reply: func(req *chat.Request) (*chat.Response, error) {
			if toolRounds(req) == 0 {
				return calls(toolcalltest.Call("c1", "step", `{"n":1}`)), nil
			}
			return &chat.Response{Message: chat.AssistantMessage(""), FinishReason: chat.FinishStop}, nil
		},
		wantErr: toolcall.ErrEmptyAnswer,
	},
	{
		name: "session state",
		reply: func(req *chat.Request) (*chat.Response, error) {
			switch toolRounds(req) {
			case 0:
				return calls(toolcalltest.Call("r1", "remember", `{"value":"blue"}`)), nil
			case 1:
				return calls(toolcalltest.Call("r2", "remember", `{"value":"green"}`)), nil
			}
			return text(lastTool(req)), nil
		},
		state:       map[string]any{"last": "red"},
		wantContent: "before: blue",
	},
	{
		name: "a fatal tool error ends the conversation",
		reply: func(req *chat.Request) (*chat.Response, error) {
			return calls(toolcalltest.Call("f", "fatal", `{}`)), nil
		},
		wantErr: toolcall.ErrFatal,
	},
}

// testDecisionKey signs the decisions of the tests' workers.
var testDecisionKey = []byte("test-decision-key-of-32-bytes-at-least")

// newEnv returns a test environment with w registered.
func newEnv(t *testing.T, w *Worker) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	if err := w.Register(env); err != nil {
		t.Fatal(err)
	}
	return env
}

// runWorkflow runs the conversation to its end in env.
func runWorkflow(t *testing.T, env *testsuite.TestWorkflowEnvironment, in Input) (*toolcall.Response, error) {
	t.Helper()
	env.ExecuteWorkflow(WorkflowName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		return failed(err)
	}
	var resp *toolcall.Response
	if err := env.GetWorkflowResult(&resp); err != nil {
		t.Fatal(err)
	}
	return resp, nil
}

// comparable returns resp as JSON without what differs between two runs
// of the same script (durations) or does not cross a process boundary
// (errors, which have no JSON).
func comparable(t *testing.T, resp *toolcall.Response) string {
	t.Helper()
	if resp == nil {
		return "null"
	}
	c := *resp
	c.Executions = append([]toolcall.ToolExecution(nil), resp.Executions...)
	for i := range c.Executions {
		c.Executions[i].Duration = 0
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConversationMatchesPromptCall runs each scenario through Prompt.Call
// and through the workflow, and requires the same Response and error.
func TestConversationMatchesPromptCall(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			var runs atomic.Int64
			tools := testTools(t, &runs)
			model := toolcalltest.NewFuncModel(sc.reply)

			opts := []toolcall.ClientOption{toolcall.WithTools(tools)}
			if sc.maxIterations != 0 {
				opts = append(opts, toolcall.WithMaxIterations(sc.maxIterations))
			}
			if sc.answerAtLimit {
				opts = append(opts, toolcall.WithAnswerAtLimit())
			}
			p := toolcall.NewClient(model, opts...).Prompt().System("be brief").User("go")
			if sc.state != nil {
				p.State(sc.state)
			}
			want, wantErr := p.Call(context.Background())
			callRuns := runs.Swap(0)

			env := newEnv(t, &Worker{Model: model, Tools: tools})
			got, err := runWorkflow(t, env, Input{System: "be brief", Messages: []chat.Message{chat.UserMessage("go")},
				MaxIterations: sc.maxIterations, AnswerAtLimit: sc.answerAtLimit, State: sc.state})

			if !errors.Is(wantErr, sc.wantErr) || (sc.wantErr == nil) != (wantErr == nil) {
				t.Fatalf("Prompt.Call: error %v, want %v", wantErr, sc.wantErr)
			}
			if !errors.Is(err, sc.wantErr) || (sc.wantErr == nil) != (err == nil) {
				t.Fatalf("workflow: error %v, want %v", err, sc.wantErr)
			}
			if sc.wantErr == nil && want.Content() != sc.wantContent && sc.wantContent != "" {
				t.Fatalf("Prompt.Call answered %q, want %q", want.Content(), sc.wantContent)
			}
			if wantErr != nil {
				if g, w := comparable(t, got), comparable(t, want); g != w {
					t.Errorf("workflow Response on error:\n%s\nPrompt.Call:\n%s", g, w)
				}
			}
			if wantErr == nil {
				if got.Content() != want.Content() {
					t.Errorf("workflow answered %q, Prompt.Call %q", got.Content(), want.Content())
				}
				if g, w := comparable(t, got), comparable(t, want); g != w {
					t.Errorf("workflow Response:\n%s\nPrompt.Call:\n%s", g, w)
				}
				if err := toolcalltest.CheckHistory(got.History); err != nil {
					t.Errorf("history: %v", err)
				}
			}
			if r := runs.Load(); r != callRuns {
				t.Errorf("the workflow ran step %d times, Prompt.Call %d", r, callRuns)
			}
		})
	}
}
