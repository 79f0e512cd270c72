package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/answer"
	"github.com/toolcall-go/toolcall/internal/check"
)

// answerTool is the name of the tool through which a model gives a typed
// answer ([Prompt.Answer]); a tool of the caller's may not have it.
const answerTool = answer.Tool

// defaultAnswerRepairs is how many times a model is asked again for an
// answer that broke its schema, when Limits.MaxAnswerRepairs is zero.
const defaultAnswerRepairs = answer.DefaultRepairs

// Answer asks for the final answer as data: v, a non-nil pointer, receives
// it, decoded from JSON that passed the schema of v's type, made by the
// same reflection and tags as tool arguments (descriptions, enums, bounds,
// required fields; the strict variant with [WithStrictTools]).
//
// The prompt's tools stay offered and run in the rounds before the answer,
// as always. The answer is asked for in one of two ways ([chat.OutputMode];
// see [Prompt.AnswerMode]):
//
//   - natively, when the model is a [chat.StructuredModel] that supports it
//     (providers/openai's response_format, providers/ollama's format): the
//     schema goes in Request.Output, and the answer is the text of the
//     reply that calls no tool;
//   - otherwise through a tool named final_answer, offered beside the
//     prompt's tools, which the model is required to call, so that any
//     model that calls tools can answer: the round in which it is called
//     ends the call (the other calls of that reply run too and are kept
//     in the history; a returnDirect tool does not end the call). Giving
//     the answer runs nothing, so no approver or middleware sees it; hooks
//     do. With [WithAnswerAtLimit], the model is asked for the answer past
//     the iteration limit.
//
// An answer that is not JSON or breaks the schema goes back to the model
// with the violations, as bad tool arguments do, and so does a reply in
// plain text in the tool mode, up to [Limits].MaxAnswerRepairs times (2
// by default) and within the iteration limit; then Call returns an [*AnswerError] with the last answer
// given. v is written only with an answer that passed: a caller never gets
// a value that broke its schema. Response.Repairs counts the answers sent
// back.
//
// A call that pauses ([Paused]) records the answer's type: its resume must
// be given Answer again, with a value of that type, and ends with the
// answer as the call would have.
func (p *Prompt) Answer(v any) *Prompt { p.answer = v; return p }

// AnswerMode forces how the answer of [Prompt.Answer] is asked for:
// chat.OutputNative (an error when the model cannot) or chat.OutputTool.
// The zero mode chooses native where the model supports it.
func (p *Prompt) AnswerMode(mode chat.OutputMode) *Prompt { p.answerMode = mode; return p }

// An AnswerError ends a call whose final answer ([Prompt.Answer]) still
// broke its schema, or was not given as data, after the repairs allowed.
type AnswerError struct {
	// Raw is the last answer: the answer tool's arguments, or the text of
	// a reply that did not call it.
	Raw string
	// Violations say what was wrong with it, as for tool arguments.
	Violations []Violation
	// Repairs is how many times the model was asked again.
	Repairs int
}

// Error says why the answer was refused.
func (e *AnswerError) Error() string {
	return fmt.Sprintf("toolcall: the final answer is invalid after %d repairs: %s", e.Repairs, joinViolations(e.Violations))
}

// notAnswered is what a reply in plain text breaks, when the answer must be
// data.
var notAnswered = Violation{Rule: answer.NotAnsweredRule, Message: answer.NotAnswered}

// typeName names t for Paused.Answer: with its package path, so that two
// types of one name in two packages differ.
func typeName(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// answerSpec is a call's request for a typed answer: where it goes, the
// compiled schema, and how it is asked for: the tool the model calls, or
// the output format sent natively.
type answerSpec struct {
	target  reflect.Value // the pointer given to Answer
	in      *check.Input
	tool    Tool               // tool mode
	format  *chat.OutputFormat // native mode
	repairs int                // allowed
	strict  bool
}

// newAnswer checks v and mode, and builds what asks for an answer of v's
// type from model.
func newAnswer(cfg *config, model chat.Model, v any, mode chat.OutputMode) (*answerSpec, error) {
	mode, err := answer.Mode(model, mode)
	if err != nil {
		return nil, fmt.Errorf("toolcall: Prompt.AnswerMode: %w", err)
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("toolcall: Prompt.Answer needs a non-nil pointer to decode into, got %T", v)
	}
	// The answer is the arguments of a call: a struct, as a tool's.
	in, err := schemaOf(rv.Type().Elem())
	if err != nil {
		return nil, fmt.Errorf("toolcall: Prompt.Answer: the answer's type: %w", err)
	}
	a := &answerSpec{target: rv, in: in, repairs: readLimit(cfg.limits.MaxAnswerRepairs, defaultAnswerRepairs), strict: cfg.strict}
	if mode == chat.OutputNative {
		schema := in.Schema
		if cfg.strict {
			schema = in.Strict().Schema
		}
		a.format = &chat.OutputFormat{Name: answer.FormatName, Schema: schema, Strict: cfg.strict}
		return a, nil
	}
	tool, err := answerToolOf(rv.Type().Elem(), in, cfg.strict)
	if err != nil {
		return nil, fmt.Errorf("toolcall: Prompt.Answer: %w", err)
	}
	a.tool = tool
	return a, nil
}

// answerTools holds the answer tool of each answer type and strictness,
// built once: a tool is not modified once built, so calls share it.
var answerTools sync.Map // answerKey -> Tool

type answerKey struct {
	t      reflect.Type
	strict bool
}

// answerToolOf returns the answer tool of type t. Giving the answer runs
// nothing, but the tool decodes the arguments into a fresh t, as the answer
// will be: arguments that pass the schema and not the type (300 for an
// int8) go back to the model with what was wrong, as bad arguments do.
func answerToolOf(t reflect.Type, in *check.Input, strict bool) (Tool, error) {
	key := answerKey{t, strict}
	if tool, ok := answerTools.Load(key); ok {
		return tool.(Tool), nil
	}
	k := in.Variant(false, strict, false)
	tool, err := NewTool(chat.ToolDefinition{
		Name:        answerTool,
		Description: answer.Description,
		InputSchema: in.Schema,
	}, func(_ context.Context, args json.RawMessage) (string, error) {
		if err := checkArgs(k, in, answerTool, args, reflect.New(t).Interface()); err != nil {
			return "", err
		}
		return answer.Received, nil
	})
	if err != nil {
		return nil, err
	}
	tool.(builtTool).core().answer = true
	stored, _ := answerTools.LoadOrStore(key, tool)
	return stored.(Tool), nil
}

// withAnswerTool returns set with the answer tool added, in the tool mode;
// a tool of the set with its name is an error.
func (a *answerSpec) withAnswerTool(set *toolSet) (*toolSet, error) {
	if a.tool == nil || set.err != nil {
		return set, nil
	}
	if slices.ContainsFunc(set.defs.Defs, func(d chat.ToolDefinition) bool { return d.Name == answerTool }) {
		return nil, fmt.Errorf("%w: tool %q has the name of the answer tool of Prompt.Answer", ErrInvalidTool, answerTool)
	}
	if s, ok := set.withAnswer.Load(a.tool); ok {
		return s.(*toolSet), nil
	}
	s, _ := set.withAnswer.LoadOrStore(a.tool, newToolSet(a.strict, append(slices.Clip(set.tools), a.tool)))
	return s.(*toolSet), nil
}

// decode checks an answer, the answer tool's arguments or the text of a
// native answer, and writes it into the caller's value when it passes.
func (a *answerSpec) decode(args []byte) error {
	k := a.in.Variant(false, a.strict, false)
	fresh := reflect.New(a.target.Type().Elem())
	if err := checkArgs(k, a.in, answerTool, args, fresh.Interface()); err != nil {
		return err
	}
	a.target.Elem().Set(fresh.Elem())
	return nil
}

// answered looks for the answer among a round's executions: the first that
// passed is decoded into the caller's value (done); otherwise the last
// refused one is returned (refused), with what was wrong.
func (a *answerSpec) answered(execs []ToolExecution) (done bool, refused *AnswerError) {
	for _, e := range execs {
		if e.Call.Name != answerTool {
			continue
		}
		if !e.IsError {
			if err := a.decode(e.Call.Arguments); err == nil {
				return true, nil
			}
		}
		refused = refusal(string(e.Call.Arguments), e.Result, e.Err)
	}
	return false, refused
}

// refusedText is the AnswerError of a native answer, text, that decode
// refused with err.
func refusedText(text string, err error) *AnswerError {
	return refusal(text, err.Error(), err)
}

// refusal is the AnswerError of raw, refused with msg: the violations of
// err when it holds an *ArgumentError, else msg as the one violation.
func refusal(raw, msg string, err error) *AnswerError {
	var ae *ArgumentError
	if errors.As(err, &ae) {
		return &AnswerError{Raw: raw, Violations: ae.Violations}
	}
	return &AnswerError{Raw: raw, Violations: []Violation{{Rule: "answer", Message: msg}}}
}

// repairText is what the model is told of a native answer that was
// refused.
func repairText(e *AnswerError) string {
	return answer.Repair(e.Violations)
}

// onlyAnswers reports whether every call of mr gives the typed answer,
// which ends the call, so that it is taken also past the iteration limit
// (where WithAnswerAtLimit asks for it).
func (cl *call) onlyAnswers(mr *chat.Response) bool {
	if cl.answer == nil || cl.answer.tool == nil {
		return false
	}
	for _, c := range mr.Message.ToolCalls {
		if c.Name != answerTool {
			return false
		}
	}
	return true
}
