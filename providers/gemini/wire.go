package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/wire"
)

// generateRequest is the body of generateContent and
// streamGenerateContent. Fields are in the order the API reference lists
// them.
type generateRequest struct {
	Contents          []content       `json:"contents"`
	Tools             []tool          `json:"tools,omitempty"`
	ToolConfig        *toolConfig     `json:"toolConfig,omitempty"`
	SystemInstruction *content        `json:"systemInstruction,omitempty"`
	GenerationConfig  json.RawMessage `json:"generationConfig,omitempty"`
}

// A content is one turn: role "user" or "model". Parts are part values,
// or json.RawMessage for a part sent back as the server sent it.
type content struct {
	Role  string `json:"role"`
	Parts []any  `json:"parts"`
}

type part struct {
	Text             *string           `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type functionResponse struct {
	ID       string       `json:"id,omitempty"`
	Name     string       `json:"name"`
	Response resultObject `json:"response"`
}

// resultObject is a functionResponse's response: {"output": ...} for a
// result, {"error": ...} for a failure, the keys the API reference gives
// them. A result that is a JSON object or array goes as that value; any
// other text as a string.
type resultObject struct {
	Output json.RawMessage `json:"output,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type tool struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type toolConfig struct {
	FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode"` // AUTO, ANY, NONE
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

// generationConfig holds the settings this package writes; the keys of
// Options.Extra["generationConfig"] are added to it.
type generationConfig struct {
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"topP,omitempty"`
	MaxOutputTokens *int            `json:"maxOutputTokens,omitempty"`
	Seed            *int            `json:"seed,omitempty"`
	StopSequences   []string        `json:"stopSequences,omitempty"`
	ThinkingConfig  *ThinkingConfig `json:"thinkingConfig,omitempty"`
	// ResponseMimeType and ResponseJSONSchema ask for an answer in a JSON
	// Schema (Request.Output), the full schema as the checker enforces it.
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

// reservedKeys are the request fields Options.Extra cannot set as
// top-level fields: they follow from the request itself, or are read from
// Extra apart (generationConfig, thinkingConfig).
var reservedKeys = []string{"contents", "tools", "systemInstruction", "generationConfig", "thinkingConfig"}

// encode builds the request body and returns it with the model name used.
func (m *Model) encode(req *chat.Request) ([]byte, string, error) {
	model, err := m.endpoint.ModelOf(req, m.model)
	if err != nil {
		return nil, model, err
	}
	invalid := func(format string, args ...any) ([]byte, string, error) {
		return nil, model, m.endpoint.BadRequest(model, fmt.Sprintf(format, args...))
	}
	if m.baseProblem != "" {
		return invalid("%s", m.baseProblem)
	}

	o := &req.Options
	gc := generationConfig{Temperature: o.Temperature, TopP: o.TopP, Seed: o.Seed, StopSequences: o.Stop, ThinkingConfig: m.thinking}
	if o.MaxTokens != nil {
		if *o.MaxTokens < 0 {
			return invalid("Options.MaxTokens is %d; it must not be negative", *o.MaxTokens)
		}
		gc.MaxOutputTokens = o.MaxTokens
	}
	if p := o.ParallelToolCalls; p != nil && !*p {
		return invalid("Options.ParallelToolCalls is false: the Gemini API cannot turn parallel calls off")
	}
	if v, ok := o.Extra["thinkingConfig"]; ok {
		tc, err := thinkingConfig(v)
		if err != nil {
			return invalid("Options.Extra: key %q: %v", "thinkingConfig", err)
		}
		gc.ThinkingConfig = tc
	}
	if out := req.Output; out != nil {
		gc.ResponseMimeType, gc.ResponseJSONSchema = "application/json", out.Schema
	}
	genConfig, err := encodeGenerationConfig(&gc, o.Extra["generationConfig"])
	if err != nil {
		return invalid("Options.Extra: key %q: %v", "generationConfig", err)
	}

	wr := generateRequest{GenerationConfig: genConfig}
	var msgErr error
	wr.SystemInstruction, wr.Contents, msgErr = convertMessages(req.Messages)
	if msgErr != nil {
		return invalid("%v", msgErr)
	}

	if len(req.Tools) > 0 {
		decls := make([]functionDeclaration, len(req.Tools))
		for i, d := range req.Tools {
			decls[i] = functionDeclaration{Name: d.Name, Description: d.Description, ParametersJSONSchema: wire.Parameters(d.InputSchema)}
		}
		wr.Tools = []tool{{FunctionDeclarations: decls}}
		tc, err := convertToolChoice(req)
		if err != nil {
			return invalid("%v", err)
		}
		wr.ToolConfig = tc
	}

	body, err := wire.EncodeRequest(&wr, req.Tools, o.Extra, reservedKeys)
	if err != nil {
		return invalid("%v", err)
	}
	return body, model, nil
}

// thinkingConfig reads Options.Extra["thinkingConfig"]: a ThinkingConfig,
// a pointer to one (nil: no thinkingConfig at all), or any value whose
// JSON is such an object. A key it does not know is an error, so that a
// misspelled one is not dropped.
func thinkingConfig(v any) (*ThinkingConfig, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case ThinkingConfig:
		return &v, nil
	case *ThinkingConfig:
		return v, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var tc ThinkingConfig
	if err := dec.Decode(&tc); err != nil {
		return nil, fmt.Errorf("want an object such as {\"includeThoughts\":true,\"thinkingBudget\":1024}: %v", err)
	}
	return &tc, nil
}

// encodeGenerationConfig writes gc with the keys of extra, an object
// (Options.Extra["generationConfig"]), that gc does not set. It returns
// nil when there is nothing to send.
func encodeGenerationConfig(gc *generationConfig, extra any) (json.RawMessage, error) {
	body, err := wire.Encode(gc)
	if err != nil {
		return nil, err
	}
	if extra != nil {
		fields, ok := extra.(map[string]any)
		if !ok {
			raw, err := json.Marshal(extra)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
				return nil, fmt.Errorf("want a JSON object of generationConfig fields")
			}
		}
		if body, err = wire.AddExtra(body, fields, nil); err != nil {
			return nil, err
		}
	}
	body = bytes.TrimSpace(body)
	if string(body) == "{}" {
		return nil, nil
	}
	return body, nil
}

// convertToolChoice maps the request's tool choice to toolConfig, or nil
// when the API's default (AUTO) is what the request asks for.
func convertToolChoice(req *chat.Request) (*toolConfig, error) {
	c := req.ToolChoice
	var fc functionCallingConfig
	switch {
	case c.Name != "" && c.Mode == chat.ToolChoiceNone:
		return nil, fmt.Errorf("ToolChoice names tool %q with mode none", c.Name)
	case c.Name != "":
		if !slices.ContainsFunc(req.Tools, func(d chat.ToolDefinition) bool { return d.Name == c.Name }) {
			return nil, fmt.Errorf("ToolChoice names tool %q, which the request does not offer", c.Name)
		}
		fc = functionCallingConfig{Mode: "ANY", AllowedFunctionNames: []string{c.Name}}
	case c.Mode == "":
		return nil, nil
	case c.Mode == chat.ToolChoiceAuto:
		fc.Mode = "AUTO"
	case c.Mode == chat.ToolChoiceRequired:
		fc.Mode = "ANY"
	case c.Mode == chat.ToolChoiceNone:
		fc.Mode = "NONE"
	default:
		return nil, fmt.Errorf("unknown tool choice mode %q", c.Mode)
	}
	return &toolConfig{FunctionCallingConfig: fc}, nil
}

// sentCall is what a results turn needs of a call sent in the model turn
// before it.
type sentCall struct {
	id, name string
	// wireID is the id the call went with, "" for none: its result goes
	// with the same, which may differ from id when the API gave two
	// calls one id and the reply renamed the second.
	wireID string
}

// convertMessages maps the conversation to systemInstruction and the
// contents. Each user and assistant message is one content; the tool
// messages that follow an assistant message are one user content of
// functionResponse parts, in the order of that message's calls.
func convertMessages(msgs []chat.Message) (*content, []content, error) {
	var (
		system   []any
		contents []content
		calls    []sentCall // of the last assistant message
		results  []resultPart
		inResult bool // the last content is a results turn being built
	)
	flush := func() {
		if inResult {
			slices.SortStableFunc(results, func(a, b resultPart) int { return a.pos - b.pos })
			parts := make([]any, len(results))
			for i := range results {
				parts[i] = results[i].part
			}
			contents = append(contents, content{Role: "user", Parts: parts})
			results, inResult = nil, false
		}
	}
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case chat.RoleSystem:
			if msg.Content != "" {
				system = append(system, part{Text: &msg.Content})
			}
		case chat.RoleUser:
			flush()
			// An empty text is sent as it is: the API takes it, and a
			// request whose only user turn is empty has nothing else.
			contents = append(contents, content{Role: "user", Parts: []any{part{Text: &msg.Content}}})
		case chat.RoleTool:
			r, err := result(msg, calls)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %v", i, err)
			}
			results, inResult = append(results, r), true
		case chat.RoleAssistant:
			flush()
			parts, sent, err := assistantParts(msg)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %v", i, err)
			}
			calls = sent
			if len(parts) > 0 {
				contents = append(contents, content{Role: "model", Parts: parts})
			}
		default:
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	flush()
	if len(contents) == 0 {
		return nil, nil, fmt.Errorf("no messages to send: the Gemini API needs at least one user or assistant message")
	}
	var si *content
	if len(system) > 0 {
		// The role is the one the API's own SDKs send; the API ignores it.
		si = &content{Role: "user", Parts: system}
	}
	return si, contents, nil
}

// A resultPart is a functionResponse part and the position of the call
// it answers.
type resultPart struct {
	pos  int
	part part
}

// result maps a tool message to its functionResponse, matched to the call
// of calls with its ToolCallID: the API matches results to calls by name
// and position, and by id only when the call had one.
func result(msg *chat.Message, calls []sentCall) (resultPart, error) {
	pos := len(calls)
	var c sentCall
	for i := range calls {
		if msg.ToolCallID != "" && calls[i].id == msg.ToolCallID {
			pos, c = i, calls[i]
			break
		}
	}
	name := c.name
	if name == "" {
		name = msg.ToolName
	}
	if name == "" {
		return resultPart{}, fmt.Errorf("tool result for call %q names no tool and answers no call of the message before it: the Gemini API needs the function's name", msg.ToolCallID)
	}
	fr := functionResponse{Name: name}
	fr.ID = c.wireID
	value := resultValue(msg.Content)
	if msg.IsError {
		fr.Response.Error = value
	} else {
		fr.Response.Output = value
	}
	return resultPart{pos: pos, part: part{FunctionResponse: &fr}}, nil
}

// resultValue is a result's text as a JSON value: a JSON object or array
// as it is, anything else as a string.
func resultValue(s string) json.RawMessage {
	t := strings.TrimSpace(s)
	if t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// emptyArgs is the args of a call whose arguments are empty, null or not a
// JSON object: the API requires an object.
var emptyArgs = json.RawMessage(`{}`)

// callArgs returns a call's arguments as the object the API requires: as
// they are, or {} when they are empty, null or not a JSON object (a
// model's malformed call, which the loop reported to it).
func callArgs(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return emptyArgs
	}
	return t
}
