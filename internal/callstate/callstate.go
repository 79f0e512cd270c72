// Package callstate holds what a running tool can see and change of its
// call: the call's identity and history, its session-state writes, a
// request to return directly, and its progress reports. Every change is
// refused once the tool has returned.
package callstate

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/toolcall-go/toolcall/chat"
)

// A State is what a running tool can see and change of its call.
type State struct {
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
func (s *State) Set(key string, value any) bool {
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
func (s *State) Report(message string, progress, total float64) bool {
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
func (s *State) SetReturnDirect() bool {
	if s.ended.Load() {
		return false
	}
	s.returnDirect.Store(true)
	return true
}

// ReturnDirect reports whether the tool asked to return directly.
func (s *State) ReturnDirect() bool { return s.returnDirect.Load() }

// key is the context key of a call's State.
type key struct{}

// A Ctx is the context a tool runs in: the caller's, plus the call's
// state, in one allocation.
type Ctx struct {
	context.Context
	State State
}

// End marks the call as returned and returns its state writes: the
// functions a tool calls with its context do nothing after it.
func (c *Ctx) End() map[string]any {
	c.State.mu.Lock()
	defer c.State.mu.Unlock()
	c.State.ended.Store(true)
	return c.State.state
}

// String keeps the history and settings out of printed contexts.
func (c *Ctx) String() string {
	return fmt.Sprintf("%v.WithToolCall(%s)", c.Context, c.State.Call.Name)
}

// Value answers the call's key and defers the rest to the caller's
// context, which keeps cancellation propagating without a goroutine.
func (c *Ctx) Value(k any) any {
	if k == (key{}) {
		return &c.State
	}
	return c.Context.Value(k)
}

// From returns the State of the call ctx belongs to; false outside a call.
func From(ctx context.Context) (*State, bool) {
	s, ok := ctx.Value(key{}).(*State)
	return s, ok
}
