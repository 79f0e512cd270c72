package temporaltoolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/decision"
	"github.com/toolcall-go/toolcall/internal/modelcall"
	"github.com/toolcall-go/toolcall/internal/seal"
	"github.com/toolcall-go/toolcall/internal/toolcalls"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names under which Worker.Register registers the workflow and its
// activities, and the names of the workflow's Update and Query.
const (
	WorkflowName  = "toolcall.Conversation"
	ModelActivity = "toolcall.Model"
	ToolActivity  = "toolcall.Tool"
	// UpdateDecide delivers decisions for waiting calls: a
	// map[string]toolcall.Decision by call id, as Prompt.Resume takes.
	UpdateDecide = "toolcall.decide"
	// QueryPending returns the calls that wait, a []toolcall.PendingCall.
	QueryPending = "toolcall.pending"
)

// Defaults of the Input fields that are zero.
const (
	DefaultMaxIterations    = 10
	DefaultConcurrency      = 16
	DefaultModelTimeout     = 10 * time.Minute
	DefaultModelAttempts    = 5
	DefaultToolTimeout      = time.Hour
	DefaultToolAttempts     = 5
	DefaultHeartbeatTimeout = 10 * time.Second
	// DefaultMaxPayloadBytes keeps each payload under the server's 2 MiB
	// limit with room for its metadata and a codec's overhead.
	DefaultMaxPayloadBytes = 2<<20 - 64<<10
)

// The bounds of what a round schedules as a whole: the tool activities one
// workflow task schedules go to the server in one gRPC message (4 MiB by
// default), and a round's inputs stay in a history of at most 50 MiB.
const (
	maxTaskBytes  = 3 << 20
	maxRoundBytes = 24 << 20
)

// Input is what a conversation starts from: the prompt, and the settings
// that Prompt.Call takes from its Client. Zero fields mean the defaults.
// All of it is recorded in the workflow's history; secrets belong in the
// worker's ToolContext, never here.
type Input struct {
	System   string         `json:"system,omitempty"`
	Messages []chat.Message `json:"messages,omitempty"`
	// Tools names the worker's tools offered to the model, in order; empty
	// offers all of them. A name the worker does not have fails the
	// conversation before the model is asked.
	Tools      []string        `json:"tools,omitempty"`
	ToolChoice chat.ToolChoice `json:"tool_choice,omitzero"`
	Options    chat.Options    `json:"options,omitzero"`
	Model      string          `json:"model,omitempty"`
	// State is the session state from an earlier conversation
	// (Response.State); the tools read it from their ToolContext.
	State map[string]any `json:"state,omitempty"`
	// Key is given to the worker's ToolContext function, to choose the
	// tool context (say, a tenant's credentials) on the worker's side.
	Key string `json:"key,omitempty"`

	// MaxIterations bounds the tool rounds, DefaultMaxIterations by
	// default; toolcall.NoLimit removes the bound.
	MaxIterations int `json:"max_iterations,omitempty"`
	// AnswerAtLimit asks the model once more, with tool choice none, when
	// the limit is reached, as toolcall.WithAnswerAtLimit does.
	AnswerAtLimit bool `json:"answer_at_limit,omitempty"`
	// Output asks for the final answer as data that passes this JSON
	// Schema (toolcall.SchemaFor of a Go type; StrictSchemaFor with Strict
	// set): the conversation ends with such an answer, for Answer to
	// decode, or fails with a *toolcall.AnswerError. See the package doc.
	Output *chat.OutputFormat `json:"output,omitempty"`
	// OutputMode forces how Output is asked for: chat.OutputNative (an
	// error, before the model is asked, when the worker's model cannot) or
	// chat.OutputTool. Zero asks natively where the worker's model can.
	OutputMode chat.OutputMode `json:"output_mode,omitempty"`
	// MaxAnswerRepairs bounds how many times an answer that broke the
	// schema goes back to the model, 2 by default; toolcall.NoLimit
	// removes the bound (the iteration limit still holds).
	MaxAnswerRepairs int `json:"max_answer_repairs,omitempty"`
	// Concurrency bounds the tool activities of one reply that run at
	// once, DefaultConcurrency by default; 1 runs them in call order.
	Concurrency int `json:"concurrency,omitempty"`
	// DecisionTimeout bounds how long a call waits for a decision; past
	// it the call is denied and the model told so. Zero waits forever.
	DecisionTimeout time.Duration `json:"decision_timeout,omitempty"`

	// ModelTimeout is each model request's StartToCloseTimeout and
	// ModelAttempts how many times a failed request is tried.
	ModelTimeout  time.Duration `json:"model_timeout,omitempty"`
	ModelAttempts int           `json:"model_attempts,omitempty"`
	// ToolTimeout is the StartToCloseTimeout of a tool call whose tool
	// has no timeout of its own (toolcall.WithTimeout).
	ToolTimeout time.Duration `json:"tool_timeout,omitempty"`
	// ToolAttempts is how many times a call that may run again is tried
	// when its worker is lost.
	ToolAttempts int `json:"tool_attempts,omitempty"`
	// HeartbeatTimeout is how soon a lost worker is noticed.
	HeartbeatTimeout time.Duration `json:"heartbeat_timeout,omitempty"`
	// Retry says, by tool name, whether a call whose worker was lost runs
	// again (true) or fails (false); a tool not named follows its hints:
	// it runs again when it is ReadOnly or Idempotent.
	Retry map[string]bool `json:"retry,omitempty"`
	// MaxPayloadBytes bounds every payload the workflow sends,
	// DefaultMaxPayloadBytes by default.
	MaxPayloadBytes int `json:"max_payload_bytes,omitempty"`

	// Continued is the conversation so far, set by the workflow when it
	// continues as new; leave it nil.
	Continued *toolcall.Response `json:"continued,omitempty"`
}

// modelRequest is the input of the model activity.
type modelRequest struct {
	Request chat.Request `json:"request"` // without Tools: the worker adds them
	Tools   []string     `json:"tools,omitempty"`
	Round   int          `json:"round"`
	// MaxBytes bounds the reply as a payload; the activity refuses a
	// larger one, which the server would refuse.
	MaxBytes int `json:"max_bytes,omitempty"`
	// AnswerTool is offered after the worker's tools, for a typed answer
	// in the tool mode.
	AnswerTool *chat.ToolDefinition `json:"answer_tool,omitempty"`
}

// modelReply is the model activity's result: the reply, with unique call
// ids, and how each call is to run.
type modelReply struct {
	Response *chat.Response `json:"response"`
	Calls    []callPolicy   `json:"calls,omitempty"`
}

// callPolicy is what the worker's tool says about running a call again.
type callPolicy struct {
	Known   bool          `json:"known,omitempty"` // the tool is on the worker
	Retry   bool          `json:"retry,omitempty"` // ReadOnly or Idempotent
	Timeout time.Duration `json:"timeout,omitempty"`
	History bool          `json:"history,omitempty"` // in Worker.ToolsWithHistory
	// Malformed: the arguments are not JSON, and travel quoted.
	Malformed bool `json:"malformed,omitempty"`
}

// toolRequest is the input of the tool activity: one call of a reply.
type toolRequest struct {
	Tools []string `json:"tools,omitempty"`
	// History is the conversation before the reply, for a tool of
	// Worker.ToolsWithHistory; empty for the others.
	History  []chat.Message     `json:"history,omitempty"`
	Reply    chat.Message       `json:"reply"` // the reply, with only this call
	Decision *toolcall.Decision `json:"decision,omitempty"`
	// DecisionSeal signs Decision for this call of this workflow run
	// (see signDecision).
	DecisionSeal string         `json:"decision_seal,omitempty"`
	State        map[string]any `json:"state,omitempty"`
	Key          string         `json:"key,omitempty"`
	MaxBytes     int            `json:"max_bytes"`
	Malformed    bool           `json:"malformed,omitempty"` // callPolicy.Malformed
}

// Error types of a failed conversation, as Result maps them back.
const (
	typeMaxIterations = "toolcall.ErrMaxIterations"
	typeReplyCut      = "toolcall.ErrReplyCut"
	typeEmptyAnswer   = "toolcall.ErrEmptyAnswer"
	typeFatal         = "toolcall.ErrFatal"
	typeTooLarge      = "temporaltoolcall.ErrPayloadTooLarge"
	typeModel         = "temporaltoolcall.ModelFailed"
	typeTool          = "temporaltoolcall.ToolFailed"
	typeInput         = "temporaltoolcall.BadInput"
)

// lostWorker is what the model is told of a call whose worker was lost
// and which may not run again.
const lostWorker = "the worker running this call was lost; it may or may not have taken effect"

// A waiting call of the round in progress.
type waiting struct {
	index    int
	call     toolcall.PendingCall
	since    time.Time
	decision *toolcall.Decision // set by the Update, taken by the round
}

// conversation is the workflow's state.
type conversation struct {
	ctx     workflow.Context
	w       *Worker
	in      Input
	resp    *toolcall.Response
	waiting []*waiting
	keys    *seal.Keys  // the worker's DecisionKey; nil when it has none
	answer  *answerSpec // the typed answer asked for (Input.Output), or nil
}

// Conversation is the workflow, which Register registers as WorkflowName:
// it runs one conversation as Prompt.Call does, each model request and
// each tool call an activity, and signs the decisions it accepts with the
// worker's DecisionKey. See the package documentation.
func (w *Worker) Conversation(ctx workflow.Context, in Input) (*toolcall.Response, error) {
	keys, err := w.decisionKeys()
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), typeInput, nil)
	}
	c := &conversation{ctx: ctx, w: w, in: in, resp: &toolcall.Response{}, keys: keys}
	if err := workflow.SetQueryHandler(ctx, QueryPending, c.pending); err != nil {
		return nil, err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, UpdateDecide, c.decide,
		workflow.UpdateHandlerOptions{Validator: c.validate})
	if err != nil {
		return nil, err
	}
	return c.run()
}

func (c *conversation) maxPayload() int {
	if c.in.MaxPayloadBytes > 0 {
		return c.in.MaxPayloadBytes
	}
	return DefaultMaxPayloadBytes
}

// fail ends the conversation with an error of type typ; the Response so
// far rides along when it fits.
func (c *conversation) fail(typ string, cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if size, err := jsonSize(c.resp); err == nil && size <= c.maxPayload() {
		return temporal.NewNonRetryableApplicationError(msg, typ, cause, c.resp)
	}
	return temporal.NewNonRetryableApplicationError(msg, typ, cause)
}

// fits fails the conversation when v, a payload about to be sent, is
// larger than the limit.
func (c *conversation) fits(what string, v any) error {
	size, err := jsonSize(v)
	if err != nil {
		return c.fail(typeInput, nil, "temporaltoolcall: %s cannot be encoded: %v", what, err)
	}
	if limit := c.maxPayload(); size > limit {
		return c.fail(typeTooLarge, nil, "%v: %s is %d bytes, the limit is %d", ErrPayloadTooLarge, what, size, limit)
	}
	return nil
}

func jsonSize(v any) (int, error) {
	b, err := json.Marshal(v)
	return len(b), err
}

func (c *conversation) run() (*toolcall.Response, error) {
	in, resp := &c.in, c.resp
	var hist []chat.Message
	first := 1
	if in.Continued != nil {
		*resp = *in.Continued
		hist = resp.History
		first = resp.Rounds + 1
	} else {
		if in.System != "" {
			hist = append(hist, chat.SystemMessage(in.System))
		}
		hist = append(hist, in.Messages...)
		if len(hist) == 0 {
			return nil, c.fail(typeInput, nil, "temporaltoolcall: the conversation has no messages")
		}
	}
	maxIter := in.MaxIterations
	if maxIter == 0 {
		maxIter = DefaultMaxIterations
	}
	if err := c.askAnswer(); err != nil {
		return nil, err
	}
	for round := first; ; round++ {
		if round > first && workflow.GetInfo(c.ctx).GetContinueAsNewSuggested() {
			return nil, c.continueAsNew(hist)
		}
		req := modelRequest{Tools: in.Tools, Round: round, MaxBytes: c.maxPayload(), Request: chat.Request{
			Model: in.Model, Messages: hist, ToolChoice: in.ToolChoice, Options: in.Options}}
		if round > 1 && modelcall.Forced(req.Request.ToolChoice) {
			req.Request.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceAuto}
		}
		atLimit := in.AnswerAtLimit && maxIter > 0 && round > maxIter
		if atLimit {
			req.Request.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceNone}
		}
		if c.answer != nil {
			c.answer.request(in, &req, atLimit)
		}
		resp.Rounds = round
		resp.History = hist
		if err := c.fits("the model request of round "+fmt.Sprint(round), req); err != nil {
			return nil, err
		}
		var mr modelReply
		err := workflow.ExecuteActivity(c.modelContext(), ModelActivity, req).Get(c.ctx, &mr)
		if err != nil {
			return nil, c.fail(typeModel, err, "temporaltoolcall: model request of round %d failed", round)
		}
		reply := mr.Response
		resp.Intermediate = append(resp.Intermediate, reply)
		resp.Usage = resp.Usage.Add(reply.Usage)
		resp.Message = reply.Message
		if c.answer != nil && !reply.HasToolCalls() {
			var done bool
			if hist, done, err = c.textAnswer(hist, reply.Message, maxIter > 0 && round > maxIter); done {
				return resp, err
			}
			continue
		}
		if !reply.HasToolCalls() {
			resp.History = append(slices.Clip(hist), reply.Message)
			if reply.Message.Content == "" {
				return nil, c.fail(typeEmptyAnswer, nil, "%v: %s", toolcall.ErrEmptyAnswer, toolcalls.Empty(reply.FinishReason))
			}
			return resp, c.fits("the response", resp)
		}
		if why := toolcalls.Cut(reply); why != "" {
			return nil, c.fail(typeReplyCut, nil, "%v: %s", toolcall.ErrReplyCut, why)
		}
		if maxIter > 0 && round > maxIter && !c.answer.onlyAnswers(reply) {
			return nil, c.fail(typeMaxIterations, nil, "%v: %s", toolcall.ErrMaxIterations, toolcalls.PastLimit(maxIter))
		}
		execs, err := c.round(round, hist, reply.Message, mr.Calls)
		ab := (*aborted)(nil)
		if err != nil && !errors.As(err, &ab) {
			return nil, err
		}
		hist = append(slices.Clip(hist), reply.Message)
		direct := len(execs) > 0
		for _, e := range execs {
			m := chat.ToolMessage(e.Call, e.Result)
			m.IsError = e.IsError
			hist = append(hist, m)
			if len(e.State) > 0 {
				if resp.State == nil {
					resp.State = map[string]any{}
				}
				maps.Copy(resp.State, e.State)
			}
			if e.IsError || !e.ReturnDirect {
				direct = false
			}
		}
		resp.Executions = append(resp.Executions, execs...)
		resp.History = hist
		if ab != nil {
			return nil, c.fail(typeFatal, nil, "%s", ab.msg)
		}
		if c.answer != nil { // tools do not return directly: the answer ends the conversation
			if done, err := c.answerRound(execs, mr.Calls, maxIter > 0 && round >= maxIter); done {
				return resp, err
			}
			continue
		}
		if direct {
			resp.ReturnedDirect = true
			return resp, c.fits("the response", resp)
		}
	}
}

// continueAsNew carries the conversation into a new run, once the
// Update handlers have finished.
func (c *conversation) continueAsNew(hist []chat.Message) error {
	if err := workflow.Await(c.ctx, func() bool { return workflow.AllHandlersFinished(c.ctx) }); err != nil {
		return err
	}
	next := c.in
	if c.answer != nil {
		next.OutputMode = c.answer.mode // as this run asked
	}
	cont := *c.resp
	cont.History = hist
	next.Continued = &cont
	if err := c.fits("the conversation carried into a new run", next); err != nil {
		return err
	}
	return workflow.NewContinueAsNewError(c.ctx, WorkflowName, next)
}

func (c *conversation) modelContext() workflow.Context {
	in := &c.in
	attempts := in.ModelAttempts
	if attempts <= 0 {
		attempts = DefaultModelAttempts
	}
	return workflow.WithActivityOptions(c.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: or(in.ModelTimeout, DefaultModelTimeout),
		HeartbeatTimeout:    or(in.HeartbeatTimeout, DefaultHeartbeatTimeout),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        int32(attempts),
			NonRetryableErrorTypes: nonRetryableModelErrors,
		},
	})
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// toolContext returns the activity options of a call, by its policy.
func (c *conversation) toolContext(ctx workflow.Context, call chat.ToolCall, p callPolicy) workflow.Context {
	in := &c.in
	retry, ok := in.Retry[call.Name]
	if !ok {
		retry = p.Retry
	}
	attempts := int32(1)
	if retry {
		attempts = int32(in.ToolAttempts)
		if attempts <= 0 {
			attempts = DefaultToolAttempts
		}
	}
	timeout := or(in.ToolTimeout, DefaultToolTimeout)
	if p.Timeout > 0 {
		timeout = p.Timeout + time.Minute // the tool's own timeout ends the call first
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    or(in.HeartbeatTimeout, DefaultHeartbeatTimeout),
		// A call cancelled by an abort is over when its activity says so,
		// so that none runs on after the conversation ended.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
			MaximumAttempts:    attempts,
		},
	})
}

// A running tool activity.
type running struct {
	index int
	f     workflow.Future
}

// round runs the calls of reply as activities, at most Concurrency at
// once, waits for the decisions of the calls that wait, and returns one
// execution per call, in call order.
func (c *conversation) round(round int, hist []chat.Message, reply chat.Message, policies []callPolicy) ([]toolcall.ToolExecution, error) {
	calls := reply.ToolCalls
	execs := make([]toolcall.ToolExecution, len(calls))
	limit := c.in.Concurrency
	switch {
	case limit == 0:
		limit = DefaultConcurrency
	case limit < 0:
		limit = len(calls)
	}
	state := c.in.State
	if len(c.resp.State) > 0 {
		state = maps.Clone(c.in.State)
		if state == nil {
			state = map[string]any{}
		}
		maps.Copy(state, c.resp.State)
	}
	type job struct {
		index    int
		decision *toolcall.Decision
	}
	queue := make([]job, 0, len(calls))
	for i, call := range calls {
		if c.answer.takes(call) { // giving the answer runs nothing
			execs[i] = c.answer.given(call, round, i < len(policies) && policies[i].Malformed)
			continue
		}
		queue = append(queue, job{index: i})
	}
	var run []running
	roundBytes, taskBytes, taskAt := 0, 0, -1
	// Cancelled only by an abort: cancelling on other ways out would add
	// commands that histories recorded before did not have.
	rctx, cancel := workflow.WithCancel(c.ctx)
	c.waiting = nil
	defer func() { c.waiting = nil }()
	timeout := c.in.DecisionTimeout
	for {
		// Decided calls run again, in call order.
		c.waiting = slices.DeleteFunc(c.waiting, func(w *waiting) bool {
			if w.decision != nil {
				queue = append(queue, job{index: w.index, decision: w.decision})
				return true
			}
			return false
		})
		// What this workflow task schedules: passes of this loop that an
		// Await did not separate are one task (the history length tells).
		if at := workflow.GetInfo(c.ctx).GetCurrentHistoryLength(); at != taskAt {
			taskBytes, taskAt = 0, at
		}
		// The pass's calls are checked against the limits before any is
		// scheduled, so that a pass that cannot fit schedules nothing.
		type scheduled struct {
			index int
			ctx   workflow.Context
			req   toolRequest
		}
		var batch []scheduled
		for len(run)+len(batch) < limit && len(queue) > 0 {
			j := queue[0]
			queue = queue[1:]
			one := reply
			one.ToolCalls = []chat.ToolCall{calls[j.index]}
			var p callPolicy
			if j.index < len(policies) {
				p = policies[j.index]
			}
			req := toolRequest{Tools: c.in.Tools, Reply: one, Decision: j.decision,
				State: state, Key: c.in.Key, MaxBytes: c.maxPayload(), Malformed: p.Malformed}
			if p.History {
				req.History = hist
			}
			if j.decision != nil {
				// Only decisions this code accepted, for calls that waited,
				// are signed: the tool activity runs no other.
				info := workflow.GetInfo(c.ctx).WorkflowExecution
				s, err := signDecision(c.keys, info.ID, info.RunID, calls[j.index], *j.decision)
				if err != nil {
					return nil, err
				}
				req.DecisionSeal = s
			}
			if err := c.fits(fmt.Sprintf("the tool call %q of round %d", calls[j.index].ID, round), req); err != nil {
				return nil, err
			}
			size, _ := jsonSize(req) // fits encoded it
			taskBytes += size
			roundBytes += size
			if taskBytes > maxTaskBytes {
				return nil, c.fail(typeTooLarge, nil, "%v: the tool calls of round %d scheduled together are %d bytes, more than a workflow task may carry (%d): lower Input.Concurrency, or offer fewer tools in Worker.ToolsWithHistory",
					ErrPayloadTooLarge, round, taskBytes, maxTaskBytes)
			}
			if roundBytes > maxRoundBytes {
				return nil, c.fail(typeTooLarge, nil, "%v: the tool calls of round %d are %d bytes, more than one round may add to the history (%d)",
					ErrPayloadTooLarge, round, roundBytes, maxRoundBytes)
			}
			batch = append(batch, scheduled{j.index, c.toolContext(rctx, calls[j.index], p), req})
		}
		for _, s := range batch {
			run = append(run, running{s.index, workflow.ExecuteActivity(s.ctx, ToolActivity, s.req)})
		}
		if len(run) == 0 && len(c.waiting) == 0 {
			return execs, nil
		}
		ready := func() bool {
			return slices.ContainsFunc(run, func(r running) bool { return r.f.IsReady() }) ||
				slices.ContainsFunc(c.waiting, func(w *waiting) bool { return w.decision != nil })
		}
		if timeout > 0 && len(c.waiting) > 0 {
			// Calls join c.waiting as they pause, so the first has waited longest.
			wait := c.waiting[0].since.Add(timeout).Sub(workflow.Now(c.ctx))
			ok := false
			if wait > 0 {
				var err error
				if ok, err = workflow.AwaitWithTimeout(c.ctx, wait, ready); err != nil {
					return nil, err
				}
			}
			if !ok {
				now := workflow.Now(c.ctx)
				c.waiting = slices.DeleteFunc(c.waiting, func(w *waiting) bool {
					if w.decision == nil && !now.Before(w.since.Add(timeout)) {
						execs[w.index] = denied(w.call.ToolCall, round, fmt.Sprintf("no decision was made within %s", timeout))
						return true
					}
					return false
				})
			}
		} else if err := workflow.Await(c.ctx, ready); err != nil {
			return nil, err
		}
		var err error
		run = slices.DeleteFunc(run, func(r running) bool {
			if !r.f.IsReady() || err != nil {
				return false
			}
			err = c.finished(round, calls[r.index], r, execs)
			return true
		})
		if ab := (*aborted)(nil); errors.As(err, &ab) {
			return c.abort(round, calls, execs, run, cancel, ab)
		}
		if err != nil {
			return nil, err
		}
	}
}

// finished records the outcome of a tool activity.
func (c *conversation) finished(round int, call chat.ToolCall, r running, execs []toolcall.ToolExecution) error {
	var out toolOutcome
	if err := r.f.Get(c.ctx, &out); err != nil {
		if te := (*temporal.TimeoutError)(nil); errors.As(err, &te) {
			execs[r.index] = toolcall.ToolExecution{Call: call, Round: round, IsError: true, Result: lostWorker}
			return nil
		}
		return c.fail(typeTool, err, "temporaltoolcall: tool call %q (%s) of round %d failed", call.ID, call.Name, round)
	}
	if out.Abort != "" {
		execs[r.index] = out.Execution
		return &aborted{msg: out.Abort}
	}
	if out.Paused != "" {
		c.waiting = append(c.waiting, &waiting{index: r.index, since: workflow.Now(c.ctx),
			call: toolcall.PendingCall{ToolCall: call, Reason: out.Paused}})
		return nil
	}
	out.Execution.Round = round
	execs[r.index] = out.Execution
	return nil
}

// An aborted round: a call's error ended the conversation (toolcall.ErrFatal,
// or an error handler's error).
type aborted struct{ msg string }

func (a *aborted) Error() string { return a.msg }

// abortVersion marks the change by which an abort cancels the round's
// other calls, waits for them and keeps the round's record.
const abortVersion = "abort-keeps-the-round"

// abort ends the round a call aborted, as Prompt.Call does: the calls
// still running are cancelled and waited for (none runs on), those that
// finished keep their records, the others are recorded as not run, and
// the Response that rides with the error holds the round.
func (c *conversation) abort(round int, calls []chat.ToolCall, execs []toolcall.ToolExecution, run []running, cancel workflow.CancelFunc, ab *aborted) ([]toolcall.ToolExecution, error) {
	if workflow.GetVersion(c.ctx, abortVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil, c.fail(typeFatal, nil, "%s", ab.msg) // as histories recorded before the change did
	}
	cancel()
	for _, r := range run {
		var out toolOutcome
		switch err := r.f.Get(c.ctx, &out); {
		case err != nil: // cancelled while it ran, or its worker lost
			execs[r.index] = toolcall.ToolExecution{Call: calls[r.index], Round: round, IsError: true, Result: cancelledCall}
		case out.Paused == "": // it finished, or failed for good too
			out.Execution.Round = round
			execs[r.index] = out.Execution
		}
	}
	for i, e := range execs {
		if e.Call.ID == "" { // queued or waiting: it never ran
			execs[i] = notRun(calls[i], round)
		}
	}
	return execs, ab
}

// cancelledCall is what the model is told of a call cancelled while it ran,
// because another call ended the conversation.
const cancelledCall = "the call was cancelled when another call ended the conversation; it may or may not have taken effect"

// notRun is the record of a call that did not run because another call
// aborted the round, as Prompt.Call records it.
func notRun(call chat.ToolCall, round int) toolcall.ToolExecution {
	return toolcall.ToolExecution{Call: call, Round: round, IsError: true,
		Result: "tool call not executed: the request was aborted"}
}

// denied is the record of a call refused without running, told to the
// model as a denial by the approver is.
func denied(call chat.ToolCall, round int, reason string) toolcall.ToolExecution {
	d := &decision.Denial{Reason: reason}
	return toolcall.ToolExecution{Call: call, Round: round, IsError: true, Result: d.Error()}
}
