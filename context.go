package toolcall

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolcall-go/toolcall/chat"
)

// A ToolContext carries the caller's data to tools, such as a tenant or
// user id. It never reaches the model. A ToolContext is immutable and safe
// for concurrent use; the zero value is empty.
//
// A tool receives it by declaring a ToolContext parameter (method tools) or
// with [ToolContextFrom] (any tool).
type ToolContext struct{ m map[string]any }

// NewToolContext returns a ToolContext holding a copy of m.
func NewToolContext(m map[string]any) ToolContext {
	if len(m) == 0 {
		return ToolContext{}
	}
	return ToolContext{m: maps.Clone(m)}
}

// Value returns the value for key, or nil.
func (tc ToolContext) Value(key string) any { return tc.m[key] }

// Lookup returns the value for key and whether it is present.
func (tc ToolContext) Lookup(key string) (any, bool) {
	v, ok := tc.m[key]
	return v, ok
}

// Len returns the number of keys.
func (tc ToolContext) Len() int { return len(tc.m) }

// All returns the keys and values, in key order.
func (tc ToolContext) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, k := range slices.Sorted(maps.Keys(tc.m)) {
			if !yield(k, tc.m[k]) {
				return
			}
		}
	}
}

// Merge returns tc with the keys of over added; over wins on a clash.
func (tc ToolContext) Merge(over ToolContext) ToolContext {
	switch {
	case len(over.m) == 0:
		return tc
	case len(tc.m) == 0:
		return over
	}
	m := maps.Clone(tc.m)
	maps.Copy(m, over.m)
	return ToolContext{m: m}
}

// CallInfo describes the tool call being executed.
type CallInfo struct {
	ID    string // the model's call id
	Name  string // the tool name
	Round int    // the model round trip that asked for the call, from 1
	// History is the conversation up to and including the assistant
	// message with the call. It is shared: do not modify it.
	History []chat.Message
	// IdempotencyKey is the same on every run of a call resumed from one
	// paused state: its ID and the call id. A resume runs each approved
	// call at most once where a claim function holds ([WithResumeClaim]),
	// and a crash after the claim loses the call; give this key to a
	// system that drops a repeated request, and its effect happens once
	// even when a stored state is resumed again. Empty for a call that
	// was not paused.
	IdempotencyKey string
}

// toolContextKey is the context key of the ToolContext.
type toolContextKey struct{}

// callInfo describes the call whose state s is.
func callInfo(s *callState) CallInfo {
	info := CallInfo{ID: s.Call.ID, Name: s.Call.Name, Round: s.Round, History: s.History}
	if s.PauseID != "" {
		info.IdempotencyKey = s.PauseID + "/" + s.Call.ID
	}
	return info
}

// ContextWithToolContext returns ctx carrying tc. A [Client] does this
// itself; pass such a ctx to [Manager.Execute] when you drive the loop, or
// when you call a tool directly.
func ContextWithToolContext(ctx context.Context, tc ToolContext) context.Context {
	return context.WithValue(ctx, toolContextKey{}, tc)
}

// ToolContextFrom returns the ToolContext of the call ctx belongs to, or an
// empty one.
func ToolContextFrom(ctx context.Context) ToolContext {
	tc, _ := ctx.Value(toolContextKey{}).(ToolContext)
	return tc
}

// CallInfoFrom returns information about the tool call ctx belongs to. It
// reports false outside a call made by a [Manager].
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	s, ok := callStateFrom(ctx)
	if !ok {
		return CallInfo{}, false
	}
	return callInfo(s), true
}

// SetState writes key to the session state, from inside a running tool.
// The writes of a call come back in its [ToolExecution].State, and those of
// a whole Call, merged in call order, in [Response].State; they never
// reach the model. Tools read the state from their [ToolContext]: the
// calls of later rounds see earlier rounds' writes (calls of the same round
// do not see each other's), and the caller passes Response.State to the
// next call with [Prompt.State].
//
// The session state never overrides the caller's values: a key the
// caller set in the ToolContext (with [Prompt.ToolContext] or
// [ContextWithToolContext]) reads the caller's value, whatever a tool
// writes under it. A write whose key the model may have chosen thus
// cannot change, say, the tenant a later call runs for.
//
// It reports false, and writes nothing, outside a call made by a
// [Manager] and once the tool has returned (from a goroutine the tool left
// running).
func SetState(ctx context.Context, key string, value any) bool {
	s, ok := callStateFrom(ctx)
	return ok && s.Set(key, value)
}

// ReportProgress tells the [Hooks].ToolProgress hook, from inside a running
// tool, how far the call has come: progress out of total (0 when the total
// is unknown), and a message. A tool bridged from MCP reports the server's
// progress notifications this way. It reports false outside a call made by
// a [Manager] and once the tool has returned.
func ReportProgress(ctx context.Context, message string, progress, total float64) bool {
	s, ok := callStateFrom(ctx)
	return ok && s.Report(message, progress, total)
}

// SetReturnDirect asks, from inside a running tool, that its result go
// straight to the caller, as if the tool had [Metadata.ReturnDirect]. As with
// static returnDirect, it takes effect only when every tool called in the
// same response returns directly and none failed. It reports false outside a
// call made by a [Manager] and once the tool has returned.
func SetReturnDirect(ctx context.Context) bool {
	s, ok := callStateFrom(ctx)
	return ok && s.SetReturnDirect()
}

// What a running tool can see and change of its call: the call's identity
// and history, its session-state writes, a request to return directly, and
// its progress reports. Every change is refused once the tool has returned.

// A callState is what a running tool can see and change of its call.
type callState struct {
	Call    *chat.ToolCall // the call, in its record: its id and tool name
	Round   int            // the model round trip that asked for the call, from 1
	History []chat.Message
	// PauseID is the ID of the paused state a resumed call comes from.
	PauseID string
	// Progress, when set, sees what the tool reports.
	Progress     func(message string, progress, total float64)
	returnDirect atomic.Bool
	mu           sync.Mutex
	// ended is set, under mu, when the tool has returned: its record is
	// written then, and later writes would race with it.
	ended atomic.Bool
	state map[string]any // written with Set
}

// Set writes key to the session state; it reports false, and writes
// nothing, once the tool has returned.
func (s *callState) Set(key string, value any) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended.Load() {
		return false
	}
	if s.state == nil {
		s.state = map[string]any{}
	}
	s.state[key] = value
	return true
}

// Report passes a progress report to Progress; it reports false once the
// tool has returned.
func (s *callState) Report(message string, progress, total float64) bool {
	if s.ended.Load() {
		return false
	}
	if s.Progress != nil {
		s.Progress(message, progress, total)
	}
	return true
}

// SetReturnDirect asks that the result go straight to the caller; it
// reports false once the tool has returned.
func (s *callState) SetReturnDirect() bool {
	if s.ended.Load() {
		return false
	}
	s.returnDirect.Store(true)
	return true
}

// ReturnDirect reports whether the tool asked to return directly.
func (s *callState) ReturnDirect() bool { return s.returnDirect.Load() }

// callStateKey is the context key of a call's callState.
type callStateKey struct{}

// A callCtx is the context a tool runs in: the caller's, plus the call's
// state, in one allocation.
type callCtx struct {
	context.Context
	State callState
}

// End marks the call as returned and returns its state writes: the
// functions a tool calls with its context do nothing after it.
func (c *callCtx) End() map[string]any {
	c.State.mu.Lock()
	defer c.State.mu.Unlock()
	c.State.ended.Store(true)
	return c.State.state
}

// String keeps the history and settings out of printed contexts.
func (c *callCtx) String() string {
	return fmt.Sprintf("%v.WithToolCall(%s)", c.Context, c.State.Call.Name)
}

// Value answers the call's key and defers the rest to the caller's
// context, which keeps cancellation propagating without a goroutine.
func (c *callCtx) Value(k any) any {
	if k == (callStateKey{}) {
		return &c.State
	}
	return c.Context.Value(k)
}

// callStateFrom returns the callState of the call ctx belongs to; false outside a call.
func callStateFrom(ctx context.Context) (*callState, bool) {
	s, ok := ctx.Value(callStateKey{}).(*callState)
	return s, ok
}
