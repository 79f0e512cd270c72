package toolcall

import (
	"context"
	"iter"
	"maps"
	"slices"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/callstate"
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
func callInfo(s *callstate.State) CallInfo {
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
	s, ok := callstate.From(ctx)
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
	s, ok := callstate.From(ctx)
	return ok && s.Set(key, value)
}

// ReportProgress tells the [Hooks].ToolProgress hook, from inside a running
// tool, how far the call has come: progress out of total (0 when the total
// is unknown), and a message. A tool bridged from MCP reports the server's
// progress notifications this way. It reports false outside a call made by
// a [Manager] and once the tool has returned.
func ReportProgress(ctx context.Context, message string, progress, total float64) bool {
	s, ok := callstate.From(ctx)
	return ok && s.Report(message, progress, total)
}

// SetReturnDirect asks, from inside a running tool, that its result go
// straight to the caller, as if the tool had [Metadata.ReturnDirect]. As with
// static returnDirect, it takes effect only when every tool called in the
// same response returns directly and none failed. It reports false outside a
// call made by a [Manager] and once the tool has returned.
func SetReturnDirect(ctx context.Context) bool {
	s, ok := callstate.From(ctx)
	return ok && s.SetReturnDirect()
}
