package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// providerDataKey names a reply's parts in Message.ProviderData:
// {"gemini_parts":[...]}.
const providerDataKey = "gemini_parts"

// skipSignature is the thoughtSignature the API documents for a call it
// did not write (another provider's, or one made up): Gemini 3 refuses a
// call of the current turn without a signature, and takes this one in its
// place. It is base64 of "skip_thought_signature_validator".
var skipSignature = base64.StdEncoding.EncodeToString([]byte("skip_thought_signature_validator"))

// A keptPart is a part of a reply, kept in ProviderData.
type keptPart struct {
	raw              json.RawMessage
	Text             *string       `json:"text"`
	Thought          bool          `json:"thought"`
	ThoughtSignature string        `json:"thoughtSignature"`
	FunctionCall     *functionCall `json:"functionCall"`
	// id is the id the call was given in the reply: the API's, or one of
	// this package's, which is never sent.
	id string
}

// kind says what a part is: a call, a thought, text, or another kind
// (code, an image...), which is kept and sent back as it is.
func (p *keptPart) kind() string {
	switch {
	case p.FunctionCall != nil:
		return "call"
	case p.Text != nil && p.Thought:
		return "thought"
	case p.Text != nil:
		return "text"
	}
	return "other"
}

// keptParts reads the parts this package put in ProviderData, or nil
// when it holds none (no data, or another provider's), and gives each call
// the id the reply gave it.
func keptParts(data json.RawMessage) ([]keptPart, error) {
	kept := wire.ProviderData(data, providerDataKey)
	if kept == nil {
		return nil, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(kept, &raws); err != nil {
		return nil, fmt.Errorf("ProviderData: %s is not a list of parts: %v", providerDataKey, err)
	}
	parts := make([]keptPart, len(raws))
	ids := wire.CallIDs{Prefix: idPrefix}
	for i, raw := range raws {
		p := &parts[i]
		if err := json.Unmarshal(raw, p); err != nil || len(bytes.TrimSpace(raw)) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("ProviderData: part %d is not an object", i)
		}
		p.raw = raw
		if p.FunctionCall != nil {
			if p.FunctionCall.Name == "" {
				return nil, fmt.Errorf("ProviderData: the call of part %d has no name", i)
			}
			p.id = ids.Next(p.FunctionCall.ID)
		}
	}
	return parts, nil
}

// assistantParts returns the parts of an assistant message and its calls
// as they were sent, for the results that follow.
//
// A reply with a call, a thought, a signature or a part of another kind
// kept its parts in ProviderData. When the message still has that
// reply's text and calls (by id, in order), the parts go back as they
// were kept, each signature on its part; a call whose name or arguments the
// caller changed is written from the call, its id and signature kept. An
// empty text part without a signature, which a stream may end with, is
// left out. Otherwise the kept thoughts and parts of other kinds go
// first, then the text, then the calls, each call kept by its id as it
// came. A call this package's replies did not make is sent with its id,
// and the first call of the message gets the signature the API documents
// for calls it did not write.
func assistantParts(msg *chat.Message) ([]any, []sentCall, error) {
	kept, err := keptParts(msg.ProviderData)
	if err != nil {
		return nil, nil, err
	}
	sent := make([]sentCall, 0, len(msg.ToolCalls))
	var out []any
	if kept != nil && sameReply(kept, msg) {
		n := 0
		for i := range kept {
			p := &kept[i]
			switch p.kind() {
			case "call":
				c := &msg.ToolCalls[n]
				n++
				raw, err := callPart(p, c)
				if err != nil {
					return nil, nil, err
				}
				out = append(out, raw)
				sent = append(sent, sentCall{id: c.ID, name: c.Name, wireID: p.FunctionCall.ID})
				continue
			case "text":
				if *p.Text == "" && p.ThoughtSignature == "" {
					continue
				}
			}
			out = append(out, p.raw)
		}
		return out, sent, nil
	}

	byID := map[string]*keptPart{}
	for i := range kept {
		p := &kept[i]
		switch p.kind() {
		case "call":
			byID[p.id] = p
		case "thought", "other":
			out = append(out, p.raw)
		}
	}
	if msg.Content != "" {
		out = append(out, part{Text: &msg.Content})
	}
	first := true
	for i := range msg.ToolCalls {
		c := &msg.ToolCalls[i]
		if p := byID[c.ID]; p != nil {
			raw, err := callPart(p, c)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, raw)
			sent = append(sent, sentCall{id: c.ID, name: c.Name, wireID: p.FunctionCall.ID})
			first = false
			continue
		}
		if c.Name == "" {
			return nil, nil, fmt.Errorf("call %d (%q) has no name", i, c.ID)
		}
		p := part{FunctionCall: &functionCall{ID: c.ID, Name: c.Name, Args: callArgs(c.Arguments)}}
		if first {
			p.ThoughtSignature = skipSignature
		}
		first = false
		out = append(out, p)
		sent = append(sent, sentCall{id: c.ID, name: c.Name, wireID: c.ID})
	}
	return out, sent, nil
}

// callPart returns a kept call part to send for c: as it came, or, when
// c's name or arguments differ from it, with its functionCall written
// from c, its id and signature kept.
func callPart(p *keptPart, c *chat.ToolCall) (json.RawMessage, error) {
	args := callArgs(c.Arguments)
	if c.Name == p.FunctionCall.Name && jsonEqual(args, arguments(p.FunctionCall.Args)) {
		return p.raw, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(p.raw, &fields); err != nil {
		return nil, fmt.Errorf("ProviderData: call part: %v", err)
	}
	fc, err := wire.Value(functionCall{ID: p.FunctionCall.ID, Name: c.Name, Args: args})
	if err != nil {
		return nil, fmt.Errorf("call %q: %v", c.ID, err)
	}
	fields["functionCall"] = fc
	return wire.Value(fields)
}

// jsonEqual reports whether a and b are the same JSON text once
// compacted: the arguments of a call as kept and as the message has them.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// sameReply reports whether msg still has the text and the calls (by id,
// in order) of the reply whose parts were kept.
func sameReply(kept []keptPart, msg *chat.Message) bool {
	var text strings.Builder
	n := 0
	for i := range kept {
		p := &kept[i]
		switch p.kind() {
		case "text":
			text.WriteString(*p.Text)
		case "call":
			if n >= len(msg.ToolCalls) || msg.ToolCalls[n].ID != p.id {
				return false
			}
			n++
		}
	}
	return n == len(msg.ToolCalls) && text.String() == msg.Content
}
