package openairesponses_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The helpers of TestCloudRecordings: a recorded request body turned into
// chat messages and a chat.Request, the recorded body made comparable with
// the one this package sends, and a reply or error described for its
// golden file.

// recordedRequest is the part of a recorded request body the tests read.
type recordedRequest struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions"`
	Input           recordedInput     `json:"input"`
	Tools           []json.RawMessage `json:"tools"`
	ToolChoice      json.RawMessage   `json:"tool_choice"`
	Temperature     *float64          `json:"temperature"`
	TopP            *float64          `json:"top_p"`
	MaxOutputTokens *int              `json:"max_output_tokens"`
	Reasoning       json.RawMessage   `json:"reasoning"`
	Include         []string          `json:"include"`
	ServiceTier     string            `json:"service_tier"`
	Stream          bool              `json:"stream"`
}

// recordedInput is a request's input: a list of items, or a string, which
// is one user message.
type recordedInput []json.RawMessage

func (in *recordedInput) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		msg, err := json.Marshal(map[string]string{"role": "user", "content": s})
		*in = recordedInput{msg}
		return err
	}
	return json.Unmarshal(b, (*[]json.RawMessage)(in))
}

func readRecorded(t testing.TB, body []byte) recordedRequest {
	t.Helper()
	var r recordedRequest
	require.NoError(t, json.Unmarshal(body, &r))
	return r
}

// inputItem is an input item of a recorded request, as far as the tests
// convert it: a message (Role, Content as a string) or a tool result.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  string          `json:"output"`
}

// recordedMessage converts a recorded message or tool result to a chat
// message; ok is false for the items a reply produced (reasoning,
// function_call, an output message).
func recordedMessage(t testing.TB, raw json.RawMessage) (chat.Message, bool) {
	t.Helper()
	var it inputItem
	require.NoError(t, json.Unmarshal(raw, &it))
	if it.Type == "function_call_output" {
		return chat.Message{Role: chat.RoleTool, ToolCallID: it.CallID, Content: it.Output}, true
	}
	if it.Type != "" && it.Type != "message" {
		return chat.Message{}, false
	}
	var text string
	if json.Unmarshal(it.Content, &text) != nil {
		return chat.Message{}, false // an output message: content parts
	}
	switch it.Role {
	case "user":
		return chat.UserMessage(text), true
	case "system":
		return chat.SystemMessage(text), true
	case "assistant":
		return chat.AssistantMessage(text), true
	}
	t.Fatalf("recorded input item with role %q", it.Role)
	return chat.Message{}, false
}

// newInput returns the chat messages of the input a recorded request adds
// to a conversation: its last items that are user or system messages or
// tool results.
func newInput(t testing.TB, rec recordedRequest) []chat.Message {
	t.Helper()
	var msgs []chat.Message
	for i := len(rec.Input) - 1; i >= 0; i-- {
		m, ok := recordedMessage(t, rec.Input[i])
		if !ok || m.Role == chat.RoleAssistant {
			break
		}
		msgs = append([]chat.Message{m}, msgs...)
	}
	return msgs
}

// requestFrom builds the chat.Request a caller of this package would make
// for a recorded request with no reply in it: its instructions as a system
// message, its messages (input given as a string is one user message),
// tools, tool choice and options. "reasoning" (without its null fields)
// and "service_tier" go in Options.Extra, and so does "include" when it
// differs from what "reasoning" brings: with no reasoning, the caller
// asks for it; with reasoning but no include, the caller asks for none.
func requestFrom(t testing.TB, rec recordedRequest) *chat.Request {
	t.Helper()
	req := &chat.Request{Model: rec.Model}
	if rec.Instructions != "" {
		req.Messages = append(req.Messages, chat.SystemMessage(rec.Instructions))
	}
	for _, raw := range rec.Input {
		m, ok := recordedMessage(t, raw)
		require.True(t, ok, "a first request holds only messages: %s", raw)
		req.Messages = append(req.Messages, m)
	}
	for _, raw := range rec.Tools {
		var tl struct {
			Name        string          `json:"name"`
			Description *string         `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Strict      bool            `json:"strict"`
		}
		require.NoError(t, json.Unmarshal(raw, &tl))
		d := chat.ToolDefinition{Name: tl.Name, InputSchema: tl.Parameters, Strict: tl.Strict}
		if tl.Description != nil {
			d.Description = *tl.Description
		}
		req.Tools = append(req.Tools, d)
	}
	var mode string
	if json.Unmarshal(rec.ToolChoice, &mode) == nil {
		req.ToolChoice.Mode = chat.ToolChoiceMode(mode)
	} else if len(rec.ToolChoice) > 0 {
		// {"type":"allowed_tools","mode":"required",...} has no chat
		// equivalent: the closest is "required".
		req.ToolChoice.Mode = chat.ToolChoiceRequired
	}
	o := &req.Options
	o.Temperature, o.TopP, o.MaxTokens = rec.Temperature, rec.TopP, rec.MaxOutputTokens
	extra := map[string]any{}
	var reasoning map[string]any
	if len(rec.Reasoning) > 0 {
		require.NoError(t, json.Unmarshal(rec.Reasoning, &reasoning))
	}
	for k, v := range reasoning {
		if v == nil {
			delete(reasoning, k)
		}
	}
	switch {
	case reasoning != nil:
		extra["reasoning"] = reasoning
		if rec.Include == nil {
			extra["include"] = []string{}
		}
	case rec.Include != nil:
		extra["include"] = rec.Include
	}
	if rec.ServiceTier != "" {
		extra["service_tier"] = rec.ServiceTier
	}
	if len(extra) > 0 {
		o.Extra = extra
	}
	return req
}

// comparableInput returns the input items of a request body as JSON
// values, made comparable between a recorded body and the one this
// package sent by these normalizations, each a difference the API
// accepted both ways:
//   - an input given as a string is one user message (recordedInput);
//   - a message without "type" gets "type": "message": this package types
//     every item, as the API's item union is told apart by type;
//   - "status": null and an empty "content" list are left out of
//     function_call and reasoning items: the recording client wrote its
//     own items with them or without them, this package sends a
//     reasoning item as received (a stream's has "content": []) and
//     function calls without status;
//   - an empty assistant message, which the recording client sent for a
//     reply without text, is left out: this package sends no empty item;
//   - strings have the curly quotes folded to ASCII, as the recorder did
//     to the request bodies it kept (streams are kept byte for byte);
//   - call ids are renamed by ids (the recording client of one fixture
//     sent the function_call item's id as its call_id).
func comparableInput(t testing.TB, body []byte, ids map[string]string) []any {
	t.Helper()
	var out []any
	for _, raw := range readRecorded(t, body).Input {
		var it map[string]any
		require.NoError(t, json.Unmarshal(raw, &it))
		if _, typed := it["type"]; !typed {
			it["type"] = "message"
		}
		if st, ok := it["status"]; ok && st == nil {
			delete(it, "status")
		}
		if c, ok := it["content"].([]any); ok && len(c) == 0 && it["type"] == "reasoning" {
			delete(it, "content")
		}
		if it["type"] == "message" && it["role"] == "assistant" && it["content"] == "" {
			continue
		}
		if id, ok := it["call_id"].(string); ok && ids[id] != "" {
			it["call_id"] = ids[id]
		}
		out = append(out, foldQuotes(it))
	}
	return out
}

var quoteFolder = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`)

func foldQuotes(v any) any {
	switch v := v.(type) {
	case string:
		return quoteFolder.Replace(v)
	case []any:
		for i := range v {
			v[i] = foldQuotes(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = foldQuotes(v[k])
		}
	}
	return v
}

// replySummary is what a golden file under testdata/golden/cloud says of
// one exchange: the reply (its text, reasoning, calls, finish reason,
// usage, model, and the output items it keeps to send back, in order), or
// the error.
type replySummary struct {
	Content      string          `json:"content,omitempty"`
	Reasoning    string          `json:"reasoning,omitempty"`
	ToolCalls    []chat.ToolCall `json:"tool_calls,omitempty"`
	FinishReason string          `json:"finish_reason,omitempty"`
	Usage        *chat.Usage     `json:"usage,omitempty"`
	Model        string          `json:"model,omitempty"`
	// Output lists the kept output items: "reasoning rs_...",
	// "message msg_... commentary", "call 0 fc_...".
	Output []string      `json:"output,omitempty"`
	Error  *errorSummary `json:"error,omitempty"`
}

type errorSummary struct {
	Sentinel  string `json:"sentinel"`
	Status    int    `json:"status"`
	Message   string `json:"message"`
	RequestID string `json:"request_id,omitempty"`
}

var sentinels = map[string]error{
	"ErrBadRequest": chat.ErrBadRequest, "ErrModelNotFound": chat.ErrModelNotFound,
	"ErrQuotaExceeded": chat.ErrQuotaExceeded, "ErrRateLimited": chat.ErrRateLimited,
	"ErrUnauthorized": chat.ErrUnauthorized, "ErrServer": chat.ErrServer,
	"ErrToolsNotSupported": chat.ErrToolsNotSupported, "ErrBadResponse": chat.ErrBadResponse,
}

func summarize(t testing.TB, resp *chat.Response, err error) replySummary {
	t.Helper()
	if err != nil {
		var pe *chat.ProviderError
		require.ErrorAs(t, err, &pe)
		es := &errorSummary{Status: pe.StatusCode, Message: pe.Message, RequestID: pe.RequestID}
		for name, s := range sentinels {
			if errors.Is(err, s) {
				require.Empty(t, es.Sentinel, "the error wraps %s and %s", es.Sentinel, name)
				es.Sentinel = name
			}
		}
		return replySummary{Error: es}
	}
	s := replySummary{
		Content: resp.Message.Content, Reasoning: resp.Message.Reasoning, ToolCalls: resp.Message.ToolCalls,
		FinishReason: string(resp.FinishReason), Usage: &resp.Usage, Model: resp.Model,
	}
	if len(resp.Message.ProviderData) > 0 {
		var pd struct {
			R struct {
				Output []struct {
					Item json.RawMessage
					Call *int
					ID   string
				}
			} `json:"openai_responses"`
		}
		require.NoError(t, json.Unmarshal(resp.Message.ProviderData, &pd))
		for _, e := range pd.R.Output {
			if e.Call != nil {
				s.Output = append(s.Output, strings.TrimSpace(fmt.Sprintf("call %d %s", *e.Call, e.ID)))
				continue
			}
			var it struct{ Type, ID, Phase string }
			require.NoError(t, json.Unmarshal(e.Item, &it))
			s.Output = append(s.Output, strings.TrimSpace(it.Type+" "+it.ID+" "+it.Phase))
		}
	}
	return s
}

// checkCloudGolden compares a summary with testdata/golden/cloud/NAME.json,
// or writes the file with -update; the files written were checked by hand
// against the recorded bodies.
func checkCloudGolden(t testing.TB, name string, s replySummary) {
	t.Helper()
	got, err := json.MarshalIndent(s, "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", "golden", "cloud", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update in the package")
	assert.JSONEq(t, string(bytes.TrimSpace(want)), string(got), "reply differs from %s", path)
}
