package temporaltoolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// reviewOutcome is what one side made of a script of answers.
type reviewOutcome struct {
	val     any
	err     error
	repairs int
	resp    *toolcall.Response
}

func (o reviewOutcome) String() string {
	var ae *toolcall.AnswerError
	switch {
	case errors.As(o.err, &ae):
		return short(fmt.Sprintf("AnswerError(repairs=%d raw=%q %v)", ae.Repairs, ae.Raw, ae.Violations))
	case o.err != nil:
		return short("error: " + o.err.Error())
	}
	return short(fmt.Sprintf("answer %s (repairs %d)", mustJSON(o.val), o.repairs))
}

func short(s string) string {
	if len(s) > 300 {
		return s[:150] + "..." + s[len(s)-150:]
	}
	return s
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// reviewScript answers round by round with the raw texts given: as text in
// the native mode, as final_answer's arguments in the tool mode. A word
// "CALL:name:args" calls another tool.
func reviewScript(script []string) func(req *chat.Request) (*chat.Response, error) {
	return func(req *chat.Request) (*chat.Response, error) {
		round := 0
		for _, m := range req.Messages {
			if m.Role == chat.RoleAssistant {
				round++
			}
		}
		a := script[min(round, len(script)-1)]
		id := fmt.Sprint("c", round+1)
		offered := false
		for _, d := range req.Tools {
			offered = offered || d.Name == "final_answer"
		}
		if strings.HasPrefix(a, "CALL:") {
			var cs []chat.ToolCall
			for i, part := range strings.Split(a[5:], "|") {
				name, args, _ := strings.Cut(part, ":")
				cs = append(cs, toolcalltest.Call(fmt.Sprint(id, "_", i), name, args))
			}
			return calls(cs...), nil
		}
		if offered {
			return calls(toolcalltest.Call(id, "final_answer", a)), nil
		}
		return text(a), nil
	}
}

// bothWays runs script through Prompt.Call with Answer(new(T)) and through
// the workflow with Output = SchemaFor(T), decoding with Answer.
func bothWays[T any](t *testing.T, native bool, script []string) (root, flow reviewOutcome) {
	t.Helper()
	var runs atomic.Int64
	tools := testTools(t, &runs)
	mk := func() chat.Model {
		m := toolcalltest.NewFuncModel(reviewScript(script))
		if native {
			return structuredModel{m}
		}
		return m
	}
	var v T
	resp, err := toolcall.NewClient(mk(), toolcall.WithTools(tools)).Prompt().User("q").Answer(&v).Call(context.Background())
	root = reviewOutcome{val: v, err: err, resp: resp}
	if resp != nil {
		root.repairs = resp.Repairs
	}
	var zero T
	schema, serr := toolcall.SchemaFor(zero)
	if serr != nil {
		t.Fatal(serr)
	}
	w := &Worker{Model: mk(), Tools: tools}
	fresp, ferr := runWorkflow(t, newEnv(t, w), Input{Messages: []chat.Message{chat.UserMessage("q")}, Output: &chat.OutputFormat{Schema: schema}})
	flow = reviewOutcome{err: ferr, resp: fresp}
	if fresp != nil {
		flow.repairs = fresp.Repairs
	}
	if ferr == nil {
		var fv T
		if aerr := Answer(fresp, &fv); aerr != nil {
			flow.err = fmt.Errorf("workflow succeeded, Answer failed: %w", aerr)
		} else {
			flow.val = fv
		}
	}
	return root, flow
}

func sameOutcome(t *testing.T, root, flow reviewOutcome) {
	t.Helper()
	var rae, fae *toolcall.AnswerError
	rOK, fOK := root.err == nil, flow.err == nil
	switch {
	case rOK && fOK:
		if !reflect.DeepEqual(root.val, flow.val) || root.repairs != flow.repairs {
			t.Errorf("Prompt.Call: %v\nworkflow:    %v", root, flow)
		}
	case errors.As(root.err, &rae) && errors.As(flow.err, &fae):
		if rae.Raw != fae.Raw || rae.Repairs != fae.Repairs {
			t.Errorf("Prompt.Call: %v\nworkflow:    %v", root, flow)
		}
	default:
		t.Errorf("Prompt.Call: %v\nworkflow:    %v", root, flow)
	}
}

type rvOpt struct {
	A string `json:"a,omitempty"`
	B int    `json:"b,omitempty"`
}
type rvInt struct {
	N int `json:"n"`
}
type rvF32 struct {
	F float32 `json:"f"`
}
type rvDur struct {
	D time.Duration `json:"d"`
}
type rvTime struct {
	T time.Time `json:"t"`
}
type rvStr struct {
	S string `json:"s"`
}
type rvAny struct {
	X any `json:"x"`
}
type rvMap struct {
	M map[string]int `json:"m"`
}
type rvPtr struct {
	P *int `json:"p,omitempty"`
}

type rvBytes struct {
	B []byte `json:"b"`
}

type reviewCase struct {
	name   string
	run    func(*testing.T, bool, []string) (reviewOutcome, reviewOutcome)
	script []string
}

func runReviewCases(t *testing.T, cases []reviewCase, modes ...bool) {
	t.Helper()
	for _, native := range modes {
		for _, tc := range cases {
			t.Run(map[bool]string{true: "native: ", false: "tool: "}[native]+tc.name, func(t *testing.T) {
				root, flow := tc.run(t, native, tc.script)
				sameOutcome(t, root, flow)
			})
		}
	}
}

// TestAnswerChecksTheType: Answer checks what it decodes against the
// schema of v's type, so a value that breaks it (qty 0 under minimum=1,
// size "XXL" outside the enum, item missing though required) never reaches
// the caller, even from a conversation that asked for no typed answer.
func TestAnswerChecksTheType(t *testing.T) {
	model := toolcalltest.NewFuncModel(func(*chat.Request) (*chat.Response, error) {
		return text(`{"qty":0,"size":"XXL"}`), nil
	})
	resp, err := runWorkflow(t, newEnv(t, &Worker{Model: model}), Input{Messages: []chat.Message{chat.UserMessage("tea")}})
	if err != nil {
		t.Fatal(err)
	}
	var o order
	if err := Answer(resp, &o); err == nil {
		t.Errorf("Answer decoded %+v from a conversation without Input.Output; it breaks order's schema (required item, qty minimum 1, size enum)", o)
	}
}

// rvTree is an answer type that nests.
type rvTree struct {
	K []rvTree `json:"k,omitempty"`
	S string   `json:"s,omitempty"`
}

// TestAnswerRefusalFitsThePayload: the AnswerError a conversation fails
// with (the last answer, the violations, the message) is cut to fit
// MaxPayloadBytes, so that the server records it.
func TestAnswerRefusalFitsThePayload(t *testing.T) {
	const limit = 20000
	// Ten leaves 150 levels deep, each with a number for a string: a
	// reply of about 12 KB, ten violations whose paths are 150 steps long.
	deep := func(leaf string) string {
		return strings.Repeat(`{"k":[`, 150) + leaf + strings.Repeat(`]}`, 150)
	}
	leaves := make([]string, 10)
	for i := range leaves {
		leaves[i] = deep(`{"s":1}`)
	}
	raw := `{"k":[` + strings.Join(leaves, ",") + `]}`
	model := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		if len(req.Messages) < 5 { // two small bad answers, then the large one
			return text(`{"s":1}`), nil
		}
		return text(raw), nil
	})
	_, err := runWorkflow(t, newEnv(t, &Worker{Model: structuredModel{model}}), Input{Messages: []chat.Message{chat.UserMessage("q")},
		Output: &chat.OutputFormat{Schema: mustSchema(t, rvTree{})}, MaxPayloadBytes: limit})
	var ae *toolcall.AnswerError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v, want an AnswerError", err)
	}
	size, _ := jsonSize(refusal{Answer: ae})
	if size > limit || len(err.Error()) > limit {
		t.Errorf("reply of %d bytes: the AnswerError the conversation failed with is %d bytes encoded and its message %d bytes; MaxPayloadBytes is %d: the failure is sent over the limit (the AnswerError is not cut)", len(raw), size, len(err.Error()), limit)
	}
}

func mustSchema(t *testing.T, v any) json.RawMessage {
	t.Helper()
	s, err := toolcall.SchemaFor(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAnswerParityHolds: cases that behave the same in Prompt.Call and the
// workflow (kept as a record of what was tried).
func TestAnswerParityHolds(t *testing.T) {
	deep200 := `{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`
	runReviewCases(t, []reviewCase{
		{"empty", bothWays[rvOpt], []string{"", `{"a":"ok"}`}},
		{"blank", bothWays[rvOpt], []string{"  ", `{"a":"ok"}`}},
		{"null", bothWays[rvOpt], []string{"null", `{"a":"ok"}`}},
		{"empty object, all optional", bothWays[rvOpt], []string{"{}"}},
		{"duplicate keys", bothWays[rvOpt], []string{`{"a":"x","a":"y"}`, `{"a":"ok"}`}},
		{"unknown field", bothWays[rvOpt], []string{`{"a":"x","z":1}`, `{"a":"ok"}`}},
		{"string for a number", bothWays[rvOpt], []string{`{"b":"2"}`, `{"a":"ok"}`}},
		{"int 2.0", bothWays[rvInt], []string{`{"n":2.0}`, `{"n":1}`}},
		{"int 1e2", bothWays[rvInt], []string{`{"n":1e2}`, `{"n":1}`}},
		{"float32 1e-300", bothWays[rvF32], []string{`{"f":1e-300}`, `{"f":1}`}},
		{"duration 90s", bothWays[rvDur], []string{`{"d":"90s"}`, `{"d":"1s"}`}},
		{"duration number", bothWays[rvDur], []string{`{"d":90}`, `{"d":"1s"}`}},
		{"duration bad", bothWays[rvDur], []string{`{"d":"ninety"}`, `{"d":"1s"}`}},
		{"time bad", bothWays[rvTime], []string{`{"t":"2024-13-45T99:00:00Z"}`, `{"t":"2024-01-02T03:04:05Z"}`}},
		{"time offset", bothWays[rvTime], []string{`{"t":"2024-01-02T03:04:05+01:00"}`}},
		{"escaped lone surrogate", bothWays[rvStr], []string{`{"s":"\ud800"}`, `{"s":"ok"}`}},
		{"trailing text", bothWays[rvStr], []string{`{"s":"x"} trailing`, `{"s":"ok"}`}},
		{"two values", bothWays[rvStr], []string{`{"s":"x"}{"s":"y"}`, `{"s":"ok"}`}},
		{"surrounding whitespace", bothWays[rvStr], []string{"  \n{\"s\":\"x\"}  "}},
		{"fenced", bothWays[rvStr], []string{"```json\n{\"s\":\"x\"}\n```", `{"s":"ok"}`}},
		{"null for a string", bothWays[rvStr], []string{`{"s":null}`, `{"s":"ok"}`}},
		{"number for a string", bothWays[rvStr], []string{`{"s":1}`, `{"s":"ok"}`}},
		{"any nested 201", bothWays[rvAny], []string{deep200}},
		{"map duplicate keys", bothWays[rvMap], []string{`{"m":{"k":1,"k":2}}`, `{"m":{}}`}},
		{"map null", bothWays[rvMap], []string{`{"m":null}`, `{"m":{}}`}},
		{"pointer null", bothWays[rvPtr], []string{`{"p":null}`, `{"p":1}`}},
		{"[]byte ok", bothWays[rvBytes], []string{`{"b":"aGk="}`}},
	}, true, false)
	runReviewCases(t, []reviewCase{
		{"answer beside a returnDirect tool", bothWays[rvStr], []string{`CALL:final_answer:{"s":"x"}|direct:{"n":1}`}},
		{"answer beside an unknown tool", bothWays[rvStr], []string{`CALL:final_answer:{"s":"x"}|nosuch:{}`}},
		{"answer beside bad arguments", bothWays[rvStr], []string{`CALL:final_answer:{"s":"x"}|step:{"n":"x"}`}},
		{"bad answer then good", bothWays[rvStr], []string{`CALL:final_answer:{"s":1}|final_answer:{"s":"y"}`}},
		{"good answer then bad", bothWays[rvStr], []string{`CALL:final_answer:{"s":"x"}|final_answer:{"s":1}`}},
		{"two good answers", bothWays[rvStr], []string{`CALL:final_answer:{"s":"x"}|final_answer:{"s":"y"}`}},
		{"not JSON then good", bothWays[rvStr], []string{`CALL:final_answer:{"s":|final_answer:{"s":"y"}`}},
		{"a JSON string", bothWays[rvStr], []string{`"hello"`, `{"s":"ok"}`}},
		{"a JSON array", bothWays[rvStr], []string{`[1]`, `{"s":"ok"}`}},
	}, false)
}
