package toolcall

import (
	"context"
	"fmt"
	"iter"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/modelcall"
	"github.com/toolcall-go/toolcall/internal/toolcalls"
)

// An EventKind says what a stream [Event] carries.
type EventKind int

// Kinds of stream events.
const (
	EventText       EventKind = iota + 1 // a piece of the model's text
	EventToolCall                        // a complete tool call the model asked for
	EventToolResult                      // a tool call executed
	EventDone                            // the call ended; Response is set
)

// String returns the kind's name, such as "EventToolCall".
func (k EventKind) String() string {
	switch k {
	case EventText:
		return "EventText"
	case EventToolCall:
		return "EventToolCall"
	case EventToolResult:
		return "EventToolResult"
	case EventDone:
		return "EventDone"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// An Event is one step of a streamed call.
type Event struct {
	Kind      EventKind
	Text      string        // EventText
	ToolCall  chat.ToolCall // EventToolCall
	Execution ToolExecution // EventToolResult
	// Response is the outcome, with EventDone; with an error it holds the
	// history so far.
	Response *Response
}

// Stream runs the prompt like [Prompt.Call], yielding the model's text as
// it arrives, each tool call and each tool result, and finally an
// EventDone with the Response. The tool loop runs between rounds with the
// same policies as Call. An error ends the sequence; its event has no Kind
// and carries the Response so far. Stopping the iteration early stops the
// model's stream and the loop, and leaves nothing running.
//
// EventToolCall comes as soon as the model's reply is complete; a call that
// is then not executed (the reply was cut short, see [ErrReplyCut]; the
// iteration limit is reached; or [WithEligibility] declines it) gets no
// EventToolResult.
//
// A call that waits for a decision ends the sequence with an error that is
// a *[Paused], the state to resume from, as Call returns it.
//
// A model that does not implement [chat.StreamingModel] is called with Chat
// and its text yielded in one piece.
func (p *Prompt) Stream(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cl, err := p.start(ctx)
		if err != nil {
			yield(Event{}, err)
			return
		}
		stopped := false
		emit := func(ev Event) bool {
			if stopped || !yield(ev, nil) {
				stopped = true
				return false
			}
			return true
		}
		cl.onExecuted = func(e ToolExecution) bool { return emit(Event{Kind: EventToolResult, Execution: e}) }
		text := func(text string) bool { return emit(Event{Kind: EventText, Text: text}) }
		resp, err := cl.run(ctx, func(ctx context.Context, req *chat.Request) (*chat.Response, error) {
			mr, err := modelcall.Stream(ctx, p.c.model, req, text)
			if err != nil || mr == nil {
				return mr, err
			}
			mr = toolcalls.WithUniqueIDs(mr) // the events carry the ids the results will
			for _, tc := range mr.Message.ToolCalls {
				if !emit(Event{Kind: EventToolCall, ToolCall: tc}) {
					return nil, chat.ErrStreamStopped
				}
			}
			return mr, nil
		})
		if stopped {
			return
		}
		if err != nil {
			yield(Event{Response: resp}, err)
			return
		}
		yield(Event{Kind: EventDone, Response: resp}, nil)
	}
}
