package toolcall

import (
	"context"
	"errors"
	"slices"

	"github.com/toolcall-go/toolcall/chat"
)

// AsModel returns a [chat.Model] whose Chat runs the client's whole
// tool-calling loop with the client's tools and toolsets, and the tool
// context that the ctx given to Chat carries. The request's messages, tool
// choice, options and model are used; its Tools are ignored, since
// definitions alone cannot be executed. The reply is the
// final model message, with usage summed over all rounds. On an error there
// is no reply: use the Client itself when you need the history so far.
func (c *Client) AsModel() chat.Model { return toolCallingModel{c} }

type toolCallingModel struct{ c *Client }

func (m toolCallingModel) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	if req != nil && slices.ContainsFunc(req.Tools, func(d chat.ToolDefinition) bool { return d.Name == answerTool }) {
		// The caller's tools are not offered here, so the answer could
		// never be given, and a required tool choice would run this
		// client's tools round after round.
		return nil, errors.New("toolcall: a Client used as a model does not offer the caller's tools, so it cannot give a typed answer through " + answerTool)
	}
	if req != nil && req.Output != nil {
		return nil, errors.New("toolcall: a Client used as a model does not send Request.Output; ask for a typed answer with Prompt.Answer")
	}
	p := m.c.Prompt().Messages(req.Messages...).ToolChoice(req.ToolChoice).Options(req.Options).Model(req.Model)
	resp, err := p.Call(ctx)
	if err != nil {
		return nil, err
	}
	out := &chat.Response{Message: resp.Message, Usage: resp.Usage}
	if n := len(resp.Intermediate); n > 0 {
		out.FinishReason = resp.Intermediate[n-1].FinishReason
		out.Model = resp.Intermediate[n-1].Model
	}
	if resp.ReturnedDirect {
		out.Message = chat.AssistantMessage(resp.Content())
		out.FinishReason = chat.FinishStop
	}
	return out, nil
}
