package gemini

import (
	"context"
	"encoding/json"
	"io"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// Stream sends req to streamGenerateContent?alt=sse, yields each piece of
// text and each function call as its chunk arrives, and returns the reply
// assembled as Chat would return it. If yield returns false, Stream closes
// the connection and returns [chat.ErrStreamStopped]. A nil yield is
// allowed.
//
// The API sends each call whole: its [chat.ToolCallDelta] has the call's
// Index in the returned reply, its ID, Name and all its Arguments. Thought
// summaries are not yielded: they are in the returned reply's Reasoning.
//
// Requests are retried only until a 2xx response arrives: once the stream
// has begun, a failure ends the call and no request is sent again.
func (m *Model) Stream(ctx context.Context, req *chat.Request, yield func(chat.Delta) bool) (*chat.Response, error) {
	body, model, err := m.encode(req)
	if err != nil {
		return nil, err
	}
	return m.at(model, "streamGenerateContent?alt=sse").Stream(ctx, model, "text/event-stream", body, yield, read, m.reply)
}

// read reads the chunks of a stream into the reply. Each data line is a
// whole GenerateContentResponse; the stream has no event names and no
// end marker: it is complete at its end, once a chunk gave a finishReason.
func read(ctx context.Context, r *httpline.Reply, yield func(chat.Delta) bool) (*chat.Response, error) {
	var size int64
	a := assembler{yield: yield, limit: r.Limit(), grow: func(n int) error {
		size += int64(n)
		if limit := r.Limit(); limit >= 0 && size > limit {
			return r.TooLarge("streamed reply")
		}
		return nil
	}}
	lines := r.Lines()
	for {
		line, readErr := lines.Next()
		if readErr != nil && readErr != io.EOF {
			return nil, r.ReadError(ctx, "stream", readErr)
		}
		if payload, f := httpline.SSELine(line); f == httpline.SSEData {
			var chunk generateResponse
			if err := json.Unmarshal(payload, &chunk); err != nil {
				if readErr == io.EOF && !json.Valid(payload) {
					return nil, r.ReadError(ctx, "stream", io.ErrUnexpectedEOF)
				}
				if e, ok := errorBody(payload); ok {
					return nil, inBandError(r, e)
				}
				return nil, r.BadResponse(wire.DecodeProblem("stream chunk", apiName, err))
			}
			if chunk.hasError() {
				return nil, inBandError(r, payload)
			}
			if err := metadata(r, &chunk); err != nil {
				return nil, err
			}
			if err := a.add(&chunk, true); err != nil {
				if pe, ok := err.(*chat.ProviderError); ok {
					return nil, pe
				}
				if err == chat.ErrStreamStopped {
					return nil, err
				}
				return nil, r.BadResponse(err.Error())
			}
		}
		if readErr == io.EOF {
			// A stream that ends before a finishReason, or a prompt's
			// block, was cut off.
			if a.finish == "" && !(a.feedback != nil && !a.candidate) {
				return nil, r.ReadError(ctx, "stream", io.ErrUnexpectedEOF)
			}
			return a.response(r)
		}
	}
}
