package openairesponses_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

var update = flag.Bool("update", false, "rewrite the golden request files under testdata/golden")

var (
	strictTool = chat.ToolDefinition{Name: "book", Description: "Book a table", Strict: true,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"time":{"type":["string","null"]}},"required":["time"],"additionalProperties":false}`)}
	nowTool = chat.ToolDefinition{Name: "now", Description: "Current time"}
)

// TestRequestMapping pins the body sent for each kind of request in
// testdata/golden (go test -update rewrites them); checkSDK checks each
// against openai-go's types.
func TestRequestMapping(t *testing.T) {
	t.Parallel()
	paris := call("call_P", "get_weather", `{"city":"Paris"}`)
	for _, tc := range []struct {
		name   string
		stream bool
		req    *chat.Request
	}{
		{
			// The system messages that open the conversation are its
			// instructions; a later one stays in place.
			name: "system and options",
			req: &chat.Request{Messages: []chat.Message{
				chat.SystemMessage("You are terse."), chat.SystemMessage("Answer in French."),
				chat.UserMessage("Hi"), chat.AssistantMessage("Bonjour"),
				chat.SystemMessage("Now answer in English."), chat.UserMessage("Again"),
			}, Options: chat.Options{Temperature: ptr(0.2), TopP: ptr(0.9), MaxTokens: ptr(300)}},
		},
		{
			name: "tools",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Book at 8")},
				Tools:      []chat.ToolDefinition{weatherTool, strictTool, nowTool},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired},
				Options:    chat.Options{ParallelToolCalls: ptr(false)}},
		},
		{
			name: "named tool choice", stream: true,
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather?")},
				Tools: []chat.ToolDefinition{weatherTool}, ToolChoice: chat.ToolChoice{Name: "get_weather"}},
		},
		{
			name: "tool choice none",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather?")},
				Tools: []chat.ToolDefinition{weatherTool}, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone}},
		},
		{
			// No tools: tool_choice and parallel_tool_calls are not sent.
			name: "choice without tools",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceAuto}, Options: chat.Options{ParallelToolCalls: ptr(true)}},
		},
		{
			// Text and calls of one assistant message; empty arguments
			// become {}; an empty result and a failed one are sent as
			// they are (the API has no error flag).
			name: "calls and results",
			req: &chat.Request{Messages: []chat.Message{
				chat.UserMessage("Weather and time?"),
				chat.AssistantMessage("Let me check.", paris, chat.ToolCall{ID: "call_N", Name: "now"}),
				chat.ToolMessage(paris, ""),
				{Role: chat.RoleTool, ToolCallID: "call_N", ToolName: "now", Content: "clock broken", IsError: true},
			}, Tools: []chat.ToolDefinition{weatherTool, nowTool}},
		},
		{
			// Another provider's data in ProviderData is not sent, nor is
			// Reasoning without reasoning items.
			name: "other provider data",
			req: &chat.Request{Messages: []chat.Message{
				chat.UserMessage("Weather?"),
				{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{paris}, Reasoning: "thinking about Paris",
					ProviderData: json.RawMessage(`[{"type":"thinking","thinking":"Paris?","signature":"EqQBCkgIBxABGAIiQL"}]`)},
				chat.ToolMessage(paris, "sunny"),
				{Role: chat.RoleAssistant, Content: "Sunny.", ProviderData: json.RawMessage(`{"anthropic":{"blocks":[]}}`)},
				chat.UserMessage("Thanks"),
			}},
		},
		{
			// A typed answer, natively: text.format json_schema beside
			// the tools; "strict" is left out when false.
			name: "output schema",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather in Paris?")}, Tools: []chat.ToolDefinition{weatherTool},
				Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","description":"One line"}},"required":["summary"]}`)}},
		},
		{
			name: "output schema strict", stream: true,
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather in Paris?")}, Tools: []chat.ToolDefinition{weatherTool},
				Output: &chat.OutputFormat{Name: "answer", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`)}},
		},
		{
			// Extra adds top-level fields the request does not set.
			name: "extra",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Options: chat.Options{
				Temperature: ptr(1.0),
				Extra: map[string]any{
					"reasoning":            map[string]any{"effort": "high", "summary": "auto"},
					"service_tier":         "flex",
					"temperature":          0.5,      // set by Options: ignored
					"store":                true,     // always false: ignored
					"model":                "x",      // reserved
					"input":                "x",      // reserved
					"previous_response_id": "resp_1", // reserved: the whole conversation is sent
				}}},
		},
		{
			// A caller's include replaces the one reasoning brings, and
			// is sent without reasoning too (a reasoning model used
			// with its default settings).
			name: "own include",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Options: chat.Options{
				Extra: map[string]any{"include": []string{"reasoning.encrypted_content", "message.output_text.logprobs"}}}},
		},
		{
			// An empty include sends none, even with reasoning.
			name: "no include",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Options: chat.Options{
				Extra: map[string]any{"reasoning": map[string]any{"effort": "low"}, "include": []string{}}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, map[bool]string{false: "llamacpp/e_unknown_model", true: "llamacpp/d_plain_stream"}[tc.stream])
			m := newModel(srv, openairesponses.Config{Model: "gpt-5-mini"})
			var err error
			if tc.stream {
				_, err = m.Stream(context.Background(), tc.req, nil)
			} else {
				_, err = m.Chat(context.Background(), tc.req)
			}
			require.NoError(t, err)
			providertest.CheckGolden(t, providertest.Slug(tc.name), got.Get(t, 0).Body, *update)
		})
	}
}

// TestInvalidRequest: requests that cannot be sent as asked are refused
// with chat.ErrBadRequest, naming what is wrong, and nothing is sent.
func TestInvalidRequest(t *testing.T) {
	t.Parallel()
	hi := []chat.Message{chat.UserMessage("Hi")}
	rs := func(pd string) []chat.Message {
		return []chat.Message{chat.UserMessage("Hi"),
			{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call("call_1", "now", "{}")}, ProviderData: json.RawMessage(pd)},
			{Role: chat.RoleTool, ToolCallID: "call_1", Content: "noon"}}
	}
	for _, tc := range []struct {
		name    string
		cfg     openairesponses.Config
		req     *chat.Request
		model   string
		wantMsg string
	}{
		{name: "nil", req: nil, model: "tiny-toolcaller", wantMsg: "nil request"},
		{name: "no model", cfg: openairesponses.Config{Model: "-"}, req: &chat.Request{Messages: hi}, wantMsg: "no model: set Config.Model or Request.Model"},
		{name: "stop", req: &chat.Request{Messages: hi, Options: chat.Options{Stop: []string{"\n"}}}, model: "tiny-toolcaller",
			wantMsg: "Options.Stop: the Responses API has no stop sequences"},
		{name: "seed", req: &chat.Request{Messages: hi, Options: chat.Options{Seed: ptr(7)}}, model: "tiny-toolcaller",
			wantMsg: "Options.Seed: the Responses API has no seed"},
		{name: "tool message without id", req: &chat.Request{Messages: append(hi, chat.Message{Role: chat.RoleTool, Content: "x"})},
			model: "tiny-toolcaller", wantMsg: "message 1: a tool message needs the ToolCallID of its call"},
		{name: "call without id", req: &chat.Request{Messages: append(hi, chat.AssistantMessage("", chat.ToolCall{Name: "now"}))},
			model: "tiny-toolcaller", wantMsg: `message 1: tool call 0 ("now") has no ID`},
		{name: "unknown role", req: &chat.Request{Messages: append(hi, chat.Message{Role: "developer", Content: "x"})},
			model: "tiny-toolcaller", wantMsg: `message 1: unknown role "developer"`},
		{name: "schema not JSON", req: &chat.Request{Messages: hi, Tools: []chat.ToolDefinition{{Name: "f", InputSchema: json.RawMessage(`{"type":`)}}},
			model: "tiny-toolcaller", wantMsg: `tool "f": input schema is not valid JSON`},
		{name: "extra not JSON", req: &chat.Request{Messages: hi, Options: chat.Options{Extra: map[string]any{"f": func() {}}}},
			model: "tiny-toolcaller", wantMsg: `Options.Extra: key "f": json: unsupported type: func()`},
		{name: "provider data: not a reasoning or message item", req: &chat.Request{Messages: rs(`{"openai_responses":{"output":[{"item":{"type":"function_call_output"}}]}}`)},
			model: "tiny-toolcaller", wantMsg: `message 1: ProviderData: output entry 0 is not a reasoning or message item`},
		{name: "provider data: item and call", req: &chat.Request{Messages: rs(`{"openai_responses":{"output":[{"call":0,"item":{"type":"reasoning"}}]}}`)},
			model: "tiny-toolcaller", wantMsg: `message 1: ProviderData: output entry 0 must hold either an item or a call`},
		{name: "provider data: call out of range", req: &chat.Request{Messages: rs(`{"openai_responses":{"output":[{"item":{"type":"reasoning","id":"rs_1","encrypted_content":"x"}},{"call":1}]}}`)},
			model: "tiny-toolcaller", wantMsg: "message 1: ProviderData: output entry 1 names tool call 1, but the message has 1"},
		{name: "provider data: call twice", req: &chat.Request{Messages: rs(`{"openai_responses":{"output":[{"call":0},{"call":0}]}}`)},
			model: "tiny-toolcaller", wantMsg: "message 1: ProviderData: tool call 0 appears twice"},
		{name: "provider data: negative call", req: &chat.Request{Messages: rs(`{"openai_responses":{"output":[{"item":{"type":"reasoning","id":"rs_1","encrypted_content":"x"}},{"call":-1}]}}`)},
			model: "tiny-toolcaller", wantMsg: "message 1: ProviderData: output entry 1 names tool call -1"},
		{name: "provider data: unknown field", req: &chat.Request{Messages: rs(`{"openai_responses":{"reasoning":[]}}`)},
			model: "tiny-toolcaller", wantMsg: `message 1: ProviderData: "openai_responses" is not this package's data: json: unknown field "reasoning"`},
		{name: "provider data: not an object", req: &chat.Request{Messages: rs(`{"openai_responses":[1]}`)},
			model: "tiny-toolcaller", wantMsg: `message 1: ProviderData: "openai_responses" is not this package's data: json: cannot unmarshal array into Go value of type openairesponses.providerData`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, "llamacpp/e_unknown_model")
			cfg := tc.cfg
			if cfg.Model == "-" { // no model at all
				cfg.Model = ""
			}
			cfg.BaseURL = srv.URL + "/v1"
			cfg.HTTPClient = srv.Client()
			cfg.APIKey = testKey
			if cfg.Model == "" && tc.model != "" {
				cfg.Model = tc.model
			}
			m := openairesponses.New(cfg)
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					_, err = m.Stream(context.Background(), tc.req, nil)
				} else {
					_, err = m.Chat(context.Background(), tc.req)
				}
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, tc.model)
				assert.Equal(t, tc.wantMsg, pe.Message)
				assert.Zero(t, pe.Attempts, "nothing sent")
			}
			assert.Zero(t, got.Count())
		})
	}
}

// TestHeaders: the key as a bearer token, JSON in, JSON or events out.
func TestHeaders(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "llamacpp/e_unknown_model", "llamacpp/d_plain_stream")
	m := newModel(srv, openairesponses.Config{})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}
	_, err := m.Chat(context.Background(), req)
	require.NoError(t, err)
	_, err = m.Stream(context.Background(), req, nil)
	require.NoError(t, err)
	for i, accept := range []string{"application/json", "text/event-stream"} {
		h := got.Get(t, i).Header
		assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
		assert.Equal(t, "application/json", h.Get("Content-Type"))
		assert.Equal(t, accept, h.Get("Accept"))
	}
}

// TestEnvironment: OPENAI_BASE_URL and OPENAI_API_KEY fill an empty
// Config; no key, no Authorization header.
func TestEnvironment(t *testing.T) {
	srv, got := replay(t, "llamacpp/e_unknown_model")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1/")
	t.Setenv("OPENAI_API_KEY", " sk-from-env ")
	m := openairesponses.New(openairesponses.Config{Model: "m", HTTPClient: srv.Client()})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk-from-env", got.Get(t, 0).Header.Get("Authorization"))

	t.Setenv("OPENAI_API_KEY", "")
	m = openairesponses.New(openairesponses.Config{Model: "m", HTTPClient: srv.Client()})
	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	require.NoError(t, err)
	assert.NotContains(t, got.Get(t, 1).Header, http.CanonicalHeaderKey("Authorization"))

	// Config wins over the environment.
	t.Setenv("OPENAI_BASE_URL", "http://nowhere.invalid/v1")
	m = openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-config-key", Model: "m", HTTPClient: srv.Client()})
	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk-config-key", got.Get(t, 2).Header.Get("Authorization"))
}

// TestBaseURLEndpointPath: a BaseURL copied with an endpoint's path, this
// API's or another's, is taken for the API root before it, so requests
// go to .../v1/responses rather than fail with a 404.
func TestBaseURLEndpointPath(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"", "/", "/responses", "/responses/", "/chat/completions", "/completions", "/messages"} {
		t.Run(suffix, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, "llamacpp/e_unknown_model")
			m := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1" + suffix, Model: "m", HTTPClient: srv.Client()})
			_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
			require.NoError(t, err)
			assert.Equal(t, responsesPath, got.Get(t, 0).Path)
			assert.Equal(t, "openairesponses.Model("+srv.URL+"/v1/responses, model m)", m.String())
		})
	}
}
