package toolcall

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/hook"
	"github.com/toolcall-go/toolcall/internal/modelcall"
	"github.com/toolcall-go/toolcall/internal/toolcalls"
	"github.com/toolcall-go/toolcall/internal/tooldefs"
)

// A Client runs prompts against a [chat.Model] and the tool-calling loop
// between them: it sends the request, executes the tool calls of the reply
// with its [Manager], sends the results back, and repeats until the model
// answers, a tool returns directly, or the iteration limit is reached. A
// reply cut short ends the call without running its tool calls; see
// [Prompt.Call].
//
// A Client is safe for concurrent use by multiple goroutines. Its methods
// that take options return a new Client and leave the receiver unchanged.
type Client struct {
	model   chat.Model
	cfg     config
	manager *Manager
	// defaultTools returns the client's default tools (WithTools),
	// collected and prepared at the first call that offers them: the tools
	// and their definitions do not change. shared is the last set with the
	// tools of the toolsets beside them.
	defaultTools func() (*toolSet, error)
	shared       atomic.Pointer[dynamicSet]
}

// NewClient returns a Client for model. With no options it offers no tools,
// runs tool calls concurrently, reports tool failures to the model, and
// allows 10 tool rounds ([WithMaxIterations]). With a nil model every call
// returns an error.
func NewClient(model chat.Model, opts ...ClientOption) *Client {
	return newClient(model, defaultConfig(), opts)
}

// With returns a Client with opts applied over c's configuration, e.g. for
// calls that need another iteration limit.
func (c *Client) With(opts ...ClientOption) *Client {
	cfg := c.cfg
	cfg.tools = append([]any(nil), c.cfg.tools...)
	cfg.toolsets = append([]Toolset(nil), c.cfg.toolsets...)
	return newClient(c.model, cfg, opts)
}

// newClient returns a Client with opts applied over cfg.
func newClient(model chat.Model, cfg config, opts []ClientOption) *Client {
	c := &Client{model: model, cfg: cfg}
	for _, o := range opts {
		o.apply(&c.cfg)
	}
	c.manager = &Manager{cfg: c.cfg}
	tools, strict := c.cfg.tools, c.cfg.strict
	c.defaultTools = sync.OnceValues(func() (*toolSet, error) {
		collected, err := collectTools(tools)
		if err != nil {
			return nil, err
		}
		return newToolSet(strict, collected), nil
	})
	return c
}

// Manager returns the Manager the client executes tool calls with.
func (c *Client) Manager() *Manager { return c.manager }

// Model returns the client's model.
func (c *Client) Model() chat.Model { return c.model }

// Prompt starts a request. Texts, if any, become user messages.
func (c *Client) Prompt(user ...string) *Prompt {
	p := &Prompt{c: c}
	for _, u := range user {
		p.User(u)
	}
	return p
}

// A Prompt builds one request. Its methods record what they are given and
// return the Prompt; they do no I/O, and mistakes (an unknown tool name, a
// type that is not a tool) are reported by Call or Stream. A Prompt is not
// safe for concurrent use; make one per call.
type Prompt struct {
	c          *Client
	system     string
	messages   []chat.Message
	tools      []any
	names      []string
	toolsSet   bool
	tc         ToolContext
	choice     chat.ToolChoice
	options    chat.Options
	model      string
	state      map[string]any
	paused     *Paused
	decided    map[string]Decision
	owner      string
	answer     any // Answer's target
	answerMode chat.OutputMode
	// first holds the first message, that of most prompts, in the Prompt's
	// own allocation.
	first [1]chat.Message
}

// System sets the system message, sent first.
func (p *Prompt) System(text string) *Prompt { p.system = text; return p }

// User adds a user message.
func (p *Prompt) User(text string) *Prompt {
	if p.messages == nil {
		p.messages = p.first[:0:1]
	}
	p.messages = append(p.messages, chat.UserMessage(text))
	return p
}

// Messages adds messages, e.g. an earlier conversation.
func (p *Prompt) Messages(msgs ...chat.Message) *Prompt {
	p.messages = append(p.messages, msgs...)
	return p
}

// Tools offers tools for this call: [Tool] values, []Tool slices, or
// objects with [Method] fields. Tools and ToolNames given to a prompt
// replace the client's default tools and names.
func (p *Prompt) Tools(tools ...any) *Prompt {
	p.tools = append(p.tools, tools...)
	p.toolsSet = true
	return p
}

// ToolNames offers tools by name, found in the client's [Registry].
// An unknown name makes Call fail before the model is asked.
func (p *Prompt) ToolNames(names ...string) *Prompt {
	p.names = append(p.names, names...)
	p.toolsSet = true
	return p
}

// ToolContext adds data for the tools, merged over what ctx carries (see
// [ContextWithToolContext]; this prompt's values win per key). It never
// reaches the model.
func (p *Prompt) ToolContext(m map[string]any) *Prompt {
	p.tc = p.tc.Merge(NewToolContext(m))
	return p
}

// State starts the session state from m, typically the [Response].State
// of the call before: tools read it from their ToolContext, under the
// caller's values, and write it with [SetState]. A resumed prompt's state
// comes from its [Paused].
func (p *Prompt) State(m map[string]any) *Prompt { p.state = m; return p }

// ToolChoice constrains tool use. A forced choice (required, or a named
// tool) applies to the first model round only; later rounds use auto, so a
// forced choice cannot loop.
func (p *Prompt) ToolChoice(choice chat.ToolChoice) *Prompt { p.choice = choice; return p }

// Options sets the sampling options.
func (p *Prompt) Options(o chat.Options) *Prompt { p.options = o; return p }

// Model overrides the provider's configured model for this call.
func (p *Prompt) Model(name string) *Prompt { p.model = name; return p }

// Resume continues a call that ended with a *[Paused] (p, perhaps read
// back from JSON): the calls that wait get their decisions by call id, the
// round ends as any other, and the loop goes on. A call without a decision
// keeps waiting, and Call returns a new *Paused. Give the prompt its tools
// and tool context again (the client's tools count, as for any call); its
// model and options are those of p unless set. The history and session
// state come from p: a resumed prompt takes no messages and no State.
//
// Before anything runs, Call checks p as the untrusted input it is once
// stored: its seal, when the client seals ([WithSealKeys]); that each
// waiting call is a call of the reply p pauses, with the same id, name and
// arguments ([ErrInvalidPaused] otherwise); the decisions (one for a call
// that does not wait, one that sets more than one of Allow, Deny and
// Result, Arguments without Allow, or an allowed call of a tool the prompt
// does not offer is an error); and that p was not resumed before: the
// same *Paused value in this process, or, with [WithResumeClaim], any
// copy anywhere ([ErrAlreadyResumed]). A resume that fails these checks
// may be retried with correct decisions.
//
// The Response records the whole resumed round, the calls done before the
// pause included (they do not run again), then the rounds after it.
//
// Once the checks passed, p is spent, also when a model request after the
// resumed round fails: resuming it again is ErrAlreadyResumed (or, with
// [AllowReplays], runs the calls again). The Response returned with such
// an error holds what is needed to go on, the history with the round's
// results and the session state:
//
//	resp, err = client.Prompt().Messages(resp.History...).State(resp.State).Call(ctx)
func (p *Prompt) Resume(paused *Paused, decisions map[string]Decision) *Prompt {
	p.paused, p.decided = paused, decisions
	return p
}

// Owner names whom a pause of this call belongs to, such as a tenant and
// a conversation id: the seal of its [Paused] state covers owner (it is
// not stored in it), and a resume must give the same Owner, else the
// state is refused ([ErrInvalidPaused]), so that one conversation's state
// cannot be resumed in another's. It needs [WithSealKeys].
func (p *Prompt) Owner(owner string) *Prompt { p.owner = owner; return p }

// call is one Call or Stream in progress.
type call struct {
	p   *Prompt
	cfg *config
	// tools is the set of the prompt's or client's tools; with toolsets,
	// last is the set of the latest request.
	tools *toolSet
	last  *dynamicSet
	req   chat.Request
	// caller is the tool context the caller gave; the session state is
	// read under it.
	caller ToolContext
	// hist is the history, req.Messages, in an array the call owns and
	// appends to; req.Messages has no room beyond its length, so that no one
	// it is given to appends into that array.
	hist []chat.Message
	// reqs holds the request of the first round, in the call's own
	// allocation; each round has its own, which the model may keep.
	reqs  [1]chat.Request
	nreqs int
	resp  *Response
	// answer is the typed answer asked for (Prompt.Answer), or nil.
	answer *answerSpec
	// onExecuted, when set, sees each execution; false stops the call.
	onExecuted func(ToolExecution) bool
}

// A dynamicSet is the tools of a request with toolsets: base, then the
// toolsets' tools (extra), prepared as one set. It serves the next requests
// while the toolsets return the same tools.
type dynamicSet struct {
	base  *toolSet
	extra []Tool // a copy: a toolset may change its own array
	set   *toolSet
}

func (p *Prompt) start(ctx context.Context) (context.Context, *call, error) {
	switch {
	case ctx == nil:
		return ctx, nil, errors.New("toolcall: nil context")
	case p.c.model == nil:
		return ctx, nil, errors.New("toolcall: the Client has no model (NewClient was given nil)")
	case modelcall.IsNil(p.c.model):
		return ctx, nil, fmt.Errorf("toolcall: the Client has no model (NewClient was given a nil %T)", p.c.model)
	case p.c.cfg.err != nil:
		return ctx, nil, p.c.cfg.err
	}
	if err := p.c.cfg.checkSealing(true, p.owner); err != nil {
		return ctx, nil, err
	}
	cfg := &p.c.cfg
	cl := &call{p: p, cfg: cfg, resp: &Response{}}
	if p.toolsSet {
		tools, err := collectTools(p.tools)
		if err != nil {
			return ctx, nil, err
		}
		for _, n := range p.names {
			var t Tool
			ok := false
			if cfg.registry != nil {
				t, ok = cfg.registry.Lookup(n)
			}
			if !ok {
				return ctx, nil, fmt.Errorf("%w: no tool named %q is in the client's registry", ErrToolNotFound, n)
			}
			tools = append(tools, t)
		}
		cl.tools = newToolSet(cfg.strict, tools)
	} else {
		set, err := p.c.defaultTools()
		if err != nil {
			return ctx, nil, err
		}
		cl.tools = set
	}
	if p.answer != nil {
		a, err := newAnswer(cfg, p.c.model, p.answer, p.answerMode)
		if err != nil {
			return ctx, nil, err
		}
		if cl.tools, err = a.withAnswerTool(cl.tools); err != nil {
			return ctx, nil, err
		}
		cl.answer = a
	}
	if p.tc.Len() > 0 {
		ctx = ContextWithToolContext(ctx, ToolContextFrom(ctx).Merge(p.tc))
	}
	cl.caller = ToolContextFrom(ctx)
	state := p.state
	if pz := p.paused; pz != nil {
		if p.system != "" || len(p.messages) > 0 || len(pz.History) == 0 || p.state != nil {
			return ctx, nil, errors.New("toolcall: a resumed prompt takes its history and state from the Paused state, and no messages or state")
		}
		// Checked before any hook or toolset sees the stored history.
		if err := cfg.openPaused(pz, p.owner); err != nil {
			return ctx, nil, err
		}
		if _, err := checkPaused(pz); err != nil {
			return ctx, nil, err
		}
		asked := ""
		if cl.answer != nil {
			asked = typeName(cl.answer.target.Type().Elem())
		}
		if asked != pz.Answer {
			return ctx, nil, fmt.Errorf("toolcall: the paused call asked for a typed answer of type %q, and the resuming prompt for %q: give Prompt.Answer a value of the same type", pz.Answer, asked)
		}
		// Clipped: the round resumed appends to a copy, for pz is the
		// caller's.
		cl.hist = pz.History[: len(pz.History)-1 : len(pz.History)-1]
		cl.req = chat.Request{Model: cmp.Or(p.model, pz.Model), Messages: cl.hist, ToolChoice: p.choice, Options: p.options}
		if reflect.ValueOf(p.options).IsZero() {
			cl.req.Options = pz.Options
		}
		state = pz.State
	} else {
		// A tool round makes room for itself when it needs more (see
		// execute).
		room := 1
		if len(cl.tools.tools) > 0 || len(cfg.toolsets) > 0 {
			room = 3
		}
		cl.hist = startHistory(p.system, p.messages, room)
		if len(cl.hist) == 0 {
			return ctx, nil, errors.New("toolcall: prompt has no messages")
		}
		cl.req = chat.Request{Model: p.model, Messages: slices.Clip(cl.hist), ToolChoice: p.choice, Options: p.options}
	}
	if len(state) > 0 {
		cl.resp.State = maps.Clone(state)
		ctx = cl.withState(ctx)
	}
	return ctx, cl, nil
}

// request returns the request for a round: the offered tools, including
// those of the toolsets, and the tool choice (forced only in round 1).
func (cl *call) request(ctx context.Context, round int) (*chat.Request, *toolSet, error) {
	var req *chat.Request
	if cl.nreqs < len(cl.reqs) {
		req = &cl.reqs[cl.nreqs]
		cl.nreqs++
	} else {
		req = new(chat.Request)
	}
	*req = cl.req
	set := cl.tools
	if len(cl.cfg.toolsets) > 0 {
		var err error
		if set, err = cl.withToolsets(ctx, req); err != nil {
			return nil, nil, err
		}
	}
	if set.err != nil {
		return nil, nil, set.err
	}
	req.Tools = slices.Clip(set.defs.Defs)
	if round > 1 && modelcall.Forced(req.ToolChoice) {
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceAuto}
	}
	if cl.cfg.answerAtLimit && round > cl.cfg.maxIterations {
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceNone}
	}
	if cl.answer != nil {
		req.Output = cl.answer.format // nil in the tool mode
	}
	if cl.answer != nil && cl.answer.tool != nil && cl.req.ToolChoice.IsZero() {
		// The answer is a call: the model must call a tool each round,
		// and at the limit, the answer tool.
		req.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceRequired}
		if cl.cfg.answerAtLimit && round > cl.cfg.maxIterations {
			req.ToolChoice = chat.ToolChoice{Name: answerTool}
		}
	}
	return req, set, nil
}

// withToolsets asks the toolsets for their tools and returns the set of
// the call's tools and theirs. The set is prepared again only when the
// toolsets return other tools than for the last request of this call, or
// of any call with the client's default tools.
func (cl *call) withToolsets(ctx context.Context, req *chat.Request) (*toolSet, error) {
	var extra []Tool
	for _, ts := range cl.cfg.toolsets {
		more, err := ts.Tools(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("toolcall: toolset %T: %w", ts, err)
		}
		if len(cl.cfg.toolsets) == 1 {
			extra = more // only read: never appended to
		} else {
			extra = append(extra, more...)
		}
	}
	base, c := cl.tools, cl.p.c
	if d := cl.last; d != nil && d.base == base && tooldefs.SameAll(d.extra, extra) {
		return d.set, nil
	}
	shared := !cl.p.toolsSet
	if d := c.shared.Load(); shared && d != nil && d.base == base && tooldefs.SameAll(d.extra, extra) {
		cl.last = d
		return d.set, nil
	}
	d := &dynamicSet{base: base, extra: slices.Clone(extra)}
	d.set = newToolSet(cl.cfg.strict, append(slices.Clip(base.tools), extra...))
	cl.last = d
	if shared {
		c.shared.Store(d)
	}
	return d.set, nil
}

// eligible reports whether the tool calls of resp are to be run: as the
// [WithEligibility] test says, else when resp has tool calls.
func (cl *call) eligible(resp *chat.Response) bool {
	if cl.cfg.eligible != nil {
		return cl.cfg.eligible(resp)
	}
	return resp.HasToolCalls()
}

// Call runs the prompt to its end. On an error after the first round the
// Response is returned too, with the history so far, valid to resend.
//
// When calls wait for a decision (an approval, a tool's [Pause]), Call
// returns an error that is a *[Paused]: find it with errors.As; it is the
// state to continue from with [Prompt.Resume], and the Response holds the
// history before the reply whose calls wait.
//
// A reply with tool calls that was cut short by the output limit or a
// content filter ([chat.FinishLength], [chat.FinishFiltered]) may have lost calls or
// arguments, so none of its calls is run: Call returns an error wrapping
// [ErrReplyCut]. The Response's Message and last Intermediate entry are
// the cut reply, for inspection; its History ends before it, so it can be
// resent, e.g. with a higher MaxTokens. A cut reply without tool calls is
// an answer like any other; so is a cut reply whose calls the Client would
// not run anyway ([WithEligibility] declining it): check its FinishReason before running its calls yourself.
func (p *Prompt) Call(ctx context.Context) (*Response, error) {
	ctx, cl, err := p.start(ctx)
	if err != nil {
		return nil, err
	}
	return cl.run(ctx, func(ctx context.Context, req *chat.Request) (*chat.Response, error) {
		mr, err := p.c.model.Chat(ctx, req)
		if err == nil && mr != nil {
			mr = toolcalls.WithUniqueIDs(mr)
		}
		return mr, err
	})
}

// A chatFunc asks the model once; its reply's calls have unique ids (see
// toolcalls.WithUniqueIDs).
type chatFunc func(ctx context.Context, req *chat.Request) (*chat.Response, error)

// run is the loop shared by Call and Stream, inside the call hooks.
func (cl *call) run(ctx context.Context, ask chatFunc) (*Response, error) {
	hooks := cl.cfg.hooks
	if hooks.BeforeCall != nil {
		ctx = hook.Context(ctx, hooks.BeforeCall(ctx, &cl.req))
	}
	resp, err := cl.rounds(ctx, ask)
	if hooks.AfterCall != nil {
		hooks.AfterCall(ctx, resp, err)
	}
	return resp, err
}

func (cl *call) rounds(ctx context.Context, ask chatFunc) (*Response, error) {
	resp := cl.resp
	hooks := cl.cfg.hooks
	first := 1
	if pz := cl.p.paused; pz != nil {
		_, set, err := cl.request(ctx, pz.Round)
		if err != nil {
			return resp, err
		}
		resp.Rounds = pz.Round
		ex, err := cl.cfg.resume(ctx, set, pz, cl.p.decided)
		if ex == nil {
			return nil, err
		}
		// The round's Executions hold the calls done before the pause too:
		// the round's results, returned directly, are all of them.
		if done, err := cl.endRound(&ctx, ex, err); done {
			return resp, err
		}
		first = pz.Round + 1
	}
	for round := first; ; round++ {
		req, set, err := cl.request(ctx, round)
		if err != nil {
			return resp, err
		}
		mctx := ctx
		if hooks.BeforeModel != nil {
			mctx = hook.Context(ctx, hooks.BeforeModel(ctx, req))
		}
		resp.Rounds = round
		var start time.Duration
		if hooks.AfterModel != nil {
			start = monotonic()
		}
		mr, err := ask(mctx, req)
		if err == nil && mr == nil {
			err = fmt.Errorf("%w: model returned no response", chat.ErrBadResponse)
		}
		if hooks.AfterModel != nil {
			mc := ModelCall{Round: round, Request: req, Err: err, Duration: monotonic() - start}
			if err == nil {
				mc.Response = mr
			}
			hooks.AfterModel(mctx, mc)
		}
		if err != nil {
			resp.History = req.Messages
			return resp, err
		}
		if resp.Intermediate == nil {
			resp.Intermediate = make([]*chat.Response, 0, 2) // most calls take two rounds
		}
		resp.Intermediate = append(resp.Intermediate, mr)
		resp.Usage = resp.Usage.Add(mr.Usage)
		resp.Message = mr.Message
		if cl.answer != nil && !mr.HasToolCalls() {
			// The answer, natively; or text where a call was asked for.
			// Refused, it goes back with what was wrong, within the repairs.
			hist := append(ownedHistory(cl.hist, req.Messages), mr.Message)
			refused := &AnswerError{Raw: mr.Message.Content, Violations: []Violation{notAnswered}}
			tell := notAnswered.Message
			if cl.answer.format != nil {
				err := cl.answer.decode([]byte(mr.Message.Content))
				if err == nil {
					resp.History = slices.Clip(hist)
					return resp, nil
				}
				refused = refusedText(mr.Message.Content, err)
				tell = repairText(refused)
			}
			if resp.Repairs >= cl.answer.repairs || round > cl.cfg.maxIterations {
				resp.History = slices.Clip(hist)
				refused.Repairs = resp.Repairs
				return resp, refused
			}
			resp.Repairs++
			cl.hist = append(hist, chat.UserMessage(tell))
			cl.req.Messages = slices.Clip(cl.hist)
			continue
		}
		if !cl.eligible(mr) {
			resp.History = slices.Clip(append(ownedHistory(cl.hist, req.Messages), mr.Message))
			if cl.answer != nil { // its calls, the answer's among them, do not run
				return resp, &AnswerError{Violations: []Violation{{Rule: "answer",
					Message: "the reply's calls were not run (WithEligibility declined them), so no answer was given"}}, Repairs: resp.Repairs}
			}
			if m := mr.Message; m.Content == "" && len(m.ToolCalls) == 0 {
				return resp, fmt.Errorf("%w: %s", ErrEmptyAnswer, toolcalls.Empty(mr.FinishReason))
			}
			return resp, nil
		}
		if err := replyCut(mr); err != nil {
			// As with the iteration limit, the unrun calls stay out of the
			// history, which would otherwise lack their tool results.
			resp.History = req.Messages
			return resp, err
		}
		if round > cl.cfg.maxIterations && !cl.onlyAnswers(mr) {
			resp.History = req.Messages
			return resp, fmt.Errorf("%w: %s", ErrMaxIterations, toolcalls.PastLimit(cl.cfg.maxIterations))
		}
		var ex execution
		err = cl.cfg.execute(ctx, set, slices.Grow(ownedHistory(cl.hist, req.Messages), len(mr.Message.ToolCalls)+2), mr, round, nil, &ex) // room for the next reply too
		if done, err := cl.endRound(&ctx, &ex, err); done {
			return resp, err
		}
	}
}

// endRound records a round (see record) and, when the call asks for a
// typed answer in the tool mode, looks for it among the round's
// executions: the call ends with the answer, or with an AnswerError once
// the repairs are spent. A returnDirect tool does not end such a call.
func (cl *call) endRound(ctx *context.Context, ex *execution, err error) (bool, error) {
	if cl.answer != nil {
		ex.ReturnDirect = false
	}
	if done, err := cl.record(ctx, ex, err); done || cl.answer == nil {
		return done, err
	}
	resp := cl.resp
	done, refused := cl.answer.answered(ex.Executions)
	switch {
	case done:
		return true, nil
	case refused != nil && (resp.Repairs >= cl.answer.repairs || resp.Rounds >= cl.cfg.maxIterations):
		refused.Repairs = resp.Repairs
		return true, refused
	case refused != nil:
		resp.Repairs++
	}
	return false, nil
}

// record adds a round's executions to the Response and reports whether
// the call ends there, and with what error. The round's state writes go
// into the Response and into the tool context of the rounds after it.
func (cl *call) record(ctx *context.Context, ex *execution, err error) (bool, error) {
	resp := cl.resp
	if resp.Executions == nil && ex.paused == nil && len(ex.Executions) > 0 {
		resp.Executions = ex.Executions // the round's own slice, which no one else holds
	} else {
		resp.Executions = append(resp.Executions, ex.Executions...)
	}
	if state, wrote := mergeState(resp.State, ex.Executions); wrote {
		resp.State = state
		*ctx = cl.withState(*ctx)
	}
	resp.History = slices.Clip(ex.History)
	if cl.onExecuted != nil {
		for i := range ex.Executions {
			if !cl.onExecuted(ex.Executions[i]) {
				return true, chat.ErrStreamStopped
			}
		}
	}
	if pz := ex.paused; pz != nil {
		if cl.answer != nil {
			pz.Answer = typeName(cl.answer.target.Type().Elem())
		}
		if serr := cl.cfg.finishPause(pz, cl.req.Model, cl.req.Options, resp.State, cl.p.owner); serr != nil {
			return true, serr
		}
	}
	switch {
	case err != nil:
		return true, err
	case ex.ReturnDirect:
		resp.ReturnedDirect = true
		return true, nil
	}
	cl.hist, cl.req.Messages = ex.History, slices.Clip(ex.History)
	return false, nil
}

// withState returns ctx with the tool context the next round's tools
// see: the session state, with the caller's values over it.
func (cl *call) withState(ctx context.Context) context.Context {
	return ContextWithToolContext(ctx, NewToolContext(cl.resp.State).Merge(cl.caller))
}
