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
	Summary []contentPart `json:"summary"`
	// EncryptedContent is only checked for being a non-empty string: it
	// is sent back within the item, never read.
	EncryptedContent json.RawMessage `json:"encrypted_content"`
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

// reasoningText is a reasoning item's text: its summary parts, each a
// section of its own, separated by a blank line; else the text that some
// servers send instead.
func reasoningText(it *outputItem) string {
	var s strings.Builder
	for _, p := range it.Summary {
		if p.Text == "" {
			continue
		}
		if s.Len() > 0 {
			s.WriteString("\n\n")
		}
		s.WriteString(p.Text)
	}
	if s.Len() == 0 {
		return partsText(it.Content)
	}
	return s.String()
}

// textBuf is a reply's text, put together in one buffer that
// httpline.AppendText grows within limit, the response limit. Kept as the
// pieces it came in, a stream of one-byte deltas held a string and its
// header for each, seventeen times the bytes counted.
type textBuf struct {
	b     []byte
	limit int64
}

func (t *textBuf) add(s string) { t.b = httpline.AppendText(t.b, s, t.limit) }

// An assembler collects one reply, from a response's output items or from
// stream events.
type assembler struct {
	model     string
	content   textBuf
	reasoning strings.Builder
	calls     []pendingCall
	// output are the reply's output items to send back, in order; a
	// stream fills in a reasoning or message item when it is done.
	output []keptEntry
	// reasoningKept: output holds a reasoning item with encrypted
	// content, which is what makes output worth sending back.
	reasoningKept bool
	usage         chat.Usage
	// other counts the bytes of the calls (names, ids, arguments), of the
	// kept items, and httpline.ItemCost for each, for the response limit.
	other int64
}

// size is the number of bytes assembled: text, reasoning, calls and kept
// items.
func (a *assembler) size() int64 {
	return int64(len(a.content.b)+a.reasoning.Len()) + a.other
}

type pendingCall struct {
	key    string // what stream events name the call by: its item id, or "#" and its output index
	itemID string // the output item's id ("fc_...")
	id     string // call_id
	name   string
	args   []byte
	done   bool // the whole arguments arrived (function_call_arguments.done or output_item.done)
}

// A keptEntry is an output item of the reply: call >= 0 for a.calls[call],
// else a reasoning or message item (item; nil until a stream's
// output_item.done brings it).
type keptEntry struct {
	call    int
	item    json.RawMessage
	message bool
}

// addCall adds a call and its place in the output.
func (a *assembler) addCall(c pendingCall) int {
	a.calls = append(a.calls, c)
	i := len(a.calls) - 1
	a.output = append(a.output, keptEntry{call: i})
	a.other += httpline.ItemCost + int64(len(c.key)+len(c.itemID)+len(c.id)+len(c.name)+len(c.args))
	return i
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
		a.keep(-1, raw, &it)
	case "function_call":
		a.addCall(pendingCall{itemID: it.ID, id: it.CallID, name: it.Name, args: it.Arguments, done: true})
	case "reasoning":
		a.addReasoning(&it)
		a.keep(-1, raw, &it)
	}
	return nil
}

// addReasoning adds a reasoning item's text to the reply's reasoning.
func (a *assembler) addReasoning(it *outputItem) {
	if text := reasoningText(it); text != "" {
		if a.reasoning.Len() > 0 {
			a.reasoning.WriteString("\n\n")
		}
		a.reasoning.WriteString(text)
	}
}

// keep keeps a reasoning or message item to be sent back: in the
// placeholder at slot when slot >= 0, else at the end of the output. A
// reasoning item without encrypted content names an item stored on the
// server, which this package never asks for: sent back, it would fail the
// next request, so it is not kept. Items are kept as received and made
// ready to be sent only if the reply has a reasoning item to send back.
func (a *assembler) keep(slot int, raw json.RawMessage, it *outputItem) {
	switch it.Type {
	case "reasoning":
		if e := it.EncryptedContent; len(e) <= 2 || e[0] != '"' {
			return
		}
		a.reasoningKept = true
	case "message":
	default:
		return
	}
	// Its values count too: a message item with logprobs is decoded again
	// when the reply is put together (keptItem).
	a.other += int64(len(raw)) + httpline.ValueCost(raw)
	message := it.Type == "message"
	if slot >= 0 {
		a.output[slot].item, a.output[slot].message = raw, message
		return
	}
	a.other += httpline.ItemCost
	a.output = append(a.output, keptEntry{call: -1, item: raw, message: message})
}

// outputEntries returns the reply's output to send back: calls by index
// (calls are the reply's, with their final ids), items as keptItem makes
// them; items a stream never completed are left out.
func (a *assembler) outputEntries(calls []chat.ToolCall) []outputEntry {
	entries := make([]outputEntry, 0, len(a.output))
	for _, e := range a.output {
		switch {
		case e.call >= 0:
			entries = append(entries, outputEntry{Call: &e.call, ID: a.calls[e.call].itemID, CallID: calls[e.call].ID})
		case e.item != nil:
			if kept, err := keptItem(e.item, e.message); err == nil {
				entries = append(entries, outputEntry{Item: kept})
			}
		}
	}
	return entries
}

// response builds the reply from the assembled items and the final
// response object: its status says whether the reply is whole.
func (a *assembler) response(r *response, rep *httpline.Reply) (*chat.Response, error) {
	if err := rep.Metadata("model", r.Model); err != nil {
		return nil, err
	}
	if r.Model != "" {
		a.model = r.Model
	}
	if r.Usage != nil {
		a.usage = r.Usage.chatUsage()
	}
	out := &chat.Response{
		Message: chat.Message{Role: chat.RoleAssistant, Content: string(a.content.b), Reasoning: a.reasoning.String()},
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
	if a.reasoningKept {
		out.Message.ProviderData = writeProviderData(a.outputEntries(out.Message.ToolCalls))
	}
	return out, nil
}
