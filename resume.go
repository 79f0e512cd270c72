package toolcall

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/decision"
	"github.com/toolcall-go/toolcall/internal/seal"
)

// WithSealKeys seals every [Paused] state with an HMAC-SHA256 under
// keys[current], and makes [Prompt.Resume] refuse, before anything runs,
// a state that is not sealed, was sealed with a key not in keys or for
// another owner ([Prompt.Owner]), has expired ([WithPauseExpiry]), or was
// edited in any field ([ErrInvalidPaused]). Keys are named by id, so that
// they can rotate: seal with a new one, and keep the old ones while
// states sealed with them may come back. Each key has at least 32 bytes
// (say, from crypto/rand); ids hold no '.'.
//
// A sealed state is meant to be stored, and a stored state can be given
// back twice: a Client that seals needs [WithResumeClaim] too, with your
// claim function or [AllowReplays]. A mistake here makes every call fail
// with an error that says so.
//
// The seal covers the state's JSON exactly: every number as written,
// however many digits, so state values ([SetState]) must survive a JSON
// round trip unchanged (as plain data does) for a stored state to open; an
// integer above 2^53 decoded into a float64 on the way does not.
func WithSealKeys(current string, keys map[string][]byte) ManagerOption {
	k, err := seal.New(current, keys)
	return execOption(func(c *config) {
		c.seal = k
		if err != nil {
			c.err = fmt.Errorf("toolcall: WithSealKeys: %w", err)
		}
	})
}

// WithPauseExpiry makes a sealed [Paused] state expire d after the pause:
// a resume after [Paused].Expires is refused ([ErrInvalidPaused]), and so
// is a state that has no expiry. It needs [WithSealKeys], since an
// unsealed expiry could be edited.
func WithPauseExpiry(d time.Duration) ManagerOption {
	return execOption(func(c *config) { c.pauseExpiry = d })
}

// WithResumeClaim makes a resume run each approved call at most once
// across processes. claim is called with the [Paused] state's ID once a
// resume's decisions were checked and before any call runs; make it one
// atomic write in your own store (an insert of the id as a unique key, a
// set-if-absent) and return an error, such as one wrapping
// [ErrAlreadyResumed], when the id was claimed before. The resume then
// runs nothing and returns that error.
//
// At most once is what holds, not exactly once: a process that stops
// after the claim and before its calls finish loses them. A tool whose
// effect must happen exactly once passes [CallInfo].IdempotencyKey to a
// system that drops repeated requests.
//
// Within one process, resuming the same *Paused value twice is
// ErrAlreadyResumed without a claim function. A Client that seals must
// have one: give [AllowReplays] to say that a stored state may run again.
func WithResumeClaim(claim func(ctx context.Context, id string) error) ClientOption {
	return optionFunc(func(c *config) {
		c.claim = claim
		if claim == nil {
			c.err = errors.New("toolcall: WithResumeClaim: a nil claim function; give AllowReplays to allow replays")
		}
	})
}

// AllowReplays is the claim function of a Client whose stored states may
// be resumed more than once, each time running the approved calls again:
// give it to [WithResumeClaim] when replays do no harm. It claims nothing.
func AllowReplays(ctx context.Context, id string) error { return nil }

// checkSealing refuses a configuration that cannot keep its word: an
// expiry or an owner without a seal, a sealing Client without a claim.
func (c *config) checkSealing(client bool, owner string) error {
	switch {
	case c.seal == nil && c.pauseExpiry != 0:
		return errors.New("toolcall: WithPauseExpiry needs WithSealKeys: an unsealed expiry could be edited")
	case c.pauseExpiry < 0:
		return fmt.Errorf("toolcall: WithPauseExpiry(%s): a negative expiry", c.pauseExpiry)
	case c.seal == nil && owner != "":
		return errors.New("toolcall: Prompt.Owner needs WithSealKeys: nothing binds an unsealed state to its owner")
	case client && c.seal != nil && c.claim == nil:
		return errors.New("toolcall: a Client with WithSealKeys needs WithResumeClaim: give your claim function, or AllowReplays to allow a stored state to run again")
	}
	return nil
}

// finishPause completes p with the model and options of the call's
// request and a copy of its session state, and gives it its ID, expiry
// and, when the client seals, its seal for owner.
func (c *config) finishPause(p *Paused, model string, opts chat.Options, state map[string]any, owner string) error {
	p.Model, p.Options, p.State = model, opts, maps.Clone(state)
	p.ID, p.Seal, p.Expires = rand.Text(), "", time.Time{}
	if c.pauseExpiry > 0 {
		// UTC and no monotonic reading: the JSON round trip keeps it as is.
		p.Expires = time.Now().Add(c.pauseExpiry).UTC().Round(0)
	}
	s, err := c.seal.Seal(p, owner)
	if err != nil {
		return fmt.Errorf("toolcall: sealing the paused state (its session state must be JSON data): %w", err)
	}
	p.Seal = s
	return nil
}

// maxClockSkew is how far ahead of this process's clock another's may be
// when it sets an expiry.
const maxClockSkew = time.Minute

// openPaused checks p's seal for owner, that it has none when the client
// does not seal, and its expiry.
func (c *config) openPaused(p *Paused, owner string) error {
	unsealed := *p
	unsealed.Seal = ""
	if err := c.seal.Open(&unsealed, owner, p.Seal); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidPaused, err)
	}
	switch {
	case c.pauseExpiry > 0 && p.Expires.IsZero():
		return fmt.Errorf("%w: it has no expiry, and the client sets one", ErrInvalidPaused)
	case !p.Expires.IsZero() && time.Now().After(p.Expires):
		return fmt.Errorf("%w: it expired at %s", ErrInvalidPaused, p.Expires.Format(time.RFC3339))
	case c.pauseExpiry > 0 && p.Expires.After(time.Now().Add(c.pauseExpiry+maxClockSkew)):
		// Sealed where pauses lasted longer: this client's expiry caps it.
		return fmt.Errorf("%w: it expires at %s, later than this client's pauses last (%s)", ErrInvalidPaused, p.Expires.Format(time.RFC3339), c.pauseExpiry)
	}
	return nil
}

// checkPaused checks that p holds together and returns the reply it
// pauses (see [checkPausedReply]).
func checkPaused(p *Paused) (chat.Message, error) {
	pending := make([]chat.ToolCall, len(p.Pending))
	for i, pc := range p.Pending {
		pending[i] = pc.ToolCall
	}
	done := make([]chat.ToolCall, len(p.Done))
	for i, e := range p.Done {
		done[i] = e.Call
	}
	reply, err := checkPausedReply(p.History, p.Round, pending, done)
	if err != nil {
		return reply, fmt.Errorf("%w: %v", ErrInvalidPaused, err)
	}
	return reply, nil
}

// checkDecisions refuses the caller's mistakes: a decision for a call
// that does not wait, one that says two things, Arguments without Allow,
// and an allowed call of a tool the prompt does not offer.
func checkDecisions(p *Paused, set *toolSet, decisions map[string]Decision) error {
	for _, id := range slices.Sorted(maps.Keys(decisions)) {
		d := decisions[id]
		j := slices.IndexFunc(p.Pending, func(pc PendingCall) bool { return pc.ID == id })
		if j < 0 {
			return fmt.Errorf("toolcall: resume: a decision for call %q, which does not wait", id)
		}
		if err := decision.Decision(d).Check(); err != nil {
			return fmt.Errorf("toolcall: resume: the decision for call %q %v", id, err)
		}
		if d.Allow && set.find(p.Pending[j].Name) == nil {
			return fmt.Errorf("toolcall: resume: call %q of tool %q is allowed, and the prompt does not offer that tool", id, p.Pending[j].Name)
		}
	}
	return nil
}

// resume finishes the round a call paused in, once p and the decisions
// passed the checks: the done calls keep their records, each waiting call
// gets its decision (none keeps it waiting), and the round ends as any
// other, or pauses again. Nothing runs when a check fails.
// Prompt.start opened p (its seal, owner and expiry) before anything saw it.
func (cfg *config) resume(ctx context.Context, set *toolSet, p *Paused, decisions map[string]Decision) (*execution, error) {
	reply, err := checkPaused(p)
	if err != nil {
		return nil, err
	}
	if err := checkDecisions(p, set, decisions); err != nil {
		return nil, err
	}
	undo, ok := seal.Once(p)
	if !ok {
		return nil, fmt.Errorf("%w: this *Paused value was resumed before", ErrAlreadyResumed)
	}
	if cfg.claim != nil {
		if p.ID == "" {
			undo()
			return nil, fmt.Errorf("%w: it has no ID to claim", ErrInvalidPaused)
		}
		if err := cfg.claim(ctx, p.ID); err != nil {
			undo()
			return nil, fmt.Errorf("toolcall: resume: the claim of paused state %s: %w", p.ID, err)
		}
	}
	execs := make([]ToolExecution, len(reply.ToolCalls))
	// The history the round ends with: a copy, which p does not share.
	n := len(p.History)
	hist := append(make([]chat.Message, 0, n+len(execs)+1), p.History...)
	var abort error
	for i, call := range reply.ToolCalls {
		if j := slices.IndexFunc(p.Done, func(e ToolExecution) bool { return e.Call.ID == call.ID }); j >= 0 {
			execs[i] = p.Done[j]
			continue
		}
		if abort != nil {
			execs[i] = notRun(call, p.Round)
			continue
		}
		d := decisions[call.ID]
		if decision.Decision(d).Waits() { // it keeps waiting, for what it waited for
			j := slices.IndexFunc(p.Pending, func(pc PendingCall) bool { return pc.ID == call.ID })
			execs[i] = ToolExecution{Call: call, Round: p.Round, Err: &decision.Pause{Reason: p.Pending[j].Reason}}
			continue
		}
		abort = cfg.executeOne(ctx, set, call, p.History, p.Round, &d, p.ID, &execs[i])
	}
	ex := new(execution)
	return ex, endRound(ex, hist, execs, p.Round, abort)
}

// checkPausedReply checks that a paused state holds together and returns the reply
// it pauses, the last message of history: round is at least 1, each
// waiting call (pending) is a call of that reply, with the same id, name
// and arguments (as JSON values), each done call one with the same id and
// name, and each of the reply's calls is one or the other, once.
func checkPausedReply(history []chat.Message, round int, pending, done []chat.ToolCall) (chat.Message, error) {
	n := len(history)
	if n == 0 || history[n-1].Role != chat.RoleAssistant || len(history[n-1].ToolCalls) == 0 {
		return chat.Message{}, errors.New("the history does not end with a reply with tool calls")
	}
	if round < 1 {
		return chat.Message{}, fmt.Errorf("round %d", round)
	}
	if len(pending) == 0 {
		return chat.Message{}, errors.New("no call waits")
	}
	reply := history[n-1]
	seen := make(map[string]bool, len(reply.ToolCalls))
	find := func(c chat.ToolCall, what string) (chat.ToolCall, error) {
		if seen[c.ID] {
			return c, fmt.Errorf("call %q is listed twice", c.ID)
		}
		seen[c.ID] = true
		j := slices.IndexFunc(reply.ToolCalls, func(rc chat.ToolCall) bool { return rc.ID == c.ID })
		if j < 0 {
			return c, fmt.Errorf("%s call %q is not a call of the reply", what, c.ID)
		}
		rc := reply.ToolCalls[j]
		if rc.Name != c.Name {
			return c, fmt.Errorf("%s call %q is of tool %q, the reply's of %q", what, c.ID, c.Name, rc.Name)
		}
		return rc, nil
	}
	for _, pc := range pending {
		rc, err := find(pc, "waiting")
		if err != nil {
			return reply, err
		}
		if !check.SameJSON(check.Normalize(rc.Arguments), check.Normalize(pc.Arguments)) {
			return reply, fmt.Errorf("waiting call %q has other arguments than the reply's call", pc.ID)
		}
	}
	for _, c := range done {
		if _, err := find(c, "done"); err != nil {
			return reply, err
		}
	}
	for _, rc := range reply.ToolCalls {
		if !seen[rc.ID] {
			return reply, fmt.Errorf("call %q of the reply is neither done nor waiting", rc.ID)
		}
	}
	return reply, nil
}
