package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// Stream sends req with "stream": true, yields each piece of text and each
// tool-call fragment as its event arrives, and returns the reply assembled
// as Chat would return it. If yield returns false, Stream closes the
// connection and returns [chat.ErrStreamStopped]. A nil yield is allowed.
//
// A [chat.ToolCallDelta]'s Index is the call's position in the returned
// reply; its ID and Name come with the call's first delta, then its
// arguments in fragments. Thinking is not yielded: it is in the returned
// reply's Reasoning and ProviderData.
//
// Requests are retried only until a 2xx response arrives: once the stream
// has begun, a failure ends the call and no request is sent again.
func (m *Model) Stream(ctx context.Context, req *chat.Request, yield func(chat.Delta) bool) (*chat.Response, error) {
	body, model, err := m.encode(req, true)
	if err != nil {
		return nil, err
	}
	return m.endpoint.Stream(ctx, model, "text/event-stream", body, yield, read, m.reply)
}

// read reads the events of a stream into the reply.
func read(ctx context.Context, r *httpline.Reply, yield func(chat.Delta) bool) (*chat.Response, error) {
	s := streamState{r: r, yield: yield}
	return s.read(ctx, r.Lines())
}

// streamState is one stream being read.
type streamState struct {
	r     *httpline.Reply
	yield func(chat.Delta) bool
	a     assembler
	size  int64 // what the reply holds so far, as grow counts it
	stop  bool  // a stop_reason arrived
}

func (s *streamState) read(ctx context.Context, lines *httpline.LineReader) (*chat.Response, error) {
	errorEvent := false // the event being read was announced as "event: error"
	for {
		line, readErr := lines.Next()
		if readErr != nil && readErr != io.EOF {
			return nil, s.r.ReadError(ctx, "stream", readErr)
		}
		payload, f := httpline.SSELine(line)
		switch f {
		case httpline.SSEBlank:
			errorEvent = false
		case httpline.SSEEvent:
			errorEvent = string(payload) == "error"
		case httpline.SSEData:
			if errorEvent {
				return nil, inBandError(s.r, payload)
			}
			var ev streamEvent
			if err := json.Unmarshal(payload, &ev); err != nil {
				if readErr == io.EOF && !json.Valid(payload) {
					return nil, s.r.ReadError(ctx, "stream", io.ErrUnexpectedEOF)
				}
				return nil, s.r.BadResponse(wire.DecodeProblem("stream event", apiName, err))
			}
			done, err := s.event(&ev, payload)
			if err != nil {
				return nil, err
			}
			if done {
				// Not waiting for EOF: a proxy may hold the connection open.
				return s.response()
			}
		}
		if readErr == io.EOF {
			// A stream that ends after its stop reason but without
			// message_stop is complete; any other was cut off.
			if s.stop {
				return s.response()
			}
			return nil, s.r.ReadError(ctx, "stream", io.ErrUnexpectedEOF)
		}
	}
}

func (s *streamState) response() (*chat.Response, error) {
	out, err := s.a.response()
	if err != nil {
		return nil, s.r.BadResponse(err.Error())
	}
	return out, nil
}

// streamEvent is the data of one server-sent event.
type streamEvent struct {
	Type         string           `json:"type"`
	Message      *messageResponse `json:"message"`       // message_start
	Index        *int             `json:"index"`         // content_block_*
	ContentBlock json.RawMessage  `json:"content_block"` // content_block_start
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"` // message_delta
	} `json:"delta"`
	Usage *wireUsage `json:"usage"` // message_delta
}

// event adds one event to the reply and yields what it brings. It
// reports whether the message is complete.
func (s *streamState) event(ev *streamEvent, payload []byte) (bool, error) {
	a := &s.a
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			if err := s.r.Metadata("model", ev.Message.Model); err != nil {
				return false, err
			}
			a.model = ev.Message.Model
			a.usage.update(&ev.Message.Usage)
		}
	case "content_block_start":
		return false, s.start(ev)
	case "content_block_delta":
		return false, s.delta(ev)
	case "content_block_stop":
		return false, s.stopBlock(ev)
	case "message_delta":
		if err := s.r.Metadata("stop_reason", ev.Delta.StopReason); err != nil {
			return false, err
		}
		if ev.Delta.StopReason != "" {
			a.stop, s.stop = ev.Delta.StopReason, true
		}
		if ev.Usage != nil {
			a.usage.update(ev.Usage)
		}
	case "message_stop":
		return true, nil
	case "error":
		return false, inBandError(s.r, payload)
	}
	// ping, and events this package does not know, are ignored.
	return false, nil
}

func (s *streamState) index(ev *streamEvent) (int, error) {
	if ev.Index == nil {
		return 0, s.r.BadResponse(ev.Type + " event without an index")
	}
	return *ev.Index, nil
}

func (s *streamState) start(ev *streamEvent) error {
	i, err := s.index(ev)
	if err != nil {
		return err
	}
	if s.a.index[i] != nil {
		return s.r.BadResponse(fmt.Sprintf("content block %d started twice", i))
	}
	// The block is counted whole, before anything of it is kept: a tool's
	// input, a redacted block's data or an unknown block may come whole
	// here, with no delta after. Its values count too: what is kept of it
	// is decoded, three bytes for each byte that is not UTF-8.
	if err := s.grow(len(ev.ContentBlock) + int(httpline.ValueCost(ev.ContentBlock)) + httpline.ItemCost); err != nil {
		return err
	}
	b := &replyBlock{}
	if err := json.Unmarshal(ev.ContentBlock, &b.contentBlock); err != nil || b.Type == "" {
		return s.r.BadResponse(fmt.Sprintf("content_block_start %d has no block with a type", i))
	}
	s.add(i, b)
	switch b.Type {
	case "text":
		t := b.Text
		b.Text = ""
		return s.text(b, t)
	case "thinking":
		b.thinking, b.signature = []byte(b.Thinking), []byte(b.Signature)
		b.Thinking, b.Signature = "", ""
	case "tool_use":
		d := chat.ToolCallDelta{Index: b.call, ID: b.ID, Name: b.Name}
		if !s.yield(chat.Delta{ToolCall: &d}) {
			return chat.ErrStreamStopped
		}
	case "redacted_thinking":
	default:
		b.raw = bytes.Clone(ev.ContentBlock)
	}
	return nil
}

func (s *streamState) add(i int, b *replyBlock) {
	if s.a.index == nil {
		s.a.index = make(map[int]*replyBlock)
	}
	s.a.index[i] = b
	s.a.append(b)
}

func (s *streamState) delta(ev *streamEvent) error {
	i, err := s.index(ev)
	if err != nil {
		return err
	}
	d := &ev.Delta
	b := s.a.index[i]
	if b == nil && d.Type == "text_delta" {
		// Text without its content_block_start: a text block.
		if err := s.grow(httpline.ItemCost); err != nil {
			return err
		}
		b = &replyBlock{contentBlock: contentBlock{Type: "text"}}
		s.add(i, b)
	}
	if b == nil {
		return s.r.BadResponse(fmt.Sprintf("%s for content block %d, which did not start", d.Type, i))
	}
	want := map[string]string{
		"text_delta":       "text",
		"input_json_delta": "tool_use",
		"thinking_delta":   "thinking",
		"signature_delta":  "thinking",
	}[d.Type]
	if want == "" {
		return nil // citations_delta and deltas this package does not know
	}
	if b.Type != want {
		return s.r.BadResponse(fmt.Sprintf("%s for content block %d, which is %s", d.Type, i, b.Type))
	}
	switch d.Type {
	case "text_delta":
		if err := s.grow(len(d.Text)); err != nil {
			return err
		}
		return s.text(b, d.Text)
	case "input_json_delta":
		if err := s.grow(len(d.PartialJSON)); err != nil {
			return err
		}
		b.hasArgs = true
		b.args = httpline.AppendText(b.args, d.PartialJSON, s.r.Limit())
		if d.PartialJSON != "" && !s.yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: b.call, Arguments: d.PartialJSON}}) {
			return chat.ErrStreamStopped
		}
	case "thinking_delta":
		if err := s.grow(len(d.Thinking)); err != nil {
			return err
		}
		b.thinking = httpline.AppendText(b.thinking, d.Thinking, s.r.Limit())
	case "signature_delta":
		if err := s.grow(len(d.Signature)); err != nil {
			return err
		}
		b.signature = httpline.AppendText(b.signature, d.Signature, s.r.Limit())
	}
	return nil
}

// stopBlock ends a block. A call that got no fragments but started with
// arguments other than the {} placeholder yields them now.
func (s *streamState) stopBlock(ev *streamEvent) error {
	i, err := s.index(ev)
	if err != nil {
		return err
	}
	b := s.a.index[i]
	if b == nil || b.Type != "tool_use" || b.hasArgs {
		return nil
	}
	in := bytes.TrimSpace(b.Input)
	if len(in) == 0 || string(in) == "null" || string(in) == "{}" {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, in) == nil {
		in = buf.Bytes()
	}
	if !s.yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: b.call, Arguments: string(in)}}) {
		return chat.ErrStreamStopped
	}
	return nil
}

// text adds t, counted already, to a text block and yields it.
func (s *streamState) text(b *replyBlock, t string) error {
	if t == "" {
		return nil
	}
	b.text = httpline.AppendText(b.text, t, s.r.Limit())
	if !s.yield(chat.Delta{Content: t}) {
		return chat.ErrStreamStopped
	}
	return nil
}

// grow counts n more bytes of the reply against the response limit,
// before they are kept: the bytes of every delta and block start, and
// httpline.ItemCost a block.
func (s *streamState) grow(n int) error {
	s.size += int64(n)
	if limit := s.r.Limit(); limit >= 0 && s.size > limit {
		return s.r.TooLarge("streamed reply")
	}
	return nil
}
