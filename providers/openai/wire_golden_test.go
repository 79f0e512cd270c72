package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// wireModel is the model name of the requests in TestWireJSONMatchesProvider.
const wireModel = "gpt-test"

// TestWireJSONMatchesProvider holds toolcalltest.WireJSON to what it
// promises: the bytes the provider sends for the same request, with the
// provider's default settings. testdata/wire pins the bodies themselves;
// -update rewrites them.
func TestWireJSONMatchesProvider(t *testing.T) {
	t.Parallel()
	weather := []chat.ToolDefinition{shortWeatherTool}
	askParis := chat.UserMessage("What is the weather in Paris?")
	paris := call("call_1", "get_weather", `{"city":"Paris"}`)
	for _, tc := range []struct {
		name string
		req  *chat.Request
	}{
		{name: "system message", req: &chat.Request{Messages: []chat.Message{
			chat.SystemMessage("You are terse. Use <b>bold</b> & \u2028 sparingly."), chat.UserMessage("Hi there, é!"),
		}}},
		{name: "empty arguments", req: &chat.Request{Tools: []chat.ToolDefinition{nowTool}, Messages: []chat.Message{
			chat.UserMessage("What time is it?"),
			chat.AssistantMessage("", call("call_1", "now", ""), call("call_2", "now", "  ")),
			chat.ToolMessage(call("call_1", "now", ""), "noon"),
			chat.ToolMessage(call("call_2", "now", ""), "noon"),
		}}},
		{name: "null arguments", req: &chat.Request{Tools: []chat.ToolDefinition{nowTool}, Messages: []chat.Message{
			chat.UserMessage("What time is it?"),
			chat.AssistantMessage("", call("call_1", "now", "null")),
			chat.ToolMessage(call("call_1", "now", ""), "noon"),
		}}},
		{name: "object arguments", req: &chat.Request{Tools: []chat.ToolDefinition{weatherTool}, Messages: []chat.Message{
			askParis,
			// The model's text is sent as it wrote it, spaces and all.
			chat.AssistantMessage("", call("call_1", "get_weather", `{"city": "Paris", "unit":"celsius", "options":{"days":1,"detail":{"wind":true}}}`)),
			chat.ToolMessage(call("call_1", "get_weather", ""), `{"temperature":21}`),
		}}},
		{name: "text with tool calls", req: &chat.Request{Tools: weather, Messages: []chat.Message{
			chat.UserMessage("Weather in Paris and Lyon?"),
			chat.AssistantMessage("Let me check both.", paris, call("call_2", "get_weather", `{"city":"Lyon"}`)),
			chat.ToolMessage(paris, "sunny"),
			chat.ToolMessage(call("call_2", "get_weather", ""), "rainy"),
		}}},
		{name: "tool results with an error", req: &chat.Request{Tools: weather, Messages: []chat.Message{
			askParis,
			chat.AssistantMessage("", paris, call("call_2", "get_weather", `{"town":"Paris"}`)),
			// ToolName and IsError have no Chat Completions field; an
			// empty result is still sent as content.
			{Role: chat.RoleTool, ToolCallID: "call_1", ToolName: "get_weather", Content: ""},
			{Role: chat.RoleTool, ToolCallID: "call_2", ToolName: "get_weather", IsError: true,
				Content: `invalid arguments: missing property "city"`},
			chat.AssistantMessage("It is sunny in Paris."),
		}}},
		{name: "strict tools", req: &chat.Request{Messages: []chat.Message{askParis}, Tools: []chat.ToolDefinition{
			{Name: "get_weather", Description: "Weather for a city <b>now</b> & later", Strict: true,
				InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string", "pattern": "^[^<>&]+$"}}, "required": ["city"], "additionalProperties": false}`)},
			{Name: "now", Strict: true},
			{Name: "noop", InputSchema: json.RawMessage("null")},
		}}},
		{name: "tool choice required", req: &chat.Request{Messages: []chat.Message{askParis}, Tools: weather,
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}, Options: chat.Options{ParallelToolCalls: ptr(false)}}},
		{name: "tool choice named", req: &chat.Request{Messages: []chat.Message{askParis}, Tools: []chat.ToolDefinition{shortWeatherTool, nowTool},
			ToolChoice: chat.ToolChoice{Name: "get_weather"}}},
		{name: "tool choice none", req: &chat.Request{Messages: []chat.Message{askParis}, Tools: weather,
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone}}},
		{name: "tool choice without tools", req: &chat.Request{Messages: []chat.Message{askParis},
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}, Options: chat.Options{ParallelToolCalls: ptr(true)}}},
		{name: "options", req: &chat.Request{Messages: []chat.Message{askParis}, Tools: weather, Options: chat.Options{
			Temperature: ptr(0.0), TopP: ptr(0.9), MaxTokens: ptr(300), Seed: ptr(7), Stop: []string{"END", "</done>"}, ParallelToolCalls: ptr(true),
		}}},
		{name: "options with extra", req: &chat.Request{Messages: []chat.Message{askParis}, Options: chat.Options{
			Temperature: ptr(0.2), MaxTokens: ptr(0), Stop: []string{},
			// Extra keys the body has, or that follow from the request,
			// are not set; the others are added, the body's keys sorted.
			Extra: map[string]any{"top_k": 40, "user": "<u&1>", "temperature": 1, "stream": true, "tools": []string{"x"},
				"chat_template_kwargs": map[string]any{"enable_thinking": false}},
		}}},
		{name: "reasoning and provider data", req: &chat.Request{Tools: weather, Messages: []chat.Message{
			askParis,
			{Role: chat.RoleAssistant, Reasoning: "The user wants <Paris>.\nCall the tool.",
				ProviderData: json.RawMessage(`{"not":"sent"}`), // Message.ProviderData has no OpenAI field
				ToolCalls: []chat.ToolCall{
					{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`),
						ProviderData: json.RawMessage(`{"google": {"thought_signature": "CiQB+/w=="}}`)},
					// Not an object: not this provider's data.
					{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`), ProviderData: json.RawMessage(`"sig"`)},
				}},
			chat.ToolMessage(call("call_0", "get_weather", ""), "sunny"),
			chat.ToolMessage(call("call_1", "get_weather", ""), "rainy"),
			// Reasoning is sent only with assistant messages.
			{Role: chat.RoleUser, Content: "And tomorrow?", Reasoning: "ignored"},
		}}},
		{name: "message thought signature", req: &chat.Request{Tools: weather, Messages: []chat.Message{
			askParis,
			// Gemini's OpenAI-compatible endpoint signs the message, not
			// the call, and wants both fields back on it.
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{paris},
				ProviderData: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"CiQB+/w=="}},"thought_signature":"CiQB+/w=="}`)},
			chat.ToolMessage(paris, "sunny"),
		}}},
		{name: "output schema", req: &chat.Request{Tools: weather, Messages: []chat.Message{askParis}, Output: &chat.OutputFormat{
			Name: "answer", Strict: true,
			Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`)}}},
		// Not strict: "strict" is left out, which the API reads as false.
		{name: "output schema not strict", req: &chat.Request{Tools: weather, Messages: []chat.Message{askParis}, Output: &chat.OutputFormat{
			Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","description":"One line"}},"required":["summary"]}`)}}},
		{name: "tool context", req: toolContextRequest(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.req.Model == "" {
				tc.req.Model = wireModel
			}
			want := toolcalltest.WireJSON(tc.req)
			got := sentBody(t, tc.req, false)
			assert.Equal(t, string(want), string(got), "WireJSON differs from the provider's body")
			checkStreamBody(t, want, sentBody(t, tc.req, true))
			checkWireGolden(t, providertest.Slug(tc.name), got)
		})
	}
}

// toolContextRequest runs a prompt with a ToolContext through a Client and
// returns the second request it sent, after the tool ran: the context
// reaches the tool, never the request.
func toolContextRequest(t *testing.T) *chat.Request {
	var seen string
	account, err := toolcall.NewTool(chat.ToolDefinition{Name: "balance", Description: "The caller's balance"},
		func(ctx context.Context, _ json.RawMessage) (string, error) {
			seen, _ = toolcall.ToolContextFrom(ctx).Value("userId").(string)
			return "42.00 EUR", nil
		})
	require.NoError(t, err)
	model := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "balance", "")),
		toolcalltest.Text("You have 42.00 EUR."),
	)
	client := toolcall.NewClient(model)
	ctx := toolcall.ContextWithToolContext(context.Background(), toolcall.NewToolContext(map[string]any{"tenantId": "tenant-secret"}))
	_, err = client.Prompt("What's my balance?").Model(wireModel).Tools(account).
		ToolContext(map[string]any{"userId": "user-secret"}).Call(ctx)
	require.NoError(t, err)
	require.Equal(t, "user-secret", seen)
	reqs, bodies := model.Requests(), model.RequestBodies()
	require.Len(t, reqs, 2)
	for _, body := range bodies {
		for _, secret := range []string{"tenantId", "tenant-secret", "userId", "user-secret"} {
			assert.NotContains(t, string(body), secret)
		}
	}
	assert.Equal(t, string(toolcalltest.WireJSON(reqs[1])), string(bodies[1]))
	return reqs[1]
}

// sentBody sends req with a provider at its default settings (model
// "tiny", used only when req has none) and returns the body the server
// received.
func sentBody(t *testing.T, req *chat.Request, stream bool) []byte {
	t.Helper()
	c := &providertest.Capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.Add(r)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`))
	}))
	defer srv.Close()
	m := newModel(srv, openai.Config{})
	var err error
	if stream {
		_, err = m.Stream(context.Background(), req, nil)
	} else {
		_, err = m.Chat(context.Background(), req)
	}
	require.NoError(t, err)
	return c.Get(t, 0).Body
}

// checkStreamBody compares a streamed request's body with WireJSON's, which
// renders Chat's: they differ in exactly "stream" and "stream_options".
func checkStreamBody(t *testing.T, wire, streamed []byte) {
	t.Helper()
	var w, s map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(wire, &w))
	require.NoError(t, json.Unmarshal(streamed, &s))
	assert.Equal(t, "false", string(w["stream"]))
	assert.Equal(t, "true", string(s["stream"]))
	assert.Equal(t, `{"include_usage":true}`, string(s["stream_options"]))
	delete(w, "stream")
	delete(s, "stream")
	delete(s, "stream_options")
	assert.Len(t, s, len(w), "fields")
	for k, v := range w {
		assert.Equal(t, string(v), string(s[k]), "field %s of the streamed request", k)
	}
}

// checkWireGolden compares a body with testdata/wire/NAME.json, or rewrites
// the file with -update.
func checkWireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "wire", name+".json")
	if *update {
		var buf bytes.Buffer
		require.NoError(t, json.Indent(&buf, bytes.TrimSpace(got), "", "  "))
		buf.WriteByte('\n')
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test ./providers/openai -update")
	assert.JSONEq(t, string(want), string(got), "request body differs from %s", path)
}

// TestWireJSONDifferences pins the differences WireJSON documents: the
// model name it cannot know, and max_completion_tokens on api.openai.com.
func TestWireJSONDifferences(t *testing.T) {
	t.Parallel()
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}, Options: chat.Options{MaxTokens: ptr(64)}}

	// Without Request.Model, the provider sends its configured model.
	wire := string(toolcalltest.WireJSON(req))
	assert.Equal(t, strings.Replace(wire, `"model":""`, `"model":"tiny"`, 1), string(sentBody(t, req, false)))

	// To OpenAI itself, MaxTokens is max_completion_tokens, in the same
	// place.
	plain := providertest.LoadRecording(t, "llamacpp/b_plain")
	sent := &providertest.Capture{}
	m := openai.New(openai.Config{BaseURL: openai.DefaultBaseURL, APIKey: testKey, Model: "o3-mini",
		HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: plain.ContentType, body: plain.Body, sent: sent}}})
	req.Model = "o3-mini"
	_, err := m.Chat(context.Background(), req)
	require.NoError(t, err)
	wire = string(toolcalltest.WireJSON(req))
	assert.Equal(t, strings.Replace(wire, `"max_tokens":`, `"max_completion_tokens":`, 1), string(sent.Get(t, 0).Body))
}
