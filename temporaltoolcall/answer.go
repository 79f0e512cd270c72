package temporaltoolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/answer"
	"github.com/toolcall-go/toolcall/internal/check"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// typeAnswer is the error type of a conversation whose typed answer broke
// its schema after the repairs allowed; its details carry the AnswerError.
const typeAnswer = "toolcall.AnswerError"

// Answer decodes the typed answer of a conversation that asked for one
// (Input.Output) into v, a non-nil pointer: the text of the final reply in
// the native mode, the arguments of its final_answer call in the tool
// mode. The workflow checked the answer against the schema the model was
// sent; Answer checks it again, against the schema of v's type (or its
// strict variant), and decodes it as Prompt.Answer does (unknown fields
// refused, a time.Duration written as "90s"): v is written only with an
// answer that passed, even from a conversation that asked for none.
//
// A Response without a typed answer is an error: nil, one that ended with
// tools returning directly or with calls none of which gave the answer,
// and one whose final text does not decode into v (a conversation started
// without Input.Output ends with prose).
func Answer(resp *toolcall.Response, v any) error {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("temporaltoolcall: Answer needs a non-nil pointer to decode into, got %T", v)
	}
	if resp == nil {
		return errors.New("temporaltoolcall: Answer: no response")
	}
	if resp.ReturnedDirect {
		return errors.New("temporaltoolcall: Answer: the response has no typed answer: it ended with tool results returned directly (was Input.Output set?)")
	}
	raw, given := []byte(resp.Message.Content), "text"
	if len(resp.Message.ToolCalls) > 0 {
		raw = nil
		for _, e := range resp.Executions {
			// The answer is the first call of the last round that passed.
			if e.Round == resp.Rounds && e.Call.Name == answer.Tool && !e.IsError {
				raw, given = e.Call.Arguments, "answer"
				break
			}
		}
		if raw == nil {
			return fmt.Errorf("temporaltoolcall: Answer: the response has no typed answer: its final reply calls tools, none of them %s with an answer that passed", answer.Tool)
		}
	}
	t := rv.Type().Elem()
	in, err := check.ForType(t)
	if err != nil {
		return fmt.Errorf("temporaltoolcall: Answer: the answer's type %s: %w", t, err)
	}
	// Checked again here, against the schema of v's type, as Prompt.Answer
	// checks it: v never gets a value that broke it, whatever the
	// conversation asked for. The strict variant is what a worker with
	// toolcall.WithStrictTools sent.
	fresh := reflect.New(t)
	vs := in.Variant(false, false, false).Check(in, raw, fresh.Interface())
	if vs != nil {
		fresh = reflect.New(t)
		if in.Variant(false, true, false).Check(in, raw, fresh.Interface()) != nil {
			return fmt.Errorf("temporaltoolcall: Answer: the response's final %s is not an answer of type %s (was Input.Output set?): %s",
				given, t, joined(violations(vs)))
		}
	}
	rv.Elem().Set(fresh.Elem())
	return nil
}

// An answerSpec is a conversation's request for a typed answer, as this
// run asks for it: the mode, the answer's schema as the worker sends it,
// and its checker.
type answerSpec struct {
	mode    chat.OutputMode
	def     chat.ToolDefinition // the answer tool, offered in the tool mode
	format  chat.OutputFormat   // sent in the native mode
	in      *check.Input
	k       *check.Checker // the schema as sent, checked as it is
	repairs int
}

// answerOffer is how a worker asks for a typed answer, recorded in the
// history (workflow.SideEffect), so that a replay, on any worker, asks as
// the first run did.
type answerOffer struct {
	Mode chat.OutputMode     `json:"mode,omitempty"`
	Tool chat.ToolDefinition `json:"tool"`
	Err  string              `json:"err,omitempty"`
}

// offerAnswer chooses the mode for the worker's model and builds the
// answer tool as the worker's Manager offers it: the strict variant of
// its schema with toolcall.WithStrictTools. The native mode sends the
// same schema.
func (w *Worker) offerAnswer(format chat.OutputFormat, mode chat.OutputMode) answerOffer {
	mode, err := answer.Mode(w.Model, mode)
	if err != nil {
		return answerOffer{Err: "temporaltoolcall: Input.OutputMode: " + err.Error()}
	}
	tool, err := toolcall.NewTool(chat.ToolDefinition{Name: answer.Tool, Description: answer.Description,
		InputSchema: format.Schema, Strict: format.Strict},
		func(context.Context, json.RawMessage) (string, error) { return answer.Received, nil })
	var defs []chat.ToolDefinition
	if err == nil {
		defs, err = w.manager(nil).Definitions([]toolcall.Tool{tool})
	}
	if err != nil {
		return answerOffer{Err: "temporaltoolcall: Input.Output: " + err.Error()}
	}
	return answerOffer{Mode: mode, Tool: defs[0]}
}

// askAnswer prepares the conversation's typed answer, before the model is
// asked: a mode the worker's model cannot serve, or a schema the checks
// refuse, fails the conversation here.
func (c *conversation) askAnswer() error {
	in := &c.in
	if in.Output == nil {
		return nil
	}
	format, mode := *in.Output, in.OutputMode
	if s := bytes.TrimSpace(format.Schema); len(s) == 0 || string(s) == "null" {
		return c.fail(typeInput, nil, "temporaltoolcall: Input.Output has no schema; make one with toolcall.SchemaFor")
	}
	var off answerOffer
	err := workflow.SideEffect(c.ctx, func(workflow.Context) any { return c.w.offerAnswer(format, mode) }).Get(&off)
	if err != nil {
		return err
	}
	if off.Err != "" {
		return c.fail(typeInput, nil, "%s", off.Err)
	}
	checked, err := check.NewInput(off.Tool.InputSchema, nil, nil, false)
	if err != nil {
		return c.fail(typeInput, nil, "temporaltoolcall: Input.Output: the schema cannot be checked: %v", err)
	}
	a := &answerSpec{mode: off.Mode, def: off.Tool, in: checked, k: checked.Variant(true, false, false), repairs: answer.DefaultRepairs}
	switch {
	case in.MaxAnswerRepairs < 0:
		a.repairs = math.MaxInt
	case in.MaxAnswerRepairs > 0:
		a.repairs = in.MaxAnswerRepairs
	}
	if format.Name == "" {
		format.Name = answer.FormatName
	}
	a.format = chat.OutputFormat{Name: format.Name, Schema: off.Tool.InputSchema, Strict: off.Tool.Strict}
	c.answer = a
	return nil
}

// request asks for the answer in req: natively, or by offering the answer
// tool beside the worker's; then, unless the Input chose a tool choice,
// the model must call a tool each round, and the answer tool at the limit
// (Input.AnswerAtLimit).
func (a *answerSpec) request(in *Input, req *modelRequest, atLimit bool) {
	if a.mode == chat.OutputNative {
		req.Request.Output = &a.format
		return
	}
	req.AnswerTool = &a.def
	if in.ToolChoice.IsZero() {
		req.Request.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceRequired}
		if atLimit {
			req.Request.ToolChoice = chat.ToolChoice{Name: answer.Tool}
		}
	}
}

// takes reports whether call gives the answer, which runs no activity.
func (a *answerSpec) takes(call chat.ToolCall) bool {
	return a != nil && a.mode == chat.OutputTool && call.Name == answer.Tool
}

// onlyAnswers reports whether every call of reply gives the answer, which
// is then taken also past the iteration limit.
func (a *answerSpec) onlyAnswers(reply *chat.Response) bool {
	if a == nil || a.mode != chat.OutputTool {
		return false
	}
	for _, c := range reply.Message.ToolCalls {
		if c.Name != answer.Tool {
			return false
		}
	}
	return true
}

// check checks an answer against the schema the model was sent.
func (a *answerSpec) check(args []byte) []toolcall.Violation {
	return violations(a.k.Check(a.in, args, nil))
}

// given is the record of a call of the answer tool, as the Manager makes
// it: its arguments checked, bad ones told to the model as any tool's are.
func (a *answerSpec) given(call chat.ToolCall, round int, malformed bool) toolcall.ToolExecution {
	e := toolcall.ToolExecution{Call: call, Round: round, Result: answer.Received}
	if vs := a.check(check.Normalize(sent(call, malformed))); vs != nil {
		e.IsError = true
		e.Result = strings.TrimSpace((&toolcall.ArgumentError{Tool: answer.Tool, Violations: vs}).Error())
	}
	return e
}

// answered looks for the answer among a round's executions: done when a
// call gave one that passed; otherwise the last one refused, if any.
func (a *answerSpec) answered(execs []toolcall.ToolExecution, policies []callPolicy) (done bool, refused *toolcall.AnswerError) {
	for i, e := range execs {
		if !a.takes(e.Call) {
			continue
		}
		raw := sent(e.Call, i < len(policies) && policies[i].Malformed)
		args := raw
		if e.IsError {
			args = check.Normalize(raw) // as it was checked
		}
		vs := a.check(args)
		if vs == nil {
			return true, nil
		}
		refused = &toolcall.AnswerError{Raw: string(raw), Violations: vs}
	}
	return false, refused
}

// fromText takes a reply in text: the answer in the native mode, when it
// passes; otherwise refused, with what the model is told.
func (a *answerSpec) fromText(text string) (refused *toolcall.AnswerError, tell string) {
	if a.mode != chat.OutputNative {
		v := toolcall.Violation{Rule: answer.NotAnsweredRule, Message: answer.NotAnswered}
		return &toolcall.AnswerError{Raw: text, Violations: []toolcall.Violation{v}}, v.Message
	}
	vs := a.check([]byte(text))
	if vs == nil {
		return nil, ""
	}
	return &toolcall.AnswerError{Raw: text, Violations: vs}, answer.Repair(vs)
}

// textAnswer takes a reply without calls, reply, when an answer is asked
// for: the conversation ends (done) with the answer, or with an
// AnswerError once the repairs are spent or the round is past the limit
// (last); otherwise it goes on with hist and what the model is told.
func (c *conversation) textAnswer(hist []chat.Message, reply chat.Message, last bool) (next []chat.Message, done bool, err error) {
	resp := c.resp
	hist = append(slices.Clip(hist), reply)
	resp.History = hist
	refused, tell := c.answer.fromText(reply.Content)
	switch {
	case refused == nil:
		return hist, true, c.fits("the response", resp)
	case resp.Repairs >= c.answer.repairs || last:
		refused.Repairs = resp.Repairs
		return hist, true, c.refuse(refused)
	}
	resp.Repairs++
	return append(hist, chat.UserMessage(tell)), false, nil
}

// answerRound looks for the answer among the executions of a round in the
// tool mode: the conversation ends (done) with it, or with an AnswerError
// once the repairs are spent or the round is the last allowed.
func (c *conversation) answerRound(execs []toolcall.ToolExecution, policies []callPolicy, last bool) (done bool, err error) {
	resp := c.resp
	ok, refused := c.answer.answered(execs, policies)
	switch {
	case ok:
		return true, c.fits("the response", resp)
	case refused != nil && (resp.Repairs >= c.answer.repairs || last):
		refused.Repairs = resp.Repairs
		return true, c.refuse(refused)
	case refused != nil:
		resp.Repairs++
	}
	return false, nil
}

// refuse ends the conversation with ae, and the Response so far when it
// fits in the payload too.
func (c *conversation) refuse(ae *toolcall.AnswerError) error {
	r := refusal{Response: c.resp, Answer: ae}
	if size, err := jsonSize(r); err != nil || size > c.maxPayload() {
		r.Response = nil
		// The error's message repeats the violations: the two share the
		// limit.
		r.Answer = fitted(ae, c.maxPayload()/2)
	}
	return temporal.NewNonRetryableApplicationError(r.Answer.Error(), typeAnswer, nil, r)
}

// fitted returns ae, or a copy cut to encode in at most limit bytes: the
// first violations, then the start of the raw answer, each halved until
// it fits, so that the failure can be recorded.
func fitted(ae *toolcall.AnswerError, limit int) *toolcall.AnswerError {
	cut := *ae
	for {
		size, err := jsonSize(&cut)
		switch {
		case err == nil && size <= limit:
			return &cut
		case len(cut.Violations) > 1:
			cut.Violations = cut.Violations[:len(cut.Violations)/2]
		case len(cut.Raw) > 64:
			cut.Raw = strings.ToValidUTF8(cut.Raw[:len(cut.Raw)/2], "") + " [cut]"
		case len(cut.Violations) == 1 && len(cut.Violations[0].Path) > 64:
			v := cut.Violations[0]
			v.Path = v.Path[:len(v.Path)/2] + "..."
			cut.Violations = []toolcall.Violation{v}
		default:
			return &cut
		}
	}
}

func violations(vs []check.Violation) []toolcall.Violation {
	if vs == nil {
		return nil
	}
	out := make([]toolcall.Violation, len(vs))
	for i, v := range vs {
		out[i] = toolcall.Violation(v)
	}
	return out
}

func joined(vs []toolcall.Violation) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, "; ")
}
