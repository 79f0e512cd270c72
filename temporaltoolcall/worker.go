package temporaltoolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/hook"
	"github.com/toolcall-go/toolcall/internal/toolcalls"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// A Worker is what a worker process holds for conversations: the model,
// the tools and the tool context. None of it enters the workflow's history.
type Worker struct {
	Model chat.Model
	Tools []toolcall.Tool
	// Options configure the Manager that runs each tool call (limits,
	// approver, middleware, error handler, strict tools).
	Options []toolcall.ManagerOption
	// Hooks observe each model request (BeforeModel, AfterModel) and each
	// tool call (BeforeTool, AfterTool, ToolProgress) inside its activity.
	// BeforeCall and AfterCall are not called: the call is the workflow.
	Hooks toolcall.Hooks
	// ToolContext, when set, gives the tool context of a conversation's
	// tool calls: the caller's secrets and data, on the worker's side.
	// Session.Key comes from the conversation's Input, which any client
	// of the namespace writes: it selects, it does not authenticate.
	// An error fails the conversation; the call does not run.
	ToolContext func(ctx context.Context, s Session) (toolcall.ToolContext, error)
	// ToolsWithHistory names the tools that read toolcall.CallInfo.History:
	// their calls carry the conversation so far into their activity. The
	// calls of other tools carry their own call only, so that a round of
	// many calls on a long conversation stays within the server's limits;
	// their CallInfo.History holds only the reply, with that call.
	ToolsWithHistory []string
	// DecisionKey signs the decisions a conversation accepted (UpdateDecide)
	// for the calls that waited, and the tool activity runs a decided call
	// only with a signature for its own workflow run: another workflow of
	// the namespace cannot schedule ToolActivity with a decision of its
	// own, nor override the worker's approver. At least 32 bytes (say,
	// from crypto/rand), the same on every worker of the task queue, and
	// kept as secret as the model's API key. Without it, a call that waits
	// for a decision fails the conversation when it is decided.
	DecisionKey []byte
	// OldDecisionKeys are keys that were DecisionKey before: a decision
	// signed with one is still honoured, so that keys can rotate while
	// decided calls are scheduled (and during a rolling deploy). Keep a
	// key here as long as conversations decided with it may still run.
	OldDecisionKeys [][]byte
}

// A Session identifies the conversation a tool call belongs to, for the
// worker's ToolContext function.
type Session struct {
	WorkflowID string
	RunID      string
	// Key is the conversation's Input.Key, such as a tenant id.
	Key string
}

// Register registers the Conversation workflow and the worker's
// activities with r, under WorkflowName, ModelActivity and ToolActivity.
// It refuses tools that cannot be offered together (a duplicate name, a
// schema the checks refuse) and a nil model.
func (w *Worker) Register(r worker.Registry) error {
	if w.Model == nil {
		return errors.New("temporaltoolcall: the Worker has no model")
	}
	if _, err := w.manager(nil).Definitions(w.Tools); err != nil {
		return fmt.Errorf("temporaltoolcall: %w", err)
	}
	if _, err := w.decisionKeys(); err != nil {
		return err
	}
	for _, n := range w.ToolsWithHistory {
		if find(w.Tools, n) == nil {
			return fmt.Errorf("temporaltoolcall: Worker.ToolsWithHistory names %q, which is not among the worker's tools", n)
		}
	}
	r.RegisterWorkflowWithOptions(w.Conversation, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(w.model, activity.RegisterOptions{Name: ModelActivity})
	r.RegisterActivityWithOptions(w.tool, activity.RegisterOptions{Name: ToolActivity})
	return nil
}

// manager returns the Manager for a call: the worker's options and tool
// hooks, and, for a call that was decided, an approver that gives d.
func (w *Worker) manager(d *toolcall.Decision) *toolcall.Manager {
	opts := append([]toolcall.ManagerOption(nil), w.Options...)
	h := w.Hooks
	opts = append(opts, toolcall.WithHooks(toolcall.Hooks{
		BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			if h.BeforeTool != nil {
				ctx = hook.Context(ctx, h.BeforeTool(ctx, call))
			}
			annotate(ctx)
			return ctx
		},
		AfterTool:    h.AfterTool,
		ToolProgress: h.ToolProgress,
	}))
	if d != nil {
		opts = append(opts, toolcall.WithApprover(func(context.Context, chat.ToolCall, toolcall.Metadata) toolcall.Decision { return *d }))
	}
	return toolcall.NewManager(opts...)
}

// annotate puts the workflow's id and run id on the span ctx carries, by
// the attribute names of Temporal's own tracing interceptor.
func annotate(ctx context.Context) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || !activity.IsActivity(ctx) {
		return
	}
	info := activity.GetInfo(ctx)
	span.SetAttributes(attribute.String("temporalWorkflowID", info.WorkflowExecution.ID),
		attribute.String("temporalRunID", info.WorkflowExecution.RunID))
}

// offered returns the worker's tools that names select, in that order;
// all of them when names is empty.
func (w *Worker) offered(names []string) ([]toolcall.Tool, error) {
	if len(names) == 0 {
		return w.Tools, nil
	}
	out := make([]toolcall.Tool, 0, len(names))
	for _, n := range names {
		t := find(w.Tools, n)
		if t == nil {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("%v: no tool named %q is on the worker", toolcall.ErrToolNotFound, n), typeInput, nil)
		}
		out = append(out, t)
	}
	return out, nil
}

// modelErrors are the error types under which a failed model request is
// recorded, by the chat error it matches, and whether a retry can fix it.
var modelErrors = []struct {
	err   error
	typ   string
	final bool // a retry cannot fix it
}{
	{chat.ErrBadRequest, "chat.ErrBadRequest", true},
	{chat.ErrUnauthorized, "chat.ErrUnauthorized", true},
	{chat.ErrModelNotFound, "chat.ErrModelNotFound", true},
	{chat.ErrToolsNotSupported, "chat.ErrToolsNotSupported", true},
	{chat.ErrQuotaExceeded, "chat.ErrQuotaExceeded", true},
	{chat.ErrRateLimited, "chat.ErrRateLimited", false},
	{chat.ErrServer, "chat.ErrServer", false},
	{chat.ErrBadResponse, "chat.ErrBadResponse", false},
}

// nonRetryableModelErrors are the error types of a model request that a
// retry cannot fix: the final model errors, bad input, a payload too large.
var nonRetryableModelErrors = func() []string {
	var types []string
	for _, e := range modelErrors {
		if e.final {
			types = append(types, e.typ)
		}
	}
	return append(types, typeInput, typeTooLarge)
}()

// heartbeat records heartbeats until the returned func is called, so that
// the server notices a lost worker within the HeartbeatTimeout.
func heartbeat(ctx context.Context) (stop func()) {
	every := time.Second
	if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
		every = max(hb/4, 10*time.Millisecond)
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-ended }
}

// model is the model activity: one request, with the worker's tools.
func (w *Worker) model(ctx context.Context, in modelRequest) (*modelReply, error) {
	defer heartbeat(ctx)()
	tools, err := w.offered(in.Tools)
	if err != nil {
		return nil, err
	}
	m := w.manager(nil)
	defs, err := m.Definitions(tools)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), typeInput, nil)
	}
	req := in.Request
	req.Tools = defs
	if d := in.AnswerTool; d != nil {
		if find(tools, d.Name) != nil {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("%v: tool %q has the name of the answer tool of Input.Output", toolcall.ErrInvalidTool, d.Name), typeInput, nil)
		}
		req.Tools = append(slices.Clip(defs), *d)
	}
	mctx := ctx
	if h := w.Hooks.BeforeModel; h != nil {
		mctx = hook.Context(ctx, h(ctx, &req))
	}
	annotate(mctx)
	start := time.Now()
	mr, err := w.Model.Chat(mctx, &req)
	if err == nil && mr == nil {
		err = fmt.Errorf("%w: model returned no response", chat.ErrBadResponse)
	}
	if h := w.Hooks.AfterModel; h != nil {
		mc := toolcall.ModelCall{Round: in.Round, Request: &req, Err: err, Duration: time.Since(start)}
		if err == nil {
			mc.Response = mr
		}
		h(mctx, mc)
	}
	if err != nil {
		// The server's Retry-After is the wait before the next attempt.
		var wait time.Duration
		if pe := (*chat.ProviderError)(nil); errors.As(err, &pe) {
			wait = pe.RetryAfter
		}
		typ := "temporaltoolcall.ModelError"
		for _, e := range modelErrors {
			if errors.Is(err, e.err) {
				typ = e.typ
				break
			}
		}
		return nil, temporal.NewApplicationErrorWithOptions(err.Error(), typ, temporal.ApplicationErrorOptions{Cause: err, NextRetryDelay: wait})
	}
	unique := toolcalls.WithUniqueIDs(mr)
	out := &modelReply{Response: recordable(unique)}
	for i, call := range out.Response.Message.ToolCalls {
		var p callPolicy
		if t := find(tools, call.Name); t != nil {
			md := t.Metadata()
			p = callPolicy{Known: true, Retry: md.ReadOnly || md.Idempotent, Timeout: md.Timeout,
				History: slices.Contains(w.ToolsWithHistory, call.Name)}
		}
		p.Malformed = malformed(unique.Message.ToolCalls[i].Arguments)
		out.Calls = append(out.Calls, p)
	}
	if in.MaxBytes > 0 {
		// Too large, the completion would be refused by the server and
		// the request tried again in vain.
		if size, err := jsonSize(out); err != nil || size > in.MaxBytes {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("%v: the model reply of round %d is %d bytes, the limit is %d", ErrPayloadTooLarge, in.Round, size, in.MaxBytes), typeTooLarge, err)
		}
	}
	return out, nil
}

// recordable returns mr, or a copy whose calls' arguments can be recorded
// as JSON: blank ones are null, as empty (see check.Normalize); other text
// that is not JSON travels as a JSON string (callPolicy.Malformed), so
// that the model is told what was wrong with it, as Prompt.Call tells it.
func recordable(mr *chat.Response) *chat.Response {
	calls := mr.Message.ToolCalls
	if !slices.ContainsFunc(calls, func(c chat.ToolCall) bool { return c.Arguments != nil && !json.Valid(c.Arguments) }) {
		return mr
	}
	c := *mr
	c.Message.ToolCalls = slices.Clone(calls)
	for i, call := range c.Message.ToolCalls {
		switch {
		case malformed(call.Arguments):
			quoted, _ := json.Marshal(string(call.Arguments))
			c.Message.ToolCalls[i].Arguments = quoted
		case !json.Valid(call.Arguments):
			c.Message.ToolCalls[i].Arguments = nil
		}
	}
	return &c
}

// malformed reports whether args are text that is not JSON; blank
// arguments are not: they mean none.
func malformed(args []byte) bool {
	return !json.Valid(args) && len(bytes.TrimSpace(args)) > 0
}

// sent returns the arguments the model sent for call: a malformed one's
// text, which recordable quoted.
func sent(call chat.ToolCall, malformed bool) json.RawMessage {
	var text string
	if !malformed || json.Unmarshal(call.Arguments, &text) != nil {
		return call.Arguments
	}
	return json.RawMessage(text)
}

// find returns the tool of tools named name, nil when there is none.
func find(tools []toolcall.Tool, name string) toolcall.Tool {
	for _, t := range tools {
		if t.Definition().Name == name {
			return t
		}
	}
	return nil
}

// toolOutcome is the tool activity's result.
type toolOutcome struct {
	Execution toolcall.ToolExecution `json:"execution"`
	// Paused is why the call waits for a decision; empty when it ran.
	Paused string `json:"paused,omitempty"`
	// Abort is the error that ends the conversation, when the error policy
	// aborts (toolcall.ErrFatal).
	Abort string `json:"abort,omitempty"`
}

// tool is the tool activity: one call, run by the worker's Manager as
// Prompt.Call runs it.
func (w *Worker) tool(ctx context.Context, in toolRequest) (*toolOutcome, error) {
	defer heartbeat(ctx)()
	tools, err := w.offered(in.Tools)
	if err != nil {
		return nil, err
	}
	var tc toolcall.ToolContext
	if len(in.State) > 0 {
		tc = toolcall.NewToolContext(in.State)
	}
	if w.ToolContext != nil {
		info := activity.GetInfo(ctx)
		secrets, err := w.ToolContext(ctx, Session{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, Key: in.Key})
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("temporaltoolcall: the worker's tool context: %v", err), typeTool, nil)
		}
		tc = tc.Merge(secrets) // the worker's values win over the state's
	}
	if len(in.Reply.ToolCalls) != 1 {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("temporaltoolcall: a tool activity runs one call, and was given %d", len(in.Reply.ToolCalls)), typeInput, nil)
	}
	if in.Decision != nil {
		keys, err := w.decisionKeys()
		if err == nil {
			info := activity.GetInfo(ctx).WorkflowExecution
			err = checkSignedDecision(keys, info.ID, info.RunID, in.Reply.ToolCalls[0], *in.Decision, in.DecisionSeal)
		}
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), typeInput, nil)
		}
	}
	ctx = toolcall.ContextWithToolContext(ctx, tc)
	reply := in.Reply
	if in.Malformed {
		reply.ToolCalls = []chat.ToolCall{in.Reply.ToolCalls[0]}
		reply.ToolCalls[0].Arguments = sent(in.Reply.ToolCalls[0], true)
	}
	resp, err := w.manager(in.Decision).Execute(ctx, tools, &chat.Request{Messages: in.History}, &chat.Response{Message: reply})
	out := &toolOutcome{}
	var paused *toolcall.Paused
	switch {
	case errors.As(err, &paused):
		out.Paused = paused.Pending[0].Reason
		return out, nil
	case err != nil && ctx.Err() != nil:
		return nil, err // the activity was cancelled or timed out: Temporal decides
	case err != nil:
		out.Abort = err.Error()
	}
	if resp == nil || len(resp.Executions) != 1 {
		return nil, temporal.NewNonRetryableApplicationError("temporaltoolcall: the call was not executed", typeTool, err)
	}
	out.Execution = resp.Executions[0]
	if in.Malformed {
		out.Execution.Call.Arguments = in.Reply.ToolCalls[0].Arguments // as recorded
	}
	if size, err := jsonSize(out); err != nil || size > in.MaxBytes && in.MaxBytes > 0 {
		e := &out.Execution
		e.Result = fmt.Sprintf("tool %s's result is too large to record (%d bytes encoded, the limit is %d): lower Limits.MaxResultBytes", e.Call.Name, size, in.MaxBytes)
		if err != nil {
			e.Result = fmt.Sprintf("tool %s's result cannot be recorded: %v", e.Call.Name, err)
		}
		e.IsError, e.State, e.ReturnDirect = true, nil, false
	}
	return out, nil
}
