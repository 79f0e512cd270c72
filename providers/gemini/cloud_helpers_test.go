package gemini_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// The helpers of cloud_test.go: a recorded request turned into the
// chat.Request that stands for it, the next request of a conversation
// built from the provider's own reply, the recorded bodies put in the
// forms this package sends, and a recorded reply read independently of
// the package.

// recordedBody is a request body of the cloud recordings.
type recordedBody struct {
	Contents          []recordedContent          `json:"contents"`
	Tools             []recordedTool             `json:"tools"`
	ToolConfig        json.RawMessage            `json:"toolConfig"`
	SystemInstruction *recordedContent           `json:"systemInstruction"`
	GenerationConfig  map[string]json.RawMessage `json:"generationConfig"`
	SafetySettings    json.RawMessage            `json:"safetySettings"`
}

// recordedFields are the top-level fields recordedBody reads: a recording
// with any other fails the test rather than have it left out unseen.
var recordedFields = []string{"contents", "tools", "toolConfig", "systemInstruction", "generationConfig", "safetySettings"}

type recordedContent struct {
	Role  string         `json:"role"`
	Parts []recordedPart `json:"parts"`
}

type recordedPart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string                     `json:"id"`
		Name     string                     `json:"name"`
		Response map[string]json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type recordedTool struct {
	FunctionDeclarations []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		JSONSchema  json.RawMessage `json:"parameters_json_schema"`
	} `json:"functionDeclarations"`
}

func parseRecorded(t *testing.T, raw json.RawMessage) recordedBody {
	t.Helper()
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &fields))
	for k := range fields {
		require.Contains(t, recordedFields, k, "a field of the recorded request that the test does not convert")
	}
	var b recordedBody
	require.NoError(t, json.Unmarshal(raw, &b))
	return b
}

// skipSignature is the signature the API documents for calls it did not
// write: base64 of "skip_thought_signature_validator".
const skipSignature = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="

// chatRequest is the chat.Request that stands for the first request of a
// recording: its system instruction, contents and tools, and its settings
// where chat has them (maxOutputTokens, temperature, a tool config chat
// can say) or as Options.Extra: thinkingConfig as a gemini.ThinkingConfig
// (the recording client wrote some keys in snake_case, as the API also
// reads them), the other generationConfig fields, safetySettings, and a
// tool config chat cannot say (ANY among some of the tools, VALIDATED).
func chatRequest(t *testing.T, model string, raw json.RawMessage) *chat.Request {
	t.Helper()
	b := parseRecorded(t, raw)
	req := &chat.Request{Model: model}
	if si := b.SystemInstruction; si != nil {
		for _, p := range si.Parts {
			require.NotNil(t, p.Text)
			req.Messages = append(req.Messages, chat.SystemMessage(*p.Text))
		}
	}
	req.Messages = append(req.Messages, chatMessages(t, b.Contents, nil)...)
	for _, tool := range b.Tools {
		for _, d := range tool.FunctionDeclarations {
			schema := d.JSONSchema
			if schema == nil {
				schema = jsonSchemaOf(t, d.Parameters)
			}
			req.Tools = append(req.Tools, chat.ToolDefinition{Name: d.Name, Description: d.Description, InputSchema: schema})
		}
	}
	extra := map[string]any{}
	if len(b.ToolConfig) > 0 {
		var tc struct {
			FunctionCallingConfig struct {
				Mode    string   `json:"mode"`
				Allowed []string `json:"allowedFunctionNames"`
			} `json:"functionCallingConfig"`
		}
		require.NoError(t, json.Unmarshal(b.ToolConfig, &tc))
		switch fc := tc.FunctionCallingConfig; {
		case fc.Mode == "AUTO" && fc.Allowed == nil:
			req.ToolChoice.Mode = chat.ToolChoiceAuto
		case fc.Mode == "ANY" && fc.Allowed == nil:
			req.ToolChoice.Mode = chat.ToolChoiceRequired
		case fc.Mode == "ANY" && len(fc.Allowed) == 1:
			req.ToolChoice.Name = fc.Allowed[0]
		default:
			extra["toolConfig"] = b.ToolConfig
		}
	}
	gc := map[string]any{}
	for k, v := range b.GenerationConfig {
		switch k {
		case "maxOutputTokens":
			var n int
			require.NoError(t, json.Unmarshal(v, &n))
			req.Options.MaxTokens = &n
		case "temperature":
			var f float64
			require.NoError(t, json.Unmarshal(v, &f))
			req.Options.Temperature = &f
		case "thinkingConfig":
			dec := json.NewDecoder(bytes.NewReader(camelKeys(t, v)))
			dec.DisallowUnknownFields()
			var tc gemini.ThinkingConfig
			require.NoError(t, dec.Decode(&tc))
			extra["thinkingConfig"] = tc
		default:
			gc[k] = v
		}
	}
	if len(gc) > 0 {
		extra["generationConfig"] = gc
	}
	if len(b.SafetySettings) > 0 {
		extra["safetySettings"] = b.SafetySettings
	}
	if len(extra) > 0 {
		req.Options.Extra = extra
	}
	return req
}

// camelKeys writes the snake_case keys of a JSON object in camelCase, as
// the API's JSON names are: include_thoughts is includeThoughts.
func camelKeys(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	out := map[string]json.RawMessage{}
	for k, v := range m {
		words := strings.Split(k, "_")
		for i := 1; i < len(words); i++ {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
		out[strings.Join(words, "")] = v
	}
	b, err := json.Marshal(out)
	require.NoError(t, err)
	return b
}

// jsonSchemaOf turns an OpenAPI schema of the API's "parameters" field,
// whose types are upper case ("OBJECT", "STRING"), into the JSON Schema it
// stands for: the types lower-cased.
func jsonSchemaOf(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	var lower func(v any)
	lower = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && k == "type" {
					v[k] = strings.ToLower(s)
				}
				lower(e)
			}
		case []any:
			for _, e := range v {
				lower(e)
			}
		}
	}
	lower(v)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// chatMessages converts recorded contents: user text is a user message; a
// model content an assistant message (its calls with the recorded ids,
// their signatures either none or the one for calls the API did not
// write, which the package adds itself); each functionResponse a tool
// message answering the call at its position among calls, the calls of
// the last model content (or of the reply, for the first contents after
// it). A result {"return_value": v} is v's text; {"error": e} is e,
// marked as an error.
func chatMessages(t *testing.T, contents []recordedContent, calls []chat.ToolCall) []chat.Message {
	t.Helper()
	var out []chat.Message
	for _, c := range contents {
		switch c.Role {
		case "model":
			msg := chat.Message{Role: chat.RoleAssistant}
			for _, p := range c.Parts {
				require.NotNil(t, p.FunctionCall, "only calls in a model content of the first request")
				require.Contains(t, []string{"", skipSignature}, p.ThoughtSignature)
				msg.ToolCalls = append(msg.ToolCalls, call(p.FunctionCall.ID, p.FunctionCall.Name, string(p.FunctionCall.Args)))
			}
			out, calls = append(out, msg), msg.ToolCalls
		case "user":
			n := 0
			for _, p := range c.Parts {
				switch {
				case p.Text != nil:
					out = append(out, chat.UserMessage(*p.Text))
				case p.FunctionResponse != nil:
					fr := p.FunctionResponse
					require.Less(t, n, len(calls), "a result for each call")
					require.Equal(t, calls[n].Name, fr.Name, "result %d answers call %d", n, n)
					msg := chat.Message{Role: chat.RoleTool, ToolCallID: calls[n].ID, ToolName: fr.Name}
					n++
					if v, ok := fr.Response["error"]; ok {
						msg.Content, msg.IsError = resultText(t, v), true
					} else {
						v, ok := fr.Response["return_value"]
						require.True(t, ok, "a result is return_value or error")
						msg.Content = resultText(t, v)
					}
					out = append(out, msg)
				default:
					t.Fatalf("a user part that is neither text nor a functionResponse")
				}
			}
		default:
			t.Fatalf("role %q", c.Role)
		}
	}
	return out
}

// resultText is a result's value as a tool message holds it: a string as
// it is, any other value as its JSON text.
func resultText(t *testing.T, v json.RawMessage) string {
	t.Helper()
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// nextRequest builds request n+1 of a conversation as the toolcall loop
// does: the messages of request n, the provider's own reply n kept whole,
// then the new input of recorded request n+1 (the contents after the
// model content that stands for reply n).
func nextRequest(t *testing.T, req *chat.Request, resp *chat.Response, prev, next json.RawMessage) *chat.Request {
	t.Helper()
	before, after := parseRecorded(t, prev), parseRecorded(t, next)
	n := len(before.Contents)
	require.Greater(t, len(after.Contents), n+1, "request n+1 adds the reply and new input")
	require.Equal(t, "model", after.Contents[n].Role)
	out := *req
	out.Messages = append(slices.Clip(req.Messages), resp.Message)
	out.Messages = append(out.Messages, chatMessages(t, after.Contents[n+1:], resp.Message.ToolCalls)...)
	return &out
}

// recorded is what a recorded reply holds, read without the package:
// the text and thoughts of its parts joined, its signatures in order, its
// model, and for each call whether it had an id and a signature.
type recorded struct {
	text, thoughts, model string
	sigs                  []string
	calls                 []recordedCall
}

type recordedCall struct{ id, sig bool }

func recordedReply(t *testing.T, ex providertest.CloudExchange) recorded {
	t.Helper()
	var chunks [][]byte
	if strings.HasPrefix(ex.ContentType, "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(ex.Body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "data: "); ok {
				chunks = append(chunks, []byte(data))
			}
		}
		require.NoError(t, sc.Err())
	} else {
		chunks = [][]byte{ex.Body}
	}
	var rec recorded
	var text, thoughts strings.Builder
	for _, c := range chunks {
		var g struct {
			Candidates []struct {
				Content struct {
					Parts []recordedPart `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
			ModelVersion string `json:"modelVersion"`
		}
		require.NoError(t, json.Unmarshal(c, &g))
		if g.ModelVersion != "" {
			rec.model = g.ModelVersion
		}
		for _, cand := range g.Candidates {
			for _, p := range cand.Content.Parts {
				switch {
				case p.FunctionCall != nil:
					rec.calls = append(rec.calls, recordedCall{id: p.FunctionCall.ID != "", sig: p.ThoughtSignature != ""})
				case p.Text != nil && p.Thought:
					thoughts.WriteString(*p.Text)
				case p.Text != nil:
					text.WriteString(*p.Text)
				}
				if p.ThoughtSignature != "" {
					rec.sigs = append(rec.sigs, p.ThoughtSignature)
				}
			}
		}
	}
	rec.text, rec.thoughts = text.String(), thoughts.String()
	return rec
}

// A conversation follows the replies of a recorded conversation, to put
// the recorded requests in the forms this package sends.
type conversation struct {
	replies []replyAt
	dropIDs map[string]bool
}

// replyAt is a reply's calls and the index of the model content that
// stands for it in the requests after it.
type replyAt struct {
	at    int
	calls []recordedCall
}

// replied records the reply of exchange ex, whose request holds the
// contents before it.
func (c *conversation) replied(t *testing.T, ex providertest.CloudExchange) {
	t.Helper()
	if ex.Status != 200 {
		return
	}
	c.replies = append(c.replies, replyAt{at: len(parseRecorded(t, ex.Request).Contents), calls: recordedReply(t, ex).calls})
}

// sentAs puts a recorded request body in the forms this package sends
// where the API reads both the same, each for a reason:
//   - a declaration's "parameters_json_schema" is "parametersJsonSchema",
//     the API's JSON name for it (the recording client wrote the proto
//     field's name, which the API also reads); an older client's
//     "parameters", an OpenAPI schema with upper-case types, is compared
//     as the JSON Schema it stands for, the one chatRequest offered;
//     an empty "description" is left out: the field is optional;
//   - thinkingConfig's snake_case keys are its camelCase JSON names, and
//     an empty generationConfig is left out, as this package writes none;
//   - a thoughtSignature the recording client re-encoded in URL-safe
//     base64 (it holds them as bytes) is the same bytes in standard base64,
//     the API's form, which this package sends back unchanged;
//   - in a model content that stands for a reply, a call id the reply did
//     not have (the recording client made one up) is left out, there and
//     in the functionResponse that answers it: this package never sends
//     an id the API did not give; so is the signature the client added
//     to a call the API sent without one (skip_thought_signature_validator),
//     since this package sends the API's call back as it came;
//   - a result is {"output": v} where the client wrote {"return_value":
//     v}, the key the API reference gives; a value other than a string,
//     object or array is its JSON text, as chat.Message holds a result as
//     text.
//
// The contents are otherwise compared as they are: roles, the order and
// grouping of parts, ids, arguments, thoughts, and each signature on its
// part.
func (c *conversation) sentAs(t *testing.T, recorded, sent []byte) (want, got []byte) {
	t.Helper()
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(recorded, &w))
	require.NoError(t, json.Unmarshal(sent, &g))
	tools, _ := w["tools"].([]any)
	for _, tool := range tools {
		decls, _ := tool.(map[string]any)["functionDeclarations"].([]any)
		for _, d := range decls {
			d := d.(map[string]any)
			if d["description"] == "" {
				delete(d, "description")
			}
			if s, ok := d["parameters_json_schema"]; ok {
				d["parametersJsonSchema"] = s
				delete(d, "parameters_json_schema")
			}
			if s, ok := d["parameters"]; ok {
				raw, err := json.Marshal(s)
				require.NoError(t, err)
				var v any
				require.NoError(t, json.Unmarshal(jsonSchemaOf(t, raw), &v))
				d["parametersJsonSchema"] = v
				delete(d, "parameters")
			}
		}
	}
	if gc, ok := w["generationConfig"].(map[string]any); ok {
		if tc, ok := gc["thinkingConfig"]; ok {
			raw, err := json.Marshal(tc)
			require.NoError(t, err)
			var v any
			require.NoError(t, json.Unmarshal(camelKeys(t, raw), &v))
			gc["thinkingConfig"] = v
		}
		if len(gc) == 0 {
			delete(w, "generationConfig")
		}
	}
	contents, _ := w["contents"].([]any)
	if c.dropIDs == nil {
		c.dropIDs = map[string]bool{}
	}
	for _, r := range c.replies {
		require.Less(t, r.at, len(contents))
		parts := contents[r.at].(map[string]any)["parts"].([]any)
		n := 0
		for _, p := range parts {
			p := p.(map[string]any)
			fc, ok := p["functionCall"].(map[string]any)
			if !ok {
				continue
			}
			require.Less(t, n, len(r.calls), "the reply's calls")
			if id, ok := fc["id"].(string); ok && !r.calls[n].id {
				c.dropIDs[id] = true
			}
			if !r.calls[n].sig && p["thoughtSignature"] == skipSignature {
				delete(p, "thoughtSignature")
			}
			n++
		}
	}
	for _, content := range contents {
		parts, _ := content.(map[string]any)["parts"].([]any)
		for _, p := range parts {
			p := p.(map[string]any)
			for _, k := range []string{"functionCall", "functionResponse"} {
				if f, ok := p[k].(map[string]any); ok {
					if id, _ := f["id"].(string); c.dropIDs[id] {
						delete(f, "id")
					}
				}
			}
			if s, ok := p["thoughtSignature"].(string); ok {
				p["thoughtSignature"] = stdBase64(t, s)
			}
			if fr, ok := p["functionResponse"].(map[string]any); ok {
				resp := fr["response"].(map[string]any)
				if v, ok := resp["return_value"]; ok {
					switch v.(type) {
					case string, map[string]any, []any:
					default:
						b, err := json.Marshal(v)
						require.NoError(t, err)
						v = string(b)
					}
					fr["response"] = map[string]any{"output": v}
				}
			}
		}
	}
	want, err := json.Marshal(w)
	require.NoError(t, err)
	got, err = json.Marshal(g)
	require.NoError(t, err)
	return want, got
}

// stdBase64 is a signature in standard base64, whichever base64 it is in.
func stdBase64(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.URLEncoding.DecodeString(s)
	}
	require.NoError(t, err, "signature %q is not base64", s)
	return base64.StdEncoding.EncodeToString(b)
}
