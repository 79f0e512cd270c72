// Package wire holds what the providers do alike with the JSON they send
// and receive, written once: request bodies without HTML escaping
// ([Encode]) and the fields Options.Extra adds to them ([AddExtra]), both
// with the errors naming what failed ([EncodeRequest]); a
// tool's input schema as it is sent ([Parameters]) and the error naming
// one that is not JSON ([SchemaError]); a tool call's arguments as they
// arrive ([RawArguments]) and as they are sent ([Arguments]); the ids of
// a reply's tool calls, made unique in linear time ([CallIDs]); and what
// an error says about a payload that did not decode ([DecodeProblem],
// [Kind]) or about a server's message ([Phrases]). What differs between the APIs (the reserved request
// fields, the API's name, the prefix of a made-up id, the phrases) is a
// parameter, so that each provider keeps its own.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/chat"
)

// AddExtra adds to body, a JSON object, the keys of extra it does not
// already have and that reserved does not name, and returns the new body.
// A key of body or of reserved is left alone, so that Options.Extra can
// add fields but never change the ones the provider writes. A value that
// cannot be marshalled is an error naming its key.
func AddExtra(body []byte, extra map[string]any, reserved []string) ([]byte, error) {
	if len(extra) == 0 {
		// The common path pays nothing.
		return body, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, set := fields[k]; set || slices.Contains(reserved, k) {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("key %q: %v", k, err)
		}
		fields[k] = raw
	}
	return Encode(fields)
}

// EncodeRequest returns the body of a request: wr, the request the
// provider built from req, encoded as [Encode] does, with the fields of
// extra (Options.Extra) added as [AddExtra] adds them. An error says what
// was wrong: a tool of tools (Request.Tools) whose input schema is not
// JSON ([SchemaError]), else what kept wr from being encoded ("encoding
// request: ..."), or an extra field ("Options.Extra: ...").
func EncodeRequest(wr any, tools []chat.ToolDefinition, extra map[string]any, reserved []string) ([]byte, error) {
	body, err := Encode(wr)
	if err != nil {
		if err := SchemaError(tools); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("encoding request: %v", err)
	}
	if body, err = AddExtra(body, extra, reserved); err != nil {
		return nil, fmt.Errorf("Options.Extra: %v", err)
	}
	return body, nil
}

// Encode returns the JSON of v followed by a newline, as json.Encoder
// writes it, without escaping "<", ">" and "&": what a model or a user
// wrote is sent as it is.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Parameters returns a tool's input schema as it is sent: as it is, or,
// when it is empty or null, an object schema without properties, as the
// APIs reject a tool without one (OpenAI's also one without "properties").
func Parameters(schema json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(schema); len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return schema
}

// SchemaError names the first tool whose input schema is not valid JSON,
// or returns nil. A provider calls it only once encoding a request has
// failed: the encoder checks every schema it writes, so checking them
// before would read each one twice on every request.
func SchemaError(tools []chat.ToolDefinition) error {
	for _, d := range tools {
		if len(bytes.TrimSpace(d.InputSchema)) > 0 && !json.Valid(d.InputSchema) {
			return fmt.Errorf("tool %q: input schema is not valid JSON", d.Name)
		}
	}
	return nil
}

// Arguments returns a tool call's arguments as they are, or "{}" when
// they are empty or null: servers reject a replayed call whose arguments
// are missing or "", and a tool expects an object.
func Arguments(args json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return args
}

// RawArguments is a tool call's arguments as JSON text, as a reply
// brings them: OpenAI's APIs send a string holding the text, and some
// compatible servers the JSON object itself, which is kept, compacted.
// Null is none.
type RawArguments []byte

// UnmarshalJSON reads a string, null, or any other JSON value.
func (a *RawArguments) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = RawArguments(s)
	case 'n':
		*a = nil
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return err
		}
		*a = buf.Bytes()
	}
	return nil
}

// DecodeProblem describes why what (a response, a stream event) could not
// be decoded as format (the API's name, e.g. "Chat Completions"), without
// quoting the payload: a server's reply is untrusted and may be large.
func DecodeProblem(what, format string, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s is not valid JSON: %s (at byte %d)", what, syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s does not fit the %s format: field %q is a JSON %s", what, format, typ.Field, typ.Value)
	}
	// An error from a field's own decoding, or encoding/json's depth limit.
	return fmt.Sprintf("%s does not fit the %s format: %v", what, format, err)
}

// Phrases are lower-case phrases a server's message is searched for, such
// as what servers say when a model cannot take tools.
type Phrases []string

// In reports whether msg contains one of the phrases, whatever its case.
func (p Phrases) In(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range p {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// CallIDs gives the tool calls of one reply, in order, ids of their own,
// so that tool results can be matched to their calls: a call without an
// id gets Prefix and its index ("call_3"), and an id already given gets
// the first "_<n>" suffix not given yet ("call_1_2"). The zero value with
// a Prefix is ready to use.
//
// It takes time in proportion to the number of calls: a server may send
// thousands of calls with one id, and trying the suffixes from 1 for each
// would be quadratic. A reply of a few calls with ids of their own, the
// usual one, allocates nothing.
type CallIDs struct {
	// Prefix starts the id of a call that has none: "call_", "toolu_".
	Prefix string

	n    int             // calls so far
	few  [8]string       // the first ids given, looked up without a map
	used map[string]bool // every id given, once there are more than len(few)
	last map[string]int  // the last suffix tried for an id
}

// Next returns the id of the next call, which the server gave id ("" for
// none).
func (c *CallIDs) Next(id string) string {
	base := id
	if base == "" {
		base = c.Prefix + strconv.Itoa(c.n)
	}
	// Every suffix up to last[base] names an id already given, and ids are
	// never taken back, so the search goes on from there.
	id = base
	for c.given(id) {
		if c.last == nil {
			c.last = make(map[string]int)
		}
		c.last[base]++
		id = base + "_" + strconv.Itoa(c.last[base])
	}
	c.add(id)
	return id
}

// given reports whether id was given to an earlier call.
func (c *CallIDs) given(id string) bool {
	if c.used != nil {
		return c.used[id]
	}
	return slices.Contains(c.few[:c.n], id)
}

// add records id as given to the next call.
func (c *CallIDs) add(id string) {
	switch {
	case c.n < len(c.few):
		c.few[c.n] = id
	case c.used == nil:
		c.used = make(map[string]bool, 2*len(c.few))
		for _, s := range c.few {
			c.used[s] = true
		}
		fallthrough
	default:
		c.used[id] = true
	}
	c.n++
}

// ProviderData returns what a provider kept under key in a message's
// ProviderData, or nil when there is none there: no data, data that is not
// a JSON object, or another provider's.
func ProviderData(data json.RawMessage, key string) json.RawMessage {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	var pd map[string]json.RawMessage
	if json.Unmarshal(t, &pd) != nil {
		return nil
	}
	return pd[key]
}

// Value returns the JSON of v as [Encode] writes it, without the newline:
// a value to keep, in ProviderData or in a body.
func Value(v any) (json.RawMessage, error) {
	b, err := Encode(v)
	return bytes.TrimSuffix(b, []byte("\n")), err
}
