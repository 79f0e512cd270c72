package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// Stream sends req with "stream": true, yields each piece of text and each
// tool-call fragment as its server-sent event arrives, and returns the reply
// assembled as Chat would return it. If yield returns false, Stream closes
// the connection and returns [chat.ErrStreamStopped]. A nil yield is
// allowed.
//
// A [chat.ToolCallDelta]'s Index is the call's position in the
// returned reply. Its ID and Name are set the first time the server sends
// them; Arguments is the fragment's text (compacted when a server sends an
// object). The returned reply is
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
	return m.ep.Stream(ctx, model, "text/event-stream", body, yield, read, nil)
}

// read reads the events of a stream into the reply.
func read(ctx context.Context, rep *httpline.Reply, yield func(chat.Delta) bool) (*chat.Response, error) {
	lines := rep.Lines()
	a := assembler{limit: rep.Limit()}
	errorEvent := false // the event being read was announced as "event: error"
	for {
		line, readErr := lines.Next()
		if readErr != nil && readErr != io.EOF {
			return nil, rep.ReadError(ctx, "stream", readErr)
		}
		payload, f := sseLine(line)
		switch f {
		case httpline.SSEBlank:
			errorEvent = false
		case httpline.SSEEvent:
			errorEvent = string(payload) == "error"
		case httpline.SSEError:
			return nil, inBandError(rep, payload)
		case httpline.SSEData:
			if errorEvent {
				return nil, inBandError(rep, payload)
			}
			if string(payload) == "[DONE]" {
				// Not waiting for EOF: a proxy may hold the connection open.
				return a.response(), nil
			}
			var chunk chatChunk
			if err := json.Unmarshal(payload, &chunk); err != nil {
				if readErr == io.EOF && !json.Valid(payload) {
					return nil, rep.BadResponse("stream ended in the middle of an event")
				}
				return nil, rep.BadResponse(wire.DecodeProblem("stream event", apiName, err))
			}
			if hasError(chunk.Error) && len(chunk.Choices) == 0 {
				return nil, inBandError(rep, chunk.Error)
			}
			if err := chunkMetadata(rep, &chunk); err != nil {
				return nil, err
			}
			if !a.addChunk(&chunk, yield) {
				if a.tooLarge() {
					return nil, rep.TooLarge("streamed reply")
				}
				return nil, chat.ErrStreamStopped
			}
		}
		if readErr == io.EOF {
			// A few servers end without [DONE]; a reply that has its
			// finish_reason is complete, anything else was cut off.
			if a.finish != "" {
				return a.response(), nil
			}
			return nil, rep.BadResponse("stream ended before the reply was complete (no finish_reason, no [DONE])")
		}
	}
}

// chunkMetadata returns an error when the chunk's model or a finish_reason
// is longer than a reply's metadata may be (httpline.MaxMetadata).
func chunkMetadata(rep *httpline.Reply, chunk *chatChunk) error {
	if err := rep.Metadata("model", chunk.Model); err != nil {
		return err
	}
	for i := range chunk.Choices {
		if err := rep.Metadata("finish_reason", chunk.Choices[i].FinishReason); err != nil {
			return err
		}
	}
	return nil
}

// addChunk adds a streamed chunk to the reply and yields what it brings. It
// returns false as soon as yield does, or when the reply grows past its
// limit (a.tooLarge).
func (a *assembler) addChunk(chunk *chatChunk, yield func(chat.Delta) bool) bool {
	if chunk.Model != "" {
		a.model = chunk.Model
	}
	if chunk.Usage != nil {
		a.usage = chunk.Usage
	}
	for i := range chunk.Choices {
		c := &chunk.Choices[i]
		if c.Index != 0 { // only one choice is asked for
			continue
		}
		r := &c.Delta
		if r.empty() && c.Message != nil {
			// A server that answers a stream with a whole message.
			r = c.Message
		}
		if !a.addText(r.Content, yield) || !a.addText(r.Refusal, yield) {
			return false
		}
		// Reasoning has no delta of its own: it is in the returned reply.
		if !a.take(len(r.ReasoningContent)) {
			return false
		}
		a.reasoning = httpline.AppendText(a.reasoning, string(r.ReasoningContent), a.limit)
		if !a.keepMessageFields(r) {
			return false
		}
		for j := range r.ToolCalls {
			d, ok := a.addFragment(j, &r.ToolCalls[j])
			if a.tooLarge() {
				return false
			}
			if ok && !yield(chat.Delta{ToolCall: &d}) {
				return false
			}
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
	}
	return true
}

// keepMessageFields keeps the first extra_content object and the first
// thought_signature string the message's deltas bring, as Chat keeps them
// from a whole message. It returns false when they grow the reply past its
// limit.
func (a *assembler) keepMessageFields(r *wireResponse) bool {
	if a.extra == nil {
		if e := extraContent(r.ExtraContent); e != nil {
			if !a.take(len(e)) {
				return false
			}
			a.extra = e
		}
	}
	if a.signature == nil && len(r.ThoughtSignature) > 0 && r.ThoughtSignature[0] == '"' {
		if !a.take(len(r.ThoughtSignature)) {
			return false
		}
		a.signature = r.ThoughtSignature
	}
	return true
}

func (a *assembler) addText(t text, yield func(chat.Delta) bool) bool {
	if t == "" {
		return true
	}
	if !a.take(len(t)) {
		return false
	}
	a.content = httpline.AppendText(a.content, string(t), a.limit)
	return yield(chat.Delta{Content: string(t)})
}

// take counts n more bytes of the reply, and reports whether they are
// within its limit.
func (a *assembler) take(n int) bool {
	a.size += int64(n)
	return !a.tooLarge()
}

// tooLarge reports whether the reply has grown past its limit.
func (a *assembler) tooLarge() bool { return a.limit >= 0 && a.size > a.limit }

// sseLine splits a line of the stream into its field and value. A bare
// JSON line is taken as data, for servers that answer a stream request
// with a plain JSON body.
func sseLine(line []byte) ([]byte, httpline.SSEField) {
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '{' {
		return t, httpline.SSEData
	}
	return httpline.SSELine(line)
}
