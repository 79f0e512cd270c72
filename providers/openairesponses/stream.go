package openairesponses

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// Stream sends req with "stream": true, yields each piece of text and each
// tool-call fragment as its server-sent event arrives, and returns the reply
// assembled as Chat would return it. If yield returns false, Stream closes
// the connection and returns [chat.ErrStreamStopped]. A nil yield is
// allowed.
//
// A [chat.ToolCallDelta]'s Index is the call's position in the returned
// reply. Its ID (the call_id) and Name come with the call's first
// fragment; Arguments is the fragment's text. The returned reply is
// authoritative: it has the synthesised ids and the "{}" for empty
// arguments that the deltas do not.
//
// Requests are retried only until a 2xx response arrives: once the stream
// has begun, a failure ends the call and no request is sent again.
func (m *Model) Stream(ctx context.Context, req *chat.Request, yield func(chat.Delta) bool) (*chat.Response, error) {
	body, model, err := m.encode(req, true)
	if err != nil {
		return nil, err
	}
	return m.ep.Stream(ctx, model, "text/event-stream", body, yield, read, decode)
}

// read reads the events of a stream into the reply.
func read(ctx context.Context, rep *httpline.Reply, yield func(chat.Delta) bool) (*chat.Response, error) {
	s := streamReader{rep: rep, yield: yield, a: assembler{content: textBuf{limit: rep.Limit()}}}
	return s.read(ctx, rep.Lines())
}

// A streamReader reads one stream of events into a reply.
type streamReader struct {
	rep   *httpline.Reply
	yield func(chat.Delta) bool
	a     assembler
	// slots maps an output item (by id, else by "#" and its output_index)
	// to its call in a.calls.
	slots map[string]int
	// pending maps a reasoning or message item that was added, by the
	// same key, to its place in a.output, filled when it is done.
	pending map[string]int
	// texts are the message items whose text came in deltas.
	texts map[string]bool
}

func (s *streamReader) read(ctx context.Context, lines *httpline.LineReader) (*chat.Response, error) {
	eventName := "" // the event being read, from its "event:" line
	for {
		line, readErr := lines.Next()
		if readErr != nil && readErr != io.EOF {
			return nil, s.rep.ReadError(ctx, "stream", readErr)
		}
		payload, f := httpline.SSELine(line)
		switch f {
		case httpline.SSEBlank:
			eventName = ""
		case httpline.SSEEvent:
			eventName = string(payload)
		case httpline.SSEData:
			if string(payload) == "[DONE]" {
				return nil, s.rep.BadResponse("stream ended before the response was complete (no response.completed)")
			}
			reply, done, err := s.event(payload, eventName, readErr == io.EOF)
			if err != nil || done {
				return reply, err
			}
			if err := s.room(0); err != nil {
				return nil, err
			}
		}
		if readErr == io.EOF {
			return nil, s.rep.BadResponse("stream ended before the response was complete (no response.completed)")
		}
	}
}

// event is a stream event's data. Which fields are set depends on Type.
type event struct {
	Type        string          `json:"type"`
	Response    *response       `json:"response"`     // response.created, .completed, .incomplete, .failed
	Item        json.RawMessage `json:"item"`         // response.output_item.added, .done
	OutputIndex *int            `json:"output_index"` // with the item's events
	ItemID      string          `json:"item_id"`
	Delta       deltaText       `json:"delta"`     // the text or arguments of a .delta event
	Arguments   *string         `json:"arguments"` // response.function_call_arguments.done
	// An error event's: code and message, or an error object.
	Code    any             `json:"code"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// handled are the events this package reads; any other is skipped.
var handled = map[string]bool{
	"error":                                  true,
	"response.created":                       true,
	"response.in_progress":                   true,
	"response.completed":                     true,
	"response.incomplete":                    true,
	"response.failed":                        true,
	"response.output_item.added":             true,
	"response.output_item.done":              true,
	"response.output_text.delta":             true,
	"response.refusal.delta":                 true,
	"response.function_call_arguments.delta": true,
	"response.function_call_arguments.done":  true,
}

// event handles one event. It returns the reply and true when the event
// ends the stream, or an error.
func (s *streamReader) event(payload []byte, name string, atEOF bool) (*chat.Response, bool, error) {
	// The type first: other events are not decoded, so that one of a
	// shape this package does not know cannot fail the stream.
	typ, ok := leadingType(payload)
	if !ok {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(payload, &head); err != nil {
			if atEOF && !json.Valid(payload) {
				return nil, false, s.rep.BadResponse("stream ended in the middle of an event")
			}
			return nil, false, s.rep.BadResponse(wire.DecodeProblem("stream event", apiName, err))
		}
		typ = head.Type
	}
	typ = cmp.Or(typ, name)
	if !handled[typ] || typ == "response.in_progress" && s.a.model != "" {
		// in_progress repeats created, read only for the model.
		return nil, false, nil
	}
	var ev event
	if err := json.Unmarshal(payload, &ev); err != nil {
		if atEOF && !json.Valid(payload) {
			return nil, false, s.rep.BadResponse("stream ended in the middle of an event")
		}
		return nil, false, s.rep.BadResponse(wire.DecodeProblem(typ+" event", apiName, err))
	}
	switch typ {
	case "error":
		e := errorOf(ev.Error)
		if e == nil {
			e = &apiError{Code: ev.Code, Message: ev.Message}
		}
		return nil, false, inBandError(s.rep, e.code(), e.Message)
	case "response.created", "response.in_progress":
		if ev.Response != nil {
			if err := s.rep.Metadata("model", ev.Response.Model); err != nil {
				return nil, false, err
			}
		}
		if ev.Response != nil && ev.Response.Model != "" {
			s.a.model = ev.Response.Model
		}
	case "response.completed", "response.incomplete", "response.failed":
		if ev.Response == nil {
			return nil, false, s.rep.BadResponse(typ + " event without a response")
		}
		if !s.finish(ev.Response) {
			return nil, false, chat.ErrStreamStopped
		}
		if err := s.room(0); err != nil {
			return nil, false, err
		}
		reply, err := s.a.response(ev.Response, s.rep)
		return reply, true, err
	case "response.output_item.added", "response.output_item.done":
		if !s.item(&ev, typ == "response.output_item.done") {
			return nil, false, chat.ErrStreamStopped
		}
	case "response.output_text.delta", "response.refusal.delta":
		if text := string(ev.Delta); text != "" {
			if err := s.room(len(text)); err != nil {
				return nil, false, err
			}
			s.markText(ev.ItemID)
			s.a.content.add(text)
			if !s.yield(chat.Delta{Content: text}) {
				return nil, false, chat.ErrStreamStopped
			}
		}
	case "response.function_call_arguments.delta":
		text := string(ev.Delta)
		i := s.call(&ev, "")
		c := &s.a.calls[i]
		if text != "" && !c.done {
			c.args = append(c.args, text...)
			s.a.other += int64(len(text))
			if !s.yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, Arguments: text}}) {
				return nil, false, chat.ErrStreamStopped
			}
		}
	case "response.function_call_arguments.done":
		if ev.Arguments != nil && !s.complete(s.call(&ev, ""), "", "", []byte(*ev.Arguments)) {
			return nil, false, chat.ErrStreamStopped
		}
	}
	return nil, false, nil
}

// item handles an output item's added or done event. It returns false as
// soon as yield does.
func (s *streamReader) item(ev *event, done bool) bool {
	if len(ev.Item) == 0 {
		return true
	}
	var it outputItem
	if json.Unmarshal(ev.Item, &it) != nil {
		// An item this package cannot read is not one it asked for.
		return true
	}
	switch it.Type {
	case "function_call":
		ev.ItemID = cmp.Or(ev.ItemID, it.ID)
		i := s.call(ev, it.ID)
		c := &s.a.calls[i]
		if c.itemID == "" && it.ID != "" {
			c.itemID = it.ID
			s.a.other += int64(len(it.ID))
		}
		if done {
			return s.complete(i, it.CallID, it.Name, it.Arguments)
		}
		d := chat.ToolCallDelta{Index: i}
		if c.id == "" && it.CallID != "" {
			c.id, d.ID = it.CallID, it.CallID
			s.a.other += int64(len(it.CallID))
		}
		if c.name == "" && it.Name != "" {
			c.name, d.Name = it.Name, it.Name
			s.a.other += int64(len(it.Name))
		}
		if len(c.args) == 0 && len(it.Arguments) > 0 {
			c.args = append(c.args, it.Arguments...)
			s.a.other += int64(len(it.Arguments))
			d.Arguments = string(it.Arguments)
		}
		return (d.ID == "" && d.Name == "" && d.Arguments == "") || s.yield(chat.Delta{ToolCall: &d})
	case "message", "reasoning":
		key := cmp.Or(it.ID, ev.ItemID)
		if key == "" && ev.OutputIndex != nil {
			key = "#" + strconv.Itoa(*ev.OutputIndex)
		}
		slot, added := s.pending[key]
		if !done {
			// Its place in the output, kept until it is done.
			if !added && key != "" {
				if s.pending == nil {
					s.pending = make(map[string]int)
				}
				s.pending[key] = len(s.a.output)
				s.a.output = append(s.a.output, keptEntry{call: -1})
				s.a.other += httpline.ItemCost + int64(len(key))
			}
			return true
		}
		if !added || s.a.output[slot].item != nil {
			slot = -1
		}
		if it.Type == "reasoning" {
			s.a.addReasoning(&it)
			s.a.keep(slot, ev.Item, &it)
			return true
		}
		s.a.keep(slot, ev.Item, &it)
		if s.texts[cmp.Or(it.ID, ev.ItemID)] {
			return true
		}
		text := partsText(it.Content)
		if text == "" {
			return true
		}
		s.a.content.add(text)
		return s.yield(chat.Delta{Content: text})
	}
	return true
}

// call returns the index of the call an event is about, found by its
// item id or output index; an event about a call not seen yet starts it.
func (s *streamReader) call(ev *event, itemID string) int {
	key := cmp.Or(itemID, ev.ItemID)
	if key == "" && ev.OutputIndex != nil {
		key = "#" + strconv.Itoa(*ev.OutputIndex)
	}
	if i, ok := s.slots[key]; ok && key != "" {
		return i
	}
	if s.slots == nil {
		s.slots = make(map[string]int)
	}
	i := s.a.addCall(pendingCall{key: key})
	if key != "" {
		s.slots[key] = i
	}
	if ev.OutputIndex != nil && key != "#"+strconv.Itoa(*ev.OutputIndex) {
		// Later events may name the item by index alone.
		s.slots["#"+strconv.Itoa(*ev.OutputIndex)] = i
		s.a.other += 8
	}
	return i
}

// complete sets what a done event says of call i: the whole arguments,
// and the id and name when the call has none yet. What the deltas did not
// bring is yielded: the rest of the arguments when the deltas were their
// beginning, else nothing, and the reply has the whole arguments.
func (s *streamReader) complete(i int, id, name string, args []byte) bool {
	c := &s.a.calls[i]
	d := chat.ToolCallDelta{Index: i}
	if c.id == "" && id != "" {
		c.id, d.ID = id, id
		s.a.other += int64(len(id))
	}
	if c.name == "" && name != "" {
		c.name, d.Name = name, name
		s.a.other += int64(len(name))
	}
	if !c.done && args != nil {
		if bytes.HasPrefix(args, c.args) {
			d.Arguments = string(args[len(c.args):])
		}
		s.a.other += int64(len(args) - len(c.args))
		// args itself, not copied into c.args: the buffer the deltas grew
		// may be far longer than args, which is all that counts.
		c.args = args
		c.done = true
	}
	return (d.ID == "" && d.Name == "" && d.Arguments == "") || s.yield(chat.Delta{ToolCall: &d})
}

// room returns an error when n more bytes would take the reply beyond
// the response limit (or when it is beyond already, for n = 0).
func (s *streamReader) room(n int) error {
	if limit := s.rep.Limit(); limit >= 0 && s.a.size()+int64(n) > limit {
		return s.rep.TooLarge("streamed reply")
	}
	return nil
}

func (s *streamReader) markText(itemID string) {
	if s.texts[itemID] {
		return
	}
	if s.texts == nil {
		s.texts = make(map[string]bool)
	}
	s.texts[itemID] = true
	s.a.other += httpline.ItemCost + int64(len(itemID))
}

// finish takes the output of the final response when the events brought
// no item, as from a server that sends only the final event, and yields
// it; when they brought no reasoning item, it takes the order of the
// final output, with its reasoning items. It returns false as soon as
// yield does.
func (s *streamReader) finish(r *response) bool {
	a := &s.a
	if len(r.Output) == 0 {
		return true
	}
	if len(a.calls) > 0 || len(a.content.b) > 0 || a.reasoning.Len() > 0 || len(a.output) > 0 {
		if a.reasoning.Len() == 0 && !a.reasoningKept {
			a.output = a.output[:0]
			calls := 0
			for _, raw := range r.Output {
				var it outputItem
				switch {
				case json.Unmarshal(raw, &it) != nil:
				case it.Type == "function_call":
					if calls < len(a.calls) {
						a.output = append(a.output, keptEntry{call: calls})
						a.other += httpline.ItemCost
					}
					calls++
				case it.Type == "reasoning":
					a.addReasoning(&it)
					a.keep(-1, raw, &it)
				case it.Type == "message":
					a.keep(-1, raw, &it)
				}
			}
			for ; calls < len(a.calls); calls++ {
				a.output = append(a.output, keptEntry{call: calls})
			}
		}
		return true
	}
	for _, raw := range r.Output {
		n := len(a.calls)
		before := len(a.content.b)
		if a.addItem(raw) != nil {
			continue
		}
		if len(a.content.b) > before && !s.yield(chat.Delta{Content: string(a.content.b[before:])}) {
			return false
		}
		for i := n; i < len(a.calls); i++ {
			c := &a.calls[i]
			if !s.yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: c.id, Name: c.name, Arguments: string(c.args)}}) {
				return false
			}
		}
	}
	return true
}

// leadingType returns the type of an event whose data begins with it, as
// OpenAI writes every event ({"type":"response.created",...}), without
// decoding the rest: most events are skipped, and some are large (created
// and in_progress echo the whole request). ok is false for any other
// shape, which is decoded.
func leadingType(payload []byte) (typ string, ok bool) {
	rest, found := bytes.CutPrefix(payload, []byte(`{"type":"`))
	if !found {
		return "", false
	}
	end := bytes.IndexAny(rest, `"\`)
	if end < 0 || rest[end] != '"' {
		return "", false
	}
	return string(rest[:end]), true
}

// deltaText is a delta's text: a string (null is none).
type deltaText string

func (d *deltaText) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		return json.Unmarshal(b, (*string)(d))
	case 'n':
		*d = ""
		return nil
	}
	return fmt.Errorf("\"delta\" is a JSON %s, want a string", jsonnode.Kind(b[0]))
}
