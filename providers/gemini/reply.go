package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// generateResponse is a reply of generateContent, one chunk of a stream,
// or an error body.
type generateResponse struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *wireUsage      `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	Error          json.RawMessage `json:"error"`
}

func (g *generateResponse) hasError() bool {
	return len(g.Error) > 0 && string(g.Error) != "null"
}

type candidate struct {
	Content struct {
		Parts []partJSON `json:"parts"`
	} `json:"content"`
	FinishReason  string `json:"finishReason"`
	FinishMessage string `json:"finishMessage"`
	Index         int    `json:"index"`
}

type promptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"`
}

// wireUsage is usageMetadata. A stream's chunks each carry the counts so
// far, which may change (promptTokenCount too): the last wins.
type wireUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
}

// usage maps the counts: the tool-use prompt (what the API's own tools
// read) is prompt too; thoughtsTokenCount is apart from
// candidatesTokenCount, where CompletionTokens includes ReasoningTokens;
// cachedContentTokenCount is part of promptTokenCount.
func (u *wireUsage) usage() chat.Usage {
	if u == nil {
		return chat.Usage{}
	}
	out := chat.Usage{
		PromptTokens:     u.PromptTokenCount + u.ToolUsePromptTokenCount,
		CompletionTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CacheReadTokens:  u.CachedContentTokenCount,
		ReasoningTokens:  u.ThoughtsTokenCount,
	}
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	return out
}

// wirePart is a part of a reply, as far as this package reads it.
type wirePart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

// A partJSON is a part of a reply, decoded. A call or a part of another
// kind keeps its JSON text, compacted, to be sent back as it came; a text
// or thought part is kept as its fields, so that a stream's text, most of
// what it sends, is not copied once more.
type partJSON struct {
	wirePart
	raw json.RawMessage
}

func (p *partJSON) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &p.wirePart); err != nil {
		return err
	}
	if p.Text == nil || p.FunctionCall != nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		p.raw = buf.Bytes()
	}
	return nil
}

// idPrefix starts the id this package gives a call the API gave none.
const idPrefix = "call_"

// A replyPart is a part being assembled.
type replyPart struct {
	kind string // text, thought, call or other
	// raw is a call or a part of another kind as the server sent it,
	// compacted; nil for a text or thought part, written from its fields.
	raw       json.RawMessage
	text      []byte // of text and thought parts
	signature string
}

// An assembler collects one reply, from a response body or from the
// chunks of a stream.
type assembler struct {
	parts  []*replyPart
	calls  []chat.ToolCall
	ids    wire.CallIDs
	stream bool

	candidate     bool // a candidate arrived
	finish        string
	finishMessage string
	feedback      *promptFeedback
	usage         *wireUsage
	model         string

	// yield gets each piece of text and each call as it arrives, and grow
	// counts what is kept against the response limit; both nil for a
	// reply not streamed.
	yield func(chat.Delta) bool
	grow  func(n int) error
	limit int64 // the response limit, which bounds a text buffer's growth
}

// add adds a reply, or a stream's chunk, to the reply being assembled.
// Only the candidate of index 0 is read: a request asks for one.
func (a *assembler) add(g *generateResponse, stream bool) error {
	a.stream = stream
	a.ids.Prefix = idPrefix
	if g.ModelVersion != "" {
		a.model = g.ModelVersion
	}
	if g.UsageMetadata != nil {
		a.usage = g.UsageMetadata
	}
	if g.PromptFeedback != nil && g.PromptFeedback.BlockReason != "" {
		a.feedback = g.PromptFeedback
	}
	for i := range g.Candidates {
		c := &g.Candidates[i]
		if c.Index != 0 {
			continue
		}
		a.candidate = true
		if c.FinishReason != "" {
			a.finish, a.finishMessage = c.FinishReason, c.FinishMessage
		}
		for j := range c.Content.Parts {
			if err := a.part(&c.Content.Parts[j]); err != nil {
				return err
			}
		}
	}
	return nil
}

// part adds one part. In a stream, text and thought parts continue the
// part before them when it is of their kind, and so make the one part a
// reply not streamed would have had: a signature that comes with any of
// them (Gemini 3 sends it on an empty text part at the end) belongs to
// that part, unless it has one already.
func (a *assembler) part(pj *partJSON) error {
	wp := &pj.wirePart
	p := &replyPart{signature: wp.ThoughtSignature, raw: pj.raw}
	switch {
	case wp.FunctionCall != nil:
		fc := wp.FunctionCall
		if fc.Name == "" {
			return fmt.Errorf("part %d is a function call without a name", len(a.parts))
		}
		p.kind = "call"
		id, args := a.ids.Next(fc.ID), arguments(fc.Args)
		a.calls = append(a.calls, chat.ToolCall{ID: id, Name: fc.Name, Arguments: args})
		// Its id and name are kept decoded besides the part: three bytes
		// for each byte that is not UTF-8.
		if err := a.count(len(p.raw) + len(fc.ID) + len(fc.Name) + httpline.ItemCost); err != nil {
			return err
		}
		if a.yield != nil && !a.yield(chat.Delta{ToolCall: &chat.ToolCallDelta{Index: len(a.calls) - 1, ID: id, Name: fc.Name, Arguments: string(args)}}) {
			return chat.ErrStreamStopped
		}
	case wp.Text != nil:
		p.kind = "text"
		if wp.Thought {
			p.kind = "thought"
		}
		if a.stream {
			return a.streamText(p, *wp.Text)
		}
		p.text = []byte(*wp.Text)
	default:
		p.kind = "other"
		if err := a.count(len(p.raw) + httpline.ItemCost); err != nil {
			return err
		}
	}
	a.parts = append(a.parts, p)
	return nil
}

// streamText adds a streamed text or thought part p, of text t, and
// yields text.
func (a *assembler) streamText(p *replyPart, t string) error {
	last := (*replyPart)(nil)
	if n := len(a.parts); n > 0 {
		last = a.parts[n-1]
	}
	if last == nil || last.kind != p.kind || p.signature != "" && last.signature != "" {
		if err := a.count(httpline.ItemCost); err != nil {
			return err
		}
		a.parts = append(a.parts, p)
		last = p
	}
	if err := a.count(len(t) + len(p.signature)); err != nil {
		return err
	}
	if p.signature != "" {
		last.signature = p.signature
	}
	if t == "" {
		return nil
	}
	last.text = httpline.AppendText(last.text, t, a.limit)
	if p.kind == "text" && a.yield != nil && !a.yield(chat.Delta{Content: t}) {
		return chat.ErrStreamStopped
	}
	return nil
}

// metadata returns an error when the reply's or chunk's modelVersion or a
// finishReason is longer than a reply's metadata may be
// (httpline.MaxMetadata).
func metadata(r *httpline.Reply, g *generateResponse) error {
	if err := r.Metadata("modelVersion", g.ModelVersion); err != nil {
		return err
	}
	for i := range g.Candidates {
		if err := r.Metadata("finishReason", g.Candidates[i].FinishReason); err != nil {
			return err
		}
	}
	return nil
}

// count counts n more bytes of a stream against the response limit.
func (a *assembler) count(n int) error {
	if a.grow == nil {
		return nil
	}
	return a.grow(n)
}

// arguments returns a call's args compacted, or {} when they are absent
// or null.
func arguments(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return emptyArgs
	}
	var buf bytes.Buffer
	if json.Compact(&buf, t) != nil {
		return bytes.Clone(t)
	}
	return buf.Bytes()
}

// response builds the reply, or the error the reply stands for.
func (a *assembler) response(r *httpline.Reply) (*chat.Response, error) {
	if !a.candidate {
		if f := a.feedback; f != nil {
			msg := "the prompt was blocked (promptFeedback.blockReason " + f.BlockReason + ")"
			if f.BlockReasonMessage != "" {
				msg += ": " + f.BlockReasonMessage
			}
			return nil, r.Error(chat.ErrBadRequest, msg)
		}
		return nil, r.BadResponse("the reply has no candidate")
	}
	msg := chat.Message{Role: chat.RoleAssistant, ToolCalls: a.calls}
	var text, thoughts strings.Builder
	keep := len(a.calls) > 0
	for _, p := range a.parts {
		switch p.kind {
		case "text":
			text.Write(p.text)
		case "thought":
			thoughts.Write(p.text)
			keep = true
		case "other":
			keep = true
		}
		if p.signature != "" {
			keep = true
		}
	}
	msg.Content, msg.Reasoning = text.String(), thoughts.String()
	if keep {
		pd, err := a.providerData()
		if err != nil {
			return nil, r.BadResponse(err.Error())
		}
		msg.ProviderData = pd
	}
	finish, err := finishReason(a.finish, a.finishMessage, len(a.calls) > 0)
	if err != nil {
		return nil, r.BadResponse(err.Error())
	}
	return &chat.Response{Message: msg, FinishReason: finish, Usage: a.usage.usage(), Model: a.model}, nil
}

// providerData keeps the parts of the reply, in order, so that each
// signature goes back on its part and thoughts in their place. A call or
// a part of another kind is kept as it came, compacted; a text or thought
// part as its text, thought flag and signature (a stream's chunks of one
// part joined). An empty text part without a signature is left out.
func (a *assembler) providerData() (json.RawMessage, error) {
	raws := make([]json.RawMessage, 0, len(a.parts))
	for i, p := range a.parts {
		raw := p.raw
		if raw == nil {
			if len(p.text) == 0 && p.signature == "" {
				continue
			}
			t := string(p.text)
			var err error
			if raw, err = wire.Value(part{Text: &t, Thought: p.kind == "thought", ThoughtSignature: p.signature}); err != nil {
				return nil, fmt.Errorf("part %d (%s): %v", i, p.kind, err)
			}
		}
		raws = append(raws, raw)
	}
	return wire.Value(map[string][]json.RawMessage{providerDataKey: raws})
}

// filtered are the finish reasons of a reply the API's filters stopped.
var filtered = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "IMAGE_RECITATION": true,
}

// badCall are the finish reasons of a call the API could not use.
var badCall = map[string]bool{"MALFORMED_FUNCTION_CALL": true, "UNEXPECTED_TOOL_CALL": true, "TOO_MANY_TOOL_CALLS": true}

// finishReason maps a finishReason. STOP with calls is a turn of tool
// calls; MAX_TOKENS is a cut reply and the filters' reasons a filtered
// one, calls or not, so that none of their calls runs. A call the API
// could not use (MALFORMED_FUNCTION_CALL, ...) is an error naming the
// reason and the API's message: the reply holds no call to run or to
// report to the model. A reason this package does not know, or none, on
// a reply with calls is an error; without calls it is passed on as it
// is.
func finishReason(reason, message string, calls bool) (chat.FinishReason, error) {
	switch {
	case reason == "MAX_TOKENS":
		return chat.FinishLength, nil
	case filtered[reason]:
		return chat.FinishFiltered, nil
	case badCall[reason]:
		msg := "finishReason " + reason + ": the model's function call could not be used"
		if message != "" {
			msg += ": " + message
		}
		return "", fmt.Errorf("%s", msg)
	case reason == "STOP" || reason == "":
		if calls {
			if reason == "" {
				return "", fmt.Errorf("the reply has function calls and no finishReason")
			}
			return chat.FinishToolCalls, nil
		}
		return chat.FinishStop, nil
	case calls:
		return "", fmt.Errorf("finishReason %q is unknown and the reply has function calls: they are not run", reason)
	}
	return chat.FinishReason(reason), nil
}
