package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// messageResponse is a reply of POST /v1/messages, the message of a
// stream's message_start event, or an error body.
type messageResponse struct {
	Type       string            `json:"type"` // "message", or "error"
	Model      string            `json:"model"`
	Content    []json.RawMessage `json:"content"`
	StopReason string            `json:"stop_reason"`
	Usage      wireUsage         `json:"usage"`
	Error      json.RawMessage   `json:"error"`
}

// wireUsage counts tokens. A nil count was not sent: a stream's
// message_delta carries the counts that changed, which replace those of
// message_start.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	OutputTokensDetails      struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// update sets the counts v carries.
func (u *wireUsage) update(v *wireUsage) {
	for _, p := range []struct{ dst, src **int }{
		{&u.InputTokens, &v.InputTokens},
		{&u.OutputTokens, &v.OutputTokens},
		{&u.CacheReadInputTokens, &v.CacheReadInputTokens},
		{&u.CacheCreationInputTokens, &v.CacheCreationInputTokens},
		{&u.OutputTokensDetails.ThinkingTokens, &v.OutputTokensDetails.ThinkingTokens},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
}

// usage maps the counts: input_tokens leaves out the tokens read from and
// written to the cache, which PromptTokens includes; output_tokens
// includes the thinking tokens, as CompletionTokens includes
// ReasoningTokens.
func (u *wireUsage) usage() chat.Usage {
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	read, write := n(u.CacheReadInputTokens), n(u.CacheCreationInputTokens)
	out := chat.Usage{
		PromptTokens:     n(u.InputTokens) + read + write,
		CompletionTokens: n(u.OutputTokens),
		CacheReadTokens:  read,
		CacheWriteTokens: write,
		ReasoningTokens:  n(u.OutputTokensDetails.ThinkingTokens),
	}
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	return out
}

// contentBlock is a content block of a reply, or the block of a stream's
// content_block_start event.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"` // of redacted_thinking
}

// A replyBlock is a content block being assembled.
type replyBlock struct {
	contentBlock
	// raw is the block as the server sent it in a reply; nil for a
	// streamed block, which is written from its parts.
	raw json.RawMessage
	// text, thinking, signature and args collect a streamed block's
	// deltas, in buffers that grow as httpline.AppendText says: a piece
	// costs its bytes only, and a string added to would be copied whole
	// each time.
	text, thinking, signature, args []byte
	hasArgs                         bool // an input_json_delta arrived: args replace Input
	call                            int  // a tool_use block's position among the calls
}

// input returns a tool_use block's arguments: the streamed fragments if
// any arrived, else its input; "{}" when they are empty or null. A
// streamed call starts with an input that is a placeholder (Ollama sends
// {} there and then the whole arguments as one fragment; llama-server
// sends no input), so the fragments replace it rather than extend it.
func (b *replyBlock) input() json.RawMessage {
	in := b.Input
	if b.hasArgs {
		in = b.args
	}
	if t := bytes.TrimSpace(in); len(t) == 0 || string(t) == "null" {
		return emptyInput
	}
	return in
}

// An assembler collects one reply, from a response body or from stream
// events.
type assembler struct {
	model  string
	blocks []*replyBlock
	// index maps a streamed block's index to blocks.
	index map[int]*replyBlock
	calls int
	stop  string
	usage wireUsage
}

// addBlock adds a block of a reply, raw as the server sent it.
func (a *assembler) addBlock(raw json.RawMessage) error {
	b := &replyBlock{raw: raw}
	if err := json.Unmarshal(raw, &b.contentBlock); err != nil {
		return err
	}
	if b.Type == "" {
		return fmt.Errorf("content block %d has no type", len(a.blocks))
	}
	a.append(b)
	return nil
}

func (a *assembler) append(b *replyBlock) {
	if b.Type == "tool_use" {
		b.call = a.calls
		a.calls++
	}
	a.blocks = append(a.blocks, b)
}

// response builds the reply. Its error says what is wrong with the reply.
func (a *assembler) response() (*chat.Response, error) {
	msg := chat.Message{Role: chat.RoleAssistant}
	var texts, thoughts []string
	keep := false // a block other than text and tool_use: keep them all
	if a.calls > 0 {
		msg.ToolCalls = make([]chat.ToolCall, 0, a.calls)
	}
	for _, b := range a.blocks {
		switch b.Type {
		case "text":
			if b.raw == nil {
				b.Text = string(b.text)
			}
			texts = append(texts, b.Text)
		case "tool_use":
			msg.ToolCalls = append(msg.ToolCalls, chat.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.input()})
		case "thinking":
			if b.raw == nil {
				b.Thinking, b.Signature = string(b.thinking), string(b.signature)
			}
			if b.Thinking != "" {
				thoughts = append(thoughts, b.Thinking)
			}
			keep = true
		default:
			keep = true
		}
	}
	// One text, as most replies have, is not copied again.
	msg.Content, msg.Reasoning = strings.Join(texts, ""), strings.Join(thoughts, "\n\n")
	// Each call gets an id of its own, so that tool results can be matched
	// to their calls.
	ids := wire.CallIDs{Prefix: "toolu_"}
	for i := range msg.ToolCalls {
		msg.ToolCalls[i].ID = ids.Next(msg.ToolCalls[i].ID)
	}
	if keep {
		pd, err := a.providerData(msg.ToolCalls)
		if err != nil {
			return nil, err
		}
		msg.ProviderData = pd
	}

	finish, err := finishReason(a.stop, len(msg.ToolCalls) > 0)
	if err != nil {
		return nil, err
	}
	return &chat.Response{Message: msg, FinishReason: finish, Usage: a.usage.usage(), Model: a.model}, nil
}

// providerData keeps every block of the reply, in order, so that the
// thinking blocks go back unchanged and in place. A block received whole
// is kept as it came; a streamed one is written from its parts, and so is
// a call whose id was changed to make it unique.
func (a *assembler) providerData(calls []chat.ToolCall) (json.RawMessage, error) {
	raws := make([]json.RawMessage, len(a.blocks))
	for i, b := range a.blocks {
		raw := b.raw
		var v any
		switch b.Type {
		case "text":
			v = textBlock{Type: "text", Text: b.Text}
		case "tool_use":
			c := &calls[b.call]
			if c.ID != b.ID {
				raw = nil
			}
			v = toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: callInput(c.Arguments)}
		case "thinking":
			v = struct {
				Type      string `json:"type"`
				Thinking  string `json:"thinking"`
				Signature string `json:"signature"`
			}{b.Type, b.Thinking, b.Signature}
		case "redacted_thinking":
			v = struct {
				Type string `json:"type"`
				Data string `json:"data"`
			}{b.Type, b.Data}
		default:
			// A streamed block of another type is kept as it started.
			v = json.RawMessage(b.raw)
		}
		if raw == nil {
			var err error
			if raw, err = wire.Value(v); err != nil {
				return nil, fmt.Errorf("content block %d (%s): %v", i, b.Type, err)
			}
		}
		raws[i] = raw
	}
	return wire.Value(map[string][]json.RawMessage{providerDataKey: raws})
}

// finishReason maps a stop_reason. A reply with calls finishes with
// FinishToolCalls unless it was cut short or refused; pause_turn, which
// only server tools cause, and a reason this package does not know on a
// reply with calls are errors, so that no call of such a reply runs. An
// unknown reason on a reply without calls is passed on as it is.
func finishReason(stop string, calls bool) (chat.FinishReason, error) {
	switch stop {
	case "max_tokens", "model_context_window_exceeded":
		return chat.FinishLength, nil
	case "refusal":
		return chat.FinishFiltered, nil
	case "pause_turn":
		return "", fmt.Errorf("stop_reason %q: the server paused a turn of its own tools, which this provider never offers", stop)
	case "tool_use", "end_turn", "stop_sequence":
		if calls {
			return chat.FinishToolCalls, nil
		}
		return chat.FinishStop, nil
	case "":
		if calls {
			return "", fmt.Errorf("the reply has tool calls and no stop_reason")
		}
		return chat.FinishStop, nil
	}
	if calls {
		return "", fmt.Errorf("stop_reason %q is unknown and the reply has tool calls: they are not run", stop)
	}
	return chat.FinishReason(stop), nil
}
