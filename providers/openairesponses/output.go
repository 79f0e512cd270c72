package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// A reasoning item may go back only directly before the item that followed
// it in the reply, that item carrying its output id: OpenAI refuses it
// otherwise ("Item 'rs_...' of type 'reasoning' was provided without its
// required following item"). So a reply with a reasoning item to send back
// keeps all its output items in order, and the next request sends them in
// that order.

// providerData is what an assistant message keeps of a reply for the next
// requests, in Message.ProviderData under the key "openai_responses": the
// output items of a reply that had a reasoning item to send back, in the
// reply's order.
type providerData struct {
	Output []outputEntry `json:"output"`
}

// An outputEntry is one output item of a reply: a reasoning or message
// item as the server sent it (Item; a message without logprobs), or a
// function call, by its index in the message's ToolCalls (Call), with its
// output item id (ID) and the call's id (CallID) to tell whether the call
// is still the one received.
type outputEntry struct {
	Item   json.RawMessage `json:"item,omitempty"`
	Call   *int            `json:"call,omitempty"`
	ID     string          `json:"id,omitempty"`
	CallID string          `json:"call_id,omitempty"`

	kind string // "reasoning", "message" or "call", set by readProviderData
}

// providerDataKey names this package's data in Message.ProviderData, so
// that another provider's data there is told apart and left alone.
const providerDataKey = "openai_responses"

// readProviderData reads this package's part of an assistant message's
// ProviderData. Anything that is not a JSON object with the key
// providerDataKey is another provider's and gives nothing.
func readProviderData(raw json.RawMessage) (providerData, error) {
	var pd providerData
	mine := wire.ProviderData(raw, providerDataKey)
	if mine == nil {
		return pd, nil
	}
	dec := json.NewDecoder(bytes.NewReader(mine))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pd); err != nil {
		return pd, fmt.Errorf("ProviderData: %q is not this package's data: %v", providerDataKey, err)
	}
	for i := range pd.Output {
		e := &pd.Output[i]
		switch {
		case (e.Call == nil) == (len(e.Item) == 0):
			return pd, fmt.Errorf("ProviderData: output entry %d must hold either an item or a call", i)
		case e.Call != nil && *e.Call < 0:
			return pd, fmt.Errorf("ProviderData: output entry %d names tool call %d", i, *e.Call)
		case e.Call != nil:
			e.kind = "call"
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(e.Item, &head)
		if head.Type != "reasoning" && head.Type != "message" {
			return pd, fmt.Errorf("ProviderData: output entry %d is not a reasoning or message item", i)
		}
		e.kind = head.Type
	}
	return pd, nil
}

// writeProviderData returns the ProviderData of a reply with the given
// output entries, or nil when there are none. It is written by hand: the
// items are compact JSON already, and encoding/json would check and
// compact each again, which costs more than the rest of reading a reply.
func writeProviderData(entries []outputEntry) json.RawMessage {
	if len(entries) == 0 {
		return nil
	}
	n := 64
	for _, e := range entries {
		n += len(e.Item) + len(e.ID) + len(e.CallID) + 48
	}
	b := make([]byte, 0, n)
	b = append(b, `{"`+providerDataKey+`":{"output":[`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		if e.Call == nil {
			b = append(b, `{"item":`...)
			b = append(b, e.Item...)
			b = append(b, '}')
			continue
		}
		b = append(b, `{"call":`...)
		b = strconv.AppendInt(b, int64(*e.Call), 10)
		if e.ID != "" {
			b = append(b, `,"id":`...)
			b = appendString(b, e.ID)
		}
		b = append(b, `,"call_id":`...)
		b = appendString(b, e.CallID)
		b = append(b, '}')
	}
	return append(b, "]}}"...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// appendAssistant appends the items of an assistant message. Without this
// package's ProviderData: its text as a message item, then its tool calls
// as function_call items. With it: the reply's output items in their
// order (see sendBack).
func appendAssistant(items []item, msg *chat.Message) ([]item, error) {
	for j := range msg.ToolCalls {
		if msg.ToolCalls[j].ID == "" {
			return nil, fmt.Errorf("tool call %d (%q) has no ID", j, msg.ToolCalls[j].Name)
		}
	}
	pd, err := readProviderData(msg.ProviderData)
	if err != nil {
		return nil, err
	}
	if len(pd.Output) > 0 {
		return sendBack(items, msg, pd.Output)
	}
	if msg.Content != "" {
		items = append(items, item{Type: "message", Role: "assistant", Content: &msg.Content})
	}
	for j := range msg.ToolCalls {
		items = append(items, callItem(&msg.ToolCalls[j], ""))
	}
	return items, nil
}

// callItem is the function_call item of tc, with its output item id when
// it goes back as received.
func callItem(tc *chat.ToolCall, id string) item {
	args := string(wire.Arguments(tc.Arguments))
	return item{Type: "function_call", ID: id, CallID: tc.ID, Name: tc.Name, Arguments: &args}
}

// sendBack appends the output items of a reply in the reply's order:
// reasoning items as received, message items as received when the
// message's text is still theirs, function calls with their output ids
// when the call is still the one received.
//
// What the caller changed goes as the message says: edited text as one
// message item in place of the reply's, a changed call without its output
// id, an added call after the reply's items. A reasoning item whose
// following item no longer goes back as received is dropped, since the
// API refuses it without that item; one that ended the reply stays last.
func sendBack(items []item, msg *chat.Message, out []outputEntry) ([]item, error) {
	var text strings.Builder
	firstMsg := -1
	seen := make([]bool, len(msg.ToolCalls))
	for i := range out {
		e := &out[i]
		switch e.kind {
		case "message":
			if firstMsg < 0 {
				firstMsg = i
			}
			var it outputItem
			if err := json.Unmarshal(e.Item, &it); err != nil {
				return nil, fmt.Errorf("ProviderData: output entry %d: %v", i, err)
			}
			text.WriteString(partsText(it.Content))
		case "call":
			c := *e.Call
			if c >= len(msg.ToolCalls) {
				return nil, fmt.Errorf("ProviderData: output entry %d names tool call %d, but the message has %d", i, c, len(msg.ToolCalls))
			}
			if seen[c] {
				return nil, fmt.Errorf("ProviderData: tool call %d appears twice", c)
			}
			seen[c] = true
		}
	}
	textKept := text.String() == msg.Content

	// asReceived[i]: entry i goes back as the reply had it.
	asReceived := make([]bool, len(out))
	for i := len(out) - 1; i >= 0; i-- {
		e := &out[i]
		switch e.kind {
		case "message":
			asReceived[i] = textKept
		case "call":
			asReceived[i] = msg.ToolCalls[*e.Call].ID == e.CallID
		case "reasoning":
			asReceived[i] = i == len(out)-1 || asReceived[i+1]
		}
	}

	plainText := func() {
		if msg.Content != "" {
			items = append(items, item{Type: "message", Role: "assistant", Content: &msg.Content})
		}
	}
	if !textKept && firstMsg < 0 {
		plainText()
	}
	for i := range out {
		e := &out[i]
		switch k := e.kind; {
		case k == "call":
			id := ""
			if asReceived[i] {
				id = e.ID
			}
			items = append(items, callItem(&msg.ToolCalls[*e.Call], id))
		case k == "message" && !textKept:
			if i == firstMsg {
				plainText()
			}
		case asReceived[i]:
			items = append(items, item{raw: e.Item})
		}
	}
	for j := range msg.ToolCalls {
		if !seen[j] {
			items = append(items, callItem(&msg.ToolCalls[j], ""))
		}
	}
	return items, nil
}

// keptItem returns an output item as it is kept to be sent back: as
// received, and a message item without the logprobs of its content parts,
// which the next request does not need and which can be larger than the
// text. It is not compacted here: encoding/json compacts it when it is
// sent, and doing it twice would cost more than the rest of reading the
// reply.
func keptItem(raw json.RawMessage, message bool) (json.RawMessage, error) {
	if !message || !bytes.Contains(raw, []byte(`"logprobs"`)) {
		return raw, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	if c := fields["content"]; len(c) > 0 && c[0] == '[' {
		var parts []map[string]json.RawMessage
		if err := json.Unmarshal(c, &parts); err != nil {
			return nil, err
		}
		for _, p := range parts {
			delete(p, "logprobs")
		}
		b, err := wire.Encode(parts)
		if err != nil {
			return nil, err
		}
		fields["content"] = bytes.TrimSpace(b)
	}
	b, err := wire.Encode(fields)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b), nil
}
