package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// response is a Responses API response object: a reply, or the response
// in a stream's response.* events.
type response struct {
	Model             string             `json:"model"`
	Status            string             `json:"status"`
	Output            []json.RawMessage  `json:"output"`
	Usage             *usage             `json:"usage"`
	IncompleteDetails *incompleteDetails `json:"incomplete_details"`
	// Error is an error object (apiError), or from some servers a string.
	Error json.RawMessage `json:"error"`
}

type incompleteDetails struct {
	Reason string `json:"reason"`
}

// apiError is the error object of a failed response, of an error body
// and of a stream's error event.
type apiError struct {
	Type    string `json:"type"`
	Code    any    `json:"code"` // a string, or a number from some servers
	Message string `json:"message"`
}

// errorOf reads an "error" field: an error object, or a string that is
// its message; nil when there is none.
func errorOf(raw json.RawMessage) *apiError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var e apiError
	if raw[0] == '{' && json.Unmarshal(raw, &e) == nil {
		return &e
	}
	return &apiError{Message: serverMessage([]byte(`{"error":` + string(raw) + `}`))}
}

type usage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// chatUsage converts the usage: input_tokens counts the cached tokens
// already, so it is PromptTokens as it is.
func (u *usage) chatUsage() chat.Usage {
	if u == nil {
		return chat.Usage{}
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	return chat.Usage{
		PromptTokens:     u.InputTokens,
		CompletionTokens: u.OutputTokens,
		TotalTokens:      total,
		CacheReadTokens:  u.InputTokensDetails.CachedTokens,
		ReasoningTokens:  u.OutputTokensDetails.ReasoningTokens,
	}
}

// outputItem is an output item: a message, a function call or a
// reasoning item; other types are not asked for and are skipped.
type outputItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// A message's content parts: output_text (Text) or refusal (Refusal).
	Content []contentPart `json:"content"`
	// A function call's.
	CallID    string            `json:"call_id"`
	Name      string            `json:"name"`
	Arguments wire.RawArguments `json:"arguments"`
	// A reasoning item's summary and, from some servers, its text.
	Summary          []contentPart `json:"summary"`
	EncryptedContent *string       `json:"encrypted_content"`
}

// contentPart is a part of a message's content, or of a reasoning item's
// summary or content.
type contentPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

func partsText(parts []contentPart) string {
	var s strings.Builder
	for _, p := range parts {
		s.WriteString(p.Text)
		s.WriteString(p.Refusal)
	}
	return s.String()
}

// pieces is text kept as the pieces it came in and joined once at the
// end: a builder grown delta by delta allocates several times the text.
type pieces struct {
	parts []string
	n     int // bytes
}

func (p *pieces) add(s string) {
	if s != "" {
		p.parts = append(p.parts, s)
		p.n += len(s)
	}
}

func (p *pieces) String() string {
	if len(p.parts) == 1 {
		return p.parts[0]
	}
	return strings.Join(p.parts, "")
}

// An assembler collects one reply, from a response's output items or from
// stream events.
type assembler struct {
	model     string
	content   pieces
	reasoning strings.Builder
	calls     []pendingCall
	// kept are the reasoning items to send back, each with the number of
	// calls before it; see reasoningItem.
	kept  []keptReasoning
	usage chat.Usage
	// other counts the bytes of the calls' arguments and of the kept
	// reasoning items, for the response limit.
	other int64
}

// size is the number of bytes assembled: text, reasoning, reasoning
// items and arguments.
func (a *assembler) size() int64 {
	return int64(a.content.n+a.reasoning.Len()) + a.other
}

type pendingCall struct {
	itemID string // the output item's id, which stream events name
	id     string // call_id
	name   string
	args   []byte
	done   bool // the whole arguments arrived (function_call_arguments.done or output_item.done)
}

type keptReasoning struct {
	calls int // the calls before it in the reply
	item  json.RawMessage
}

// addItem adds a whole output item.
func (a *assembler) addItem(raw json.RawMessage) error {
	var it outputItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return err
	}
	switch it.Type {
	case "message":
		a.content.add(partsText(it.Content))
	case "function_call":
		a.calls = append(a.calls, pendingCall{itemID: it.ID, id: it.CallID, name: it.Name, args: it.Arguments, done: true})
		a.other += int64(len(it.Arguments))
	case "reasoning":
		a.addReasoning(raw, &it, len(a.calls))
	}
	return nil
}

// addReasoning keeps a reasoning item's text and, when it has encrypted
// content, the item itself to be sent back. Without encrypted content it
// names an item stored on the server, which this package never asks for:
// sent back, it would fail the next request.
//
// calls is the number of the reply's calls before the item.
func (a *assembler) addReasoning(raw json.RawMessage, it *outputItem, calls int) {
	text := partsText(it.Summary)
	if text == "" {
		text = partsText(it.Content)
	}
	if text != "" {
		if a.reasoning.Len() > 0 {
			a.reasoning.WriteString("\n\n")
		}
		a.reasoning.WriteString(text)
	}
	if it.EncryptedContent == nil || *it.EncryptedContent == "" {
		return
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return
	}
	a.kept = append(a.kept, keptReasoning{calls: calls, item: buf.Bytes()})
	a.other += int64(buf.Len())
}

// response builds the reply from the assembled items and the final
// response object: its status says whether the reply is whole.
func (a *assembler) response(r *response, rep *httpline.Reply) (*chat.Response, error) {
	if r.Model != "" {
		a.model = r.Model
	}
	if r.Usage != nil {
		a.usage = r.Usage.chatUsage()
	}
	out := &chat.Response{
		Message: chat.Message{Role: chat.RoleAssistant, Content: a.content.String(), Reasoning: a.reasoning.String()},
		Model:   a.model,
		Usage:   a.usage,
	}
	switch r.Status {
	case "completed", "":
		out.FinishReason = chat.FinishStop
		if len(a.calls) > 0 {
			out.FinishReason = chat.FinishToolCalls
		}
	case "incomplete":
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		switch reason {
		case "max_output_tokens":
			out.FinishReason = chat.FinishLength
		case "content_filter":
			out.FinishReason = chat.FinishFiltered
		default:
			// A reply cut for a reason this package does not know may
			// hold half a call: it is not an answer.
			return nil, rep.BadResponse(fmt.Sprintf("response incomplete, reason %q", reason))
		}
	case "failed":
		return nil, failedError(rep, errorOf(r.Error))
	default:
		return nil, rep.BadResponse(fmt.Sprintf("response status %q, not a finished response", r.Status))
	}
	if len(a.calls) > 0 {
		out.Message.ToolCalls = make([]chat.ToolCall, len(a.calls))
		ids := wire.CallIDs{Prefix: "call_"}
		for i, c := range a.calls {
			out.Message.ToolCalls[i] = chat.ToolCall{ID: ids.Next(c.id), Name: c.name, Arguments: wire.Arguments(c.args)}
		}
	}
	if len(a.kept) > 0 {
		items := make([]reasoningItem, len(a.kept))
		for i, k := range a.kept {
			items[i].Item = k.item
			if k.calls < len(a.calls) {
				items[i].Call = &k.calls
			}
		}
		out.Message.ProviderData = writeProviderData(items)
	}
	return out, nil
}
