package toolcall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/decision"
	"github.com/toolcall-go/toolcall/internal/hook"
	"github.com/toolcall-go/toolcall/internal/toolcalls"
)

// A Manager executes the tool calls of a model response: it finds each
// called tool among the tools offered, validates the arguments against the
// tool's schema, calls it, converts the result, and applies the error
// policy. It is what a [Client] runs between model rounds, and what a
// program that drives its own loop calls directly.
//
// A Manager holds only its configuration and is safe for concurrent use by
// multiple goroutines. The zero Manager works as NewManager() does.
type Manager struct {
	cfg config
}

// NewManager returns a Manager configured by opts.
func NewManager(opts ...ManagerOption) *Manager {
	m := &Manager{cfg: defaultConfig()}
	for _, o := range opts {
		o.apply(&m.cfg)
	}
	return m
}

// A ToolExecution records one tool call of the loop. In JSON (as in a
// [Paused] state) it has no Err.
type ToolExecution struct {
	Call   chat.ToolCall `json:"call"`
	Result string        `json:"result"` // the text sent to the model (or returned directly)
	// IsError reports whether Result describes a failure: the tool returned
	// an error or panicked, the arguments were invalid, the tool does not
	// exist, or the call was denied.
	IsError bool `json:"is_error,omitempty"`
	// Err is the failure: a *ToolError, wrapping an *ArgumentError for bad
	// arguments or ErrToolNotFound for an unknown tool. Nil on success.
	// For a call that waits for a decision, it wraps [ErrPending] and
	// Result is empty: the call did not run.
	Err          error         `json:"-"`
	Duration     time.Duration `json:"duration,omitempty"`
	ReturnDirect bool          `json:"return_direct,omitempty"` // the tool returned directly (statically or at run time)
	Round        int           `json:"round"`                   // the model round trip that asked for the call, from 1
	// State holds what the tool wrote to the session state ([SetState]).
	State map[string]any `json:"state,omitempty"`
}

// execution is the outcome of running one reply's tool calls.
type execution struct {
	// History is the request's messages, then the assistant message with
	// the calls, then one tool message per call, in call order. It is valid
	// to send back to the model. Its array may have room past its length,
	// for the loop's next round: clip it before it leaves the loop.
	History []chat.Message
	// Executions has one entry per call, in call order.
	Executions []ToolExecution
	// ReturnDirect reports that every call returned directly and none
	// failed: the results are the answer and no further model call is due.
	ReturnDirect bool
	// paused is set when calls wait for decisions.
	paused *Paused
}

// Execute runs the tool calls of reply, which answered req, with tools: the
// tools offered in req. A call to any other tool runs nothing and is an
// error for the error handler ([ErrToolNotFound]). Calls run concurrently,
// bounded by [Limits].Concurrency; the caller's goroutine runs calls too,
// and a single call always.
//
// The Response has reply's Message, the History (req's messages, reply's
// message, one tool message per call, in call order, valid to send back to
// the model), one ToolExecution per call, and ReturnedDirect when every call
// returned directly and none failed: then the results are the answer and no
// further model call is due. Its Rounds is this round's number: one more
// than the assistant messages with tool calls in req, as the tools'
// [CallInfo] says.
//
// A call without an id gets "call_<index>" and a repeated id a "_<n>"
// suffix, in the History and the Executions alike, so every tool message
// answers one call.
//
// Tool failures are reported to the model by default (see
// [WithToolErrorHandler]). Execute returns an error only when the policy
// aborts or ctx ends; the Response is then still returned, and its History
// answers every call, so it is valid to resend. Tools see the
// [ToolContext] that ctx carries (see [ContextWithToolContext]).
//
// A reply cut short ([chat.FinishLength], [chat.FinishFiltered]) may have
// lost calls or arguments: none of its calls runs, and Execute returns an
// error wrapping [ErrReplyCut] with a Response whose History is req's
// messages.
func (m *Manager) Execute(ctx context.Context, tools []Tool, req *chat.Request, reply *chat.Response) (*Response, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("toolcall: Execute: nil context")
	case req == nil || reply == nil:
		return nil, errors.New("toolcall: Execute: nil request or reply")
	case m.cfg.err != nil:
		return nil, m.cfg.err
	case m.cfg.checkSealing(false, "") != nil:
		return nil, m.cfg.checkSealing(false, "")
	}
	round := 1
	for _, msg := range req.Messages {
		if msg.Role == chat.RoleAssistant && len(msg.ToolCalls) > 0 {
			round++
		}
	}
	// One allocation for the Response, its Intermediate and, for the
	// common single call, its Executions.
	mem := &struct {
		resp  Response
		inter [1]*chat.Response
		one   [1]ToolExecution
	}{}
	mem.inter[0] = reply
	resp := &mem.resp
	resp.Message, resp.Intermediate, resp.Usage, resp.Rounds = reply.Message, mem.inter[:], reply.Usage, round
	if err := replyCut(reply); err != nil {
		resp.History = slices.Clip(req.Messages)
		return resp, err
	}
	cfg := &m.cfg
	if cfg.limits.Concurrency == 0 { // the zero Manager: defaultConfig sets it to at least 1
		d := defaultConfig()
		cfg = &d
	}
	reply = toolcalls.WithUniqueIDs(reply)
	var execs []ToolExecution
	if len(reply.Message.ToolCalls) == 1 {
		execs = mem.one[:]
	}
	set := toolSet{tools: tools}
	n := len(req.Messages)
	history := make([]chat.Message, n, n+len(reply.Message.ToolCalls)+1) // no room for a next reply: Execute ends here
	copy(history, req.Messages)
	var ex execution
	err := cfg.execute(ctx, &set, history, reply, round, execs, &ex)
	resp.History, resp.Executions, resp.ReturnedDirect = slices.Clip(ex.History), ex.Executions, ex.ReturnDirect
	resp.State, _ = mergeState(nil, ex.Executions)
	if pz := ex.paused; pz != nil {
		if serr := cfg.finishPause(pz, req.Model, req.Options, resp.State, ""); serr != nil {
			return resp, serr
		}
	}
	return resp, err
}

// mergeState merges the state writes of execs over state in call order,
// and reports whether there were any; state is made when it is nil and
// there are.
func mergeState(state map[string]any, execs []ToolExecution) (map[string]any, bool) {
	wrote := false
	for _, e := range execs {
		if len(e.State) > 0 {
			if state == nil {
				state = map[string]any{}
			}
			maps.Copy(state, e.State)
			wrote = true
		}
	}
	return state, wrote
}

// execute is Execute with the client's configuration and round; the calls
// of resp already have unique ids. The execution's History is history with
// the reply and the tool messages appended: history's array is written
// beyond its length when it has room, so the caller must own it, and is
// grown to fit the reply and the tool messages if it has no room. execs,
// when not nil, is where the records go: one per call, zero. The outcome
// goes to ex.
func (cfg *config) execute(ctx context.Context, set *toolSet, history []chat.Message, resp *chat.Response, round int, execs []ToolExecution, ex *execution) error {
	calls := resp.Message.ToolCalls
	history = append(slices.Grow(history, len(calls)+1), resp.Message)
	hist := slices.Clip(history) // what the tools see
	if execs == nil {
		execs = make([]ToolExecution, len(calls))
	}
	var abort error
	if len(calls) == 1 || cfg.limits.Concurrency == 1 {
		for i, call := range calls {
			if abort != nil || ctx.Err() != nil {
				execs[i] = notRun(call, round)
				continue
			}
			abort = cfg.executeOne(ctx, set, call, hist, round, nil, "", &execs[i])
		}
	} else {
		abort = cfg.executeConcurrently(ctx, *set, calls, hist, round, execs)
	}
	err := endRound(ex, history, execs, round, abort)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// executeConcurrently runs calls at most cfg.limits.Concurrency at once,
// filling execs in call order; the round waits for all of them. The first
// abort in time wins and cancels the calls still running (see [runPool]);
// the calls not started by then are recorded as not run. set is a copy, so
// that only a round of parallel calls moves one to the heap.
func (cfg *config) executeConcurrently(ctx context.Context, set toolSet, calls []chat.ToolCall, hist []chat.Message, round int, execs []ToolExecution) error {
	return runPool(ctx, len(calls), cfg.limits.Concurrency, func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			execs[i] = notRun(calls[i], round)
			return nil
		}
		return cfg.executeOne(ctx, &set, calls[i], hist, round, nil, "", &execs[i])
	})
}

// epoch is what monotonic counts from.
var epoch = time.Now()

// monotonic reads the monotonic clock, which is all a duration needs: one
// clock read, where time.Now reads the wall clock too.
func monotonic() time.Duration { return time.Since(epoch) }

// notRun is the record of a call skipped because the call was aborted.
func notRun(call chat.ToolCall, round int) ToolExecution {
	return ToolExecution{Call: call, Round: round, IsError: true,
		Result: "tool call not executed: the request was aborted",
		Err:    &ToolError{Name: call.Name, CallID: call.ID, Err: context.Canceled}}
}

// executeOne runs one call and records it in e, which is zero. A non-nil
// error aborts the loop. preset and pauseID are a resumed call's decision
// and the ID of the pause it resumes.
func (cfg *config) executeOne(ctx context.Context, set *toolSet, call chat.ToolCall, hist []chat.Message, round int, preset *Decision, pauseID string, e *ToolExecution) error {
	start := monotonic()
	e.Call, e.Round = call, round
	// Hooks, the approver and middleware see a copy of the arguments:
	// whatever they do with it, the tool gets and the history keeps what
	// the model sent and the checks passed.
	var seen []byte
	if cfg.hooks.BeforeTool != nil || cfg.hooks.AfterTool != nil {
		seen = bytes.Clone(call.Arguments)
	}
	if h := cfg.hooks.BeforeTool; h != nil {
		c := call
		c.Arguments = seen
		ctx = hook.Context(ctx, h(ctx, c))
	}
	finish := func(err error) error {
		e.Duration = monotonic() - start
		if h := cfg.hooks.AfterTool; h != nil {
			c := *e
			c.Call.Arguments = seen
			h(ctx, c)
		}
		return err
	}

	tool, in := set.lookup(call.Name)
	if tool == nil && preset != nil && (preset.Deny != "" || preset.Result != "") {
		// A person's denial or result answers the call without its tool:
		// it reaches the model also when the resuming prompt does not
		// offer that tool.
		result, err := decision.Decision(*preset).Apply(ctx, nil)
		e.Result = result
		if d := (*decision.Denial)(nil); errors.As(err, &d) {
			e.Err, e.IsError, e.Result = &ToolError{Name: call.Name, CallID: call.ID, Err: d}, true, d.Error()
		}
		return finish(nil)
	}
	if tool == nil {
		te := &ToolError{Name: call.Name, CallID: call.ID, Err: unknownTool{call.Name, set.tools}}
		return finish(cfg.fail(ctx, e, te))
	}

	// A tool this package built is read in place; any other once.
	bt, _ := tool.(builtTool)
	var core *toolCore
	if bt != nil {
		core = bt.core()
	} else {
		core = &toolCore{def: tool.Definition(), meta: tool.Metadata()}
	}
	def, md := &core.def, &core.meta
	args := check.Normalize(call.Arguments)
	if err := argumentLimits(cfg, def.Name, args); err != nil {
		return finish(cfg.fail(ctx, e, &ToolError{Name: def.Name, CallID: call.ID, Err: err}))
	}
	if bt != nil {
		in = core.in
	} else if in == nil { // Execute's tools are not prepared: compiled for this call
		var err error
		if in, err = inputOf(tool, *def); err != nil { // a schema the checks refuse: the caller's mistake, and nothing may run
			e.Err, e.IsError, e.Result = err, true, fmt.Sprintf("tool %s was not run: its input schema cannot be checked", def.Name)
			return finish(err)
		}
	}
	checked := call
	checked.Arguments = args

	cc := &callCtx{Context: ctx}
	cc.State.Call, cc.State.Round, cc.State.History, cc.State.PauseID = &e.Call, round, hist, pauseID
	if h := cfg.hooks.ToolProgress; h != nil {
		cc.State.Progress = func(message string, progress, total float64) {
			h(ctx, callInfo(&cc.State), message, progress, total)
		}
	}
	var tctx context.Context = cc
	timeout := cfg.limits.ToolTimeout
	if md.Timeout > 0 {
		timeout = md.Timeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(tctx, timeout)
		defer cancel()
	}
	mw := cfg.middleware
	if bt != nil && bt.core().answer {
		// Giving the answer runs nothing: no approver or middleware
		// decides it, as none decides a reply in text.
		mw = nil
	} else if g := gate(cfg, md, preset); g != nil {
		mw = hook.Wrap(g, mw)
	}
	if mw != nil {
		seen = bytes.Clone(args)
	}
	variant := in.Variant(def.Strict, cfg.strict, false)
	result, err := safeRun(tctx, tool, bt, in, variant, checked, seen, mw)
	if err != nil { // (errors.As only on failure: its target escapes, which costs an allocation)
		if re := (*decision.Rerun)(nil); errors.As(err, &re) { // approved with edited arguments, checked as any
			edited := bytes.Clone(re.Args)
			checked.Arguments = check.Normalize(edited)
			e.Call.Arguments, seen = edited, bytes.Clone(edited)
			if err = argumentLimits(cfg, def.Name, checked.Arguments); err == nil {
				mw = hook.Wrap(gate(cfg, md, &Decision{Allow: true}), cfg.middleware)
				result, err = safeRun(tctx, tool, bt, in, variant, checked, seen, mw)
			}
		}
	}
	e.State = cc.End() // a failed call's writes count too: its work happened
	if err == nil {
		if cfg.limits.MaxResultBytes > 0 && len(result) > cfg.limits.MaxResultBytes {
			result = truncateResult(result, cfg.limits.MaxResultBytes)
		}
		e.Result = result
		e.ReturnDirect = md.ReturnDirect || cc.State.ReturnDirect()
		return finish(nil)
	}
	if _, ok := decision.Paused(err); ok {
		e.Err = err
		return finish(nil)
	}
	if d := (*decision.Denial)(nil); errors.As(err, &d) {
		e.Err, e.IsError, e.Result = &ToolError{Name: def.Name, CallID: call.ID, Err: d}, true, d.Error()
		return finish(nil)
	}
	te, ok := err.(*ToolError)
	if !ok {
		te = &ToolError{Err: err}
	}
	te.Name, te.CallID = def.Name, call.ID
	if timeout > 0 && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		te.Err = fmt.Errorf("timed out after %s: %w", timeout, te.Err)
	}
	return finish(cfg.fail(ctx, e, te))
}

// safeRun checks the call's arguments with k and runs the tool (bt, when
// this package built it) through mw, turning a panic into a *ToolError.
// The middleware sees the arguments seen, a copy of call's.
func safeRun(ctx context.Context, t Tool, bt builtTool, in *check.Input, k *check.Checker, call chat.ToolCall, seen []byte, mw Middleware) (result string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &ToolError{Panic: r, Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	args := call.Arguments
	call.Arguments = seen
	if bt != nil {
		return bt.run(ctx, call, args, k, mw)
	}
	if err := checkArgs(k, in, call.Name, args, nil); err != nil {
		return "", err
	}
	args = bytes.Clone(args) // the tool's own: the history keeps what was checked
	if mw == nil {
		return t.Call(ctx, args)
	}
	return mw(ctx, call, func(ctx context.Context) (string, error) { return t.Call(ctx, args) })
}

// argumentLimits refuses arguments over the size or nesting limit with an
// *ArgumentError for the model.
func argumentLimits(cfg *config, tool string, args []byte) error {
	rule, msg := argumentRule(args, cfg.limits.MaxArgumentBytes, cfg.limits.MaxArgumentDepth)
	if rule == "" {
		return nil
	}
	return &ArgumentError{Tool: tool, Violations: []Violation{{Rule: rule, Message: msg}}}
}
