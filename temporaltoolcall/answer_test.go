package temporaltoolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// order is the typed answer of the tests.
type order struct {
	Item string `json:"item" jsonschema:"description=What to order"`
	Qty  int    `json:"qty" jsonschema:"minimum=1,maximum=10"`
	Size string `json:"size" jsonschema:"enum=S,enum=M,enum=L"`
	Note string `json:"note,omitempty"`
}

var wantOrder = order{Item: "tea", Qty: 2, Size: "M"}

// answers are the answers of answerScript, by name.
var answers = map[string]string{
	"ok":       `{"item":"tea","qty":2,"size":"M"}`,
	"notjson":  `{"item":"tea",`,
	"nosize":   `{"item":"tea","qty":2}`,
	"badsize":  `{"item":"tea","qty":2,"size":"XL"}`,
	"toomany":  `{"item":"tea","qty":20,"size":"M"}`,
	"nullnote": `{"item":"tea","qty":2,"size":"M","note":null}`,
}

// answerScript replies to req as script says, one word a round (counted
// by the replies so far), the last word repeating: an answer of answers,
// given as the text of the reply where the final_answer tool is not
// offered and as its call where it is; "prose", a text that is no JSON;
// "ok+step", the answer and a call of step in one reply; or the name of a
// tool, called with {"n": round}.
func answerScript(req *chat.Request, script []string) (*chat.Response, error) {
	round := 0
	for _, m := range req.Messages {
		if m.Role == chat.RoleAssistant {
			round++
		}
	}
	word := script[min(round, len(script)-1)]
	id := fmt.Sprint("c", round+1)
	offered := slices.ContainsFunc(req.Tools, func(d chat.ToolDefinition) bool { return d.Name == "final_answer" })
	switch a, ok := answers[word]; {
	case word == "prose":
		return text("Two teas, medium."), nil
	case word == "ok+step":
		return calls(toolcalltest.Call(id, "final_answer", answers["ok"]), toolcalltest.Call(id+"s", "step", `{"n":1}`)), nil
	case ok && offered:
		return calls(toolcalltest.Call(id, "final_answer", a)), nil
	case ok:
		return text(a), nil
	}
	return calls(toolcalltest.Call(id, word, fmt.Sprintf(`{"n":%d}`, round+1))), nil
}

// structuredModel asks for structured output natively.
type structuredModel struct{ chat.Model }

func (structuredModel) StructuredOutput() bool { return true }

// orderOutput is the Output of an order.
func orderOutput(t *testing.T, strict bool) *chat.OutputFormat {
	t.Helper()
	schema, err := toolcall.SchemaFor(order{})
	if strict {
		schema, err = toolcall.StrictSchemaFor(order{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return &chat.OutputFormat{Schema: schema, Strict: strict}
}

// jsonOf returns v as indented JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnswerMatchesPromptCall runs each script through Prompt.Call with
// Prompt.Answer and through the workflow with Input.Output, and requires
// the same requests to the model (tools, tool choice, output format, the
// repair texts), the same Response and the same answer or AnswerError.
func TestAnswerMatchesPromptCall(t *testing.T) {
	for _, tc := range []struct {
		name          string
		script        string
		native        bool // the model can ask natively
		mode          chat.OutputMode
		strict        bool // toolcall.WithStrictTools
		repairs       int
		maxIterations int
		answerAtLimit bool
		wantRepairs   int
		wantErr       error // nil, errAnswer, or a sentinel
		// malformed: the model sends arguments that are not JSON, which
		// Prompt.Call's Response cannot encode: only texts are compared.
		malformed bool
	}{
		{name: "native: a tool, then the answer", script: "step ok", native: true},
		{name: "tool: a tool, then the answer", script: "step ok", native: true, mode: chat.OutputTool},
		{name: "tool mode where the model cannot ask natively", script: "step ok"},
		{name: "native: not JSON, repaired", script: "notjson ok", native: true, wantRepairs: 1},
		{name: "native: a missing required field, repaired", script: "nosize ok", native: true, wantRepairs: 1},
		{name: "native: an enum broken, repaired", script: "badsize ok", native: true, wantRepairs: 1},
		{name: "native: a bound broken, repaired", script: "toomany ok", native: true, wantRepairs: 1},
		{name: "native: prose, repaired", script: "prose ok", native: true, wantRepairs: 1},
		{name: "tool: not JSON, repaired", script: "notjson ok", wantRepairs: 1, malformed: true},
		{name: "tool: never JSON", script: "notjson", wantErr: errAnswer, malformed: true},
		{name: "tool: a missing required field, repaired", script: "nosize ok", wantRepairs: 1},
		{name: "tool: an enum broken, repaired", script: "badsize ok", wantRepairs: 1},
		{name: "tool: prose, repaired", script: "prose ok", wantRepairs: 1},
		{name: "tool: the answer beside another call", script: "ok+step"},
		{name: "tool: returnDirect does not end the conversation", script: "direct ok"},
		{name: "native: never complies", script: "step badsize", native: true, wantErr: errAnswer},
		{name: "tool: never complies", script: "nosize", wantErr: errAnswer},
		{name: "tool: prose forever", script: "prose", wantErr: errAnswer},
		{name: "repairs bounded by MaxAnswerRepairs", script: "badsize badsize ok", repairs: 1, wantErr: errAnswer},
		{name: "no bound on repairs", script: "badsize badsize badsize ok", repairs: toolcall.NoLimit, wantRepairs: 3},
		{name: "strict tool: null for an optional field", script: "nullnote", strict: true},
		{name: "strict native: null for an optional field", script: "nullnote", native: true, strict: true},
		{name: "tool: the answer past the limit", script: "step step ok", maxIterations: 2, answerAtLimit: true},
		{name: "native: the answer past the limit", script: "step step ok", native: true, maxIterations: 2, answerAtLimit: true},
		{name: "native: no answer within the limit", script: "step", native: true, maxIterations: 2, wantErr: toolcall.ErrMaxIterations},
		{name: "tool: repairs end at the limit", script: "step nosize", maxIterations: 2, wantErr: errAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := strings.Fields(tc.script)
			var runs atomic.Int64
			tools := testTools(t, &runs)
			newModel := func() (chat.Model, *toolcalltest.Model) {
				m := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) { return answerScript(req, script) })
				if tc.native {
					return structuredModel{m}, m
				}
				return m, m
			}

			model, callModel := newModel()
			opts := []toolcall.ClientOption{toolcall.WithTools(tools), toolcall.WithLimits(toolcall.Limits{MaxAnswerRepairs: tc.repairs})}
			if tc.maxIterations != 0 {
				opts = append(opts, toolcall.WithMaxIterations(tc.maxIterations))
			}
			if tc.answerAtLimit {
				opts = append(opts, toolcall.WithAnswerAtLimit())
			}
			if tc.strict {
				opts = append(opts, toolcall.WithStrictTools())
			}
			var want order
			wantResp, wantErr := toolcall.NewClient(model, opts...).Prompt().System("be brief").User("tea").
				Answer(&want).AnswerMode(tc.mode).Call(context.Background())

			model, flowModel := newModel()
			w := &Worker{Model: model, Tools: tools}
			if tc.strict {
				w.Options = []toolcall.ManagerOption{toolcall.WithStrictTools()}
			}
			gotResp, err := runWorkflow(t, newEnv(t, w), Input{System: "be brief", Messages: []chat.Message{chat.UserMessage("tea")},
				Output: orderOutput(t, false), OutputMode: tc.mode, MaxAnswerRepairs: tc.repairs,
				MaxIterations: tc.maxIterations, AnswerAtLimit: tc.answerAtLimit})

			var wantAE, gotAE *toolcall.AnswerError
			switch {
			case tc.wantErr == errAnswer:
				if !errors.As(wantErr, &wantAE) || !errors.As(err, &gotAE) {
					t.Fatalf("errors: Prompt.Call %v, workflow %v; want AnswerErrors", wantErr, err)
				}
				if g, w := jsonOf(t, gotAE), jsonOf(t, wantAE); g != w {
					t.Errorf("workflow AnswerError:\n%s\nPrompt.Call:\n%s", g, w)
				}
				if gotAE.Raw == "" || len(gotAE.Violations) == 0 {
					t.Errorf("the AnswerError lacks the raw answer or the violations: %+v", gotAE)
				}
			case tc.wantErr != nil:
				if !errors.Is(wantErr, tc.wantErr) || !errors.Is(err, tc.wantErr) {
					t.Fatalf("errors: Prompt.Call %v, workflow %v; want %v", wantErr, err, tc.wantErr)
				}
			default:
				if wantErr != nil || err != nil {
					t.Fatalf("errors: Prompt.Call %v, workflow %v", wantErr, err)
				}
				var got order
				if err := Answer(gotResp, &got); err != nil {
					t.Fatal(err)
				}
				if got != wantOrder || want != wantOrder {
					t.Errorf("answers: workflow %+v, Prompt.Call %+v; want %+v", got, want, wantOrder)
				}
				if gotResp.Repairs != tc.wantRepairs {
					t.Errorf("Repairs = %d, want %d", gotResp.Repairs, tc.wantRepairs)
				}
				if err := toolcalltest.CheckHistory(gotResp.History); err != nil {
					t.Errorf("history: %v", err)
				}
			}
			if g, w := texts(gotResp.History), texts(wantResp.History); g != w {
				t.Errorf("workflow history:\n%s\nPrompt.Call:\n%s", g, w)
			}
			if tc.malformed {
				return
			}
			if g, w := comparable(t, gotResp), comparable(t, wantResp); g != w {
				t.Errorf("workflow Response:\n%s\nPrompt.Call:\n%s", g, w)
			}
			if g, w := jsonOf(t, flowModel.Requests()), jsonOf(t, callModel.Requests()); g != w {
				t.Errorf("workflow requests:\n%s\nPrompt.Call:\n%s", g, w)
			}
		})
	}
}

// texts returns the roles and texts of hist, one message a line.
func texts(hist []chat.Message) string {
	var b strings.Builder
	for _, m := range hist {
		fmt.Fprintf(&b, "%s (error %v): %q\n", m.Role, m.IsError, m.Content)
	}
	return b.String()
}

// errAnswer stands for a *toolcall.AnswerError in the tables.
var errAnswer = errors.New("an AnswerError")

// TestAnswerNativeUnsupported: a native answer asked of a model that
// cannot give one fails the conversation before the model is asked, and
// so does a mode that does not exist.
func TestAnswerNativeUnsupported(t *testing.T) {
	for _, tc := range []struct {
		mode chat.OutputMode
		want string
	}{
		{chat.OutputNative, "cannot ask for an answer in a schema natively; use chat.OutputTool"},
		{"json", `unknown mode "json"`},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) { return text(answers["ok"]), nil })
			_, err := runWorkflow(t, newEnv(t, &Worker{Model: model}), Input{Messages: []chat.Message{chat.UserMessage("tea")},
				Output: orderOutput(t, false), OutputMode: tc.mode})
			if err == nil || !strings.Contains(err.Error(), "Input.OutputMode: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if n := len(model.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
		})
	}
}

// TestAnswerInputRefused: a schema the checks refuse, no schema, and a
// worker tool with the answer tool's name fail the conversation, the
// first two before the model is asked.
func TestAnswerInputRefused(t *testing.T) {
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) { return text(answers["ok"]), nil })
	bad := &chat.OutputFormat{Schema: json.RawMessage(`{"type":"object","unevaluatedProperties":false}`)}
	_, err := runWorkflow(t, newEnv(t, &Worker{Model: model}), Input{Messages: []chat.Message{chat.UserMessage("tea")}, Output: bad})
	if err == nil || !strings.Contains(err.Error(), "Input.Output: ") {
		t.Errorf("a schema the checks refuse: error %v", err)
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}

	_, err = runWorkflow(t, newEnv(t, &Worker{Model: model}), Input{Messages: []chat.Message{chat.UserMessage("tea")}, Output: &chat.OutputFormat{}})
	if err == nil || !strings.Contains(err.Error(), "Input.Output has no schema") {
		t.Errorf("no schema: error %v", err)
	}

	clash := toolcall.MustFunc("final_answer", "Not the answer", func(ctx context.Context, in stepIn) (string, error) { return "", nil })
	_, err = runWorkflow(t, newEnv(t, &Worker{Model: model, Tools: []toolcall.Tool{clash}}),
		Input{Messages: []chat.Message{chat.UserMessage("tea")}, Output: orderOutput(t, false), ModelAttempts: 1})
	if !errors.Is(err, toolcall.ErrInvalidTool) && (err == nil || !strings.Contains(err.Error(), "has the name of the answer tool")) {
		t.Errorf("a worker tool named final_answer: error %v", err)
	}
}

// TestAnswerRefusesResponsesWithout: Answer decodes only a typed answer.
func TestAnswerRefusesResponsesWithout(t *testing.T) {
	direct := &toolcall.Response{ReturnedDirect: true, Rounds: 1, Message: calls(toolcalltest.Call("d", "direct", `{}`)).Message}
	otherCall := &toolcall.Response{Rounds: 1, Message: calls(toolcalltest.Call("c1", "step", `{}`)).Message,
		Executions: []toolcall.ToolExecution{{Call: toolcalltest.Call("c1", "step", `{}`), Round: 1, Result: "done"}}}
	for _, tc := range []struct {
		name string
		resp *toolcall.Response
		v    any
		want string
	}{
		{"nil", nil, new(order), "no response"},
		{"not a pointer", &toolcall.Response{}, order{}, "non-nil pointer"},
		{"prose", &toolcall.Response{Message: chat.AssistantMessage("Two teas.")}, new(order), "final text is not an answer of type temporaltoolcall.order"},
		{"another type", &toolcall.Response{Message: chat.AssistantMessage(`{"item":"tea","colour":"red"}`)}, new(order), "colour"},
		{"returned directly", direct, new(order), "returned directly"},
		{"no answer call", otherCall, new(order), "none of them final_answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Answer(tc.resp, tc.v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if o, ok := tc.v.(*order); ok && *o != (order{}) {
				t.Errorf("v was written: %+v", *o)
			}
		})
	}
}
