package gemini_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/gemini"
)

// okText is a reply of plain text.
var okText = textChunk("ok", "STOP")

// sendOne sends req through Chat to a server that answers okText and
// returns the body it received.
func sendOne(t *testing.T, cfg gemini.Config, req *chat.Request) []byte {
	t.Helper()
	srv, c := serve(t, reply(okText))
	_, err := newModel(srv, cfg).Chat(context.Background(), req)
	require.NoError(t, err)
	return c.Get(t, 0).Body
}

// TestKeyAndURL: the key goes in x-goog-api-key, never in the URL; Chat
// posts to :generateContent and Stream to :streamGenerateContent?alt=sse;
// a model's "models/" prefix is kept, not doubled.
func TestKeyAndURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, model, path, query string
		stream                   bool
	}{
		{name: "chat", model: "gemini-2.5-flash", path: "/v1beta/models/gemini-2.5-flash:generateContent"},
		{name: "stream", model: "gemini-2.5-flash", stream: true, path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent", query: "alt=sse"},
		{name: "models prefix", model: "models/gemini-2.5-pro", path: "/v1beta/models/gemini-2.5-pro:generateContent"},
		{name: "tuned model", model: "tunedModels/my-model", path: "/v1beta/tunedModels/my-model:generateContent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := serve(t, reply(okText), reply(sse(okText)))
			m := newModel(srv, gemini.Config{Model: tc.model})
			var err error
			if tc.stream {
				_, err = m.Stream(context.Background(), hiRequest, nil)
			} else {
				_, err = m.Chat(context.Background(), hiRequest)
			}
			require.NoError(t, err)
			got := c.Get(t, 0)
			assert.Equal(t, tc.path, got.Path)
			assert.Equal(t, tc.query, got.Query)
			assert.Equal(t, testKey, got.Header.Get("X-Goog-Api-Key"))
			assert.Empty(t, got.Header.Get("Authorization"))
			assert.NotContains(t, got.Path+got.Query, testKey)
			assert.NotContains(t, m.String(), testKey)
		})
	}
}

// TestSettingsFromEnvironment: Config wins; else GOOGLE_API_KEY, then
// GEMINI_API_KEY, as genai reads them; GOOGLE_GEMINI_BASE_URL is the
// server when Config.BaseURL is empty, its /v1beta taken as meant.
func TestSettingsFromEnvironment(t *testing.T) {
	srv, c := serve(t, reply(okText))
	for _, tc := range []struct {
		name, configured, google, gemini, want string
	}{
		{name: "config", configured: "AIza-config-key", google: "AIza-google-key", gemini: "AIza-gemini-key", want: "AIza-config-key"},
		{name: "GOOGLE_API_KEY first", google: "AIza-google-key", gemini: "AIza-gemini-key", want: "AIza-google-key"},
		{name: "GEMINI_API_KEY", gemini: "AIza-gemini-key", want: "AIza-gemini-key"},
		{name: "none", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOOGLE_API_KEY", tc.google)
			t.Setenv("GEMINI_API_KEY", tc.gemini)
			t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL+"/v1beta/")
			n := c.Count()
			m := gemini.New(gemini.Config{APIKey: tc.configured, Model: testModel, HTTPClient: srv.Client()})
			_, err := m.Chat(context.Background(), hiRequest)
			require.NoError(t, err)
			got := c.Get(t, n)
			assert.Equal(t, generatePath, got.Path)
			assert.Equal(t, tc.want, got.Header.Get("X-Goog-Api-Key"))
			_, sent := got.Header["X-Goog-Api-Key"]
			assert.Equal(t, tc.want != "", sent)
		})
	}
}

// TestRequestBody pins the body of a request with every setting chat has.
func TestRequestBody(t *testing.T) {
	t.Parallel()
	req := &chat.Request{
		Messages: []chat.Message{chat.SystemMessage("Be brief."), chat.UserMessage("Weather in Paris?"), chat.SystemMessage("Use metric units.")},
		Tools:    []chat.ToolDefinition{weatherTool, {Name: "ping"}},
		Options: chat.Options{Temperature: ptr(0.5), TopP: ptr(0.9), MaxTokens: ptr(100), Seed: ptr(7), Stop: []string{"END"},
			ParallelToolCalls: ptr(true)},
	}
	body := sendOne(t, gemini.Config{Thinking: &gemini.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: ptr(1024)}}, req)
	assert.JSONEq(t, `{
		"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}],
		"tools":[{"functionDeclarations":[
			{"name":"get_weather","description":"Get the current weather for a city.","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},
			{"name":"ping","parametersJsonSchema":{"type":"object","properties":{}}}]}],
		"systemInstruction":{"role":"user","parts":[{"text":"Be brief."},{"text":"Use metric units."}]},
		"generationConfig":{"temperature":0.5,"topP":0.9,"maxOutputTokens":100,"seed":7,"stopSequences":["END"],
			"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}`, string(body))
}

// TestToolChoice maps chat's tool choices to functionCallingConfig.
func TestToolChoice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		choice chat.ToolChoice
		want   string // toolConfig, or "" for none
		err    string
	}{
		{name: "default", want: ""},
		{name: "auto", choice: chat.ToolChoice{Mode: chat.ToolChoiceAuto}, want: `{"functionCallingConfig":{"mode":"AUTO"}}`},
		{name: "required", choice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}, want: `{"functionCallingConfig":{"mode":"ANY"}}`},
		{name: "none", choice: chat.ToolChoice{Mode: chat.ToolChoiceNone}, want: `{"functionCallingConfig":{"mode":"NONE"}}`},
		{name: "named", choice: chat.ToolChoice{Name: "get_weather"}, want: `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}}`},
		{name: "named, required", choice: chat.ToolChoice{Mode: chat.ToolChoiceRequired, Name: "get_weather"}, want: `{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}}`},
		{name: "named, not offered", choice: chat.ToolChoice{Name: "nope"}, err: `ToolChoice names tool "nope", which the request does not offer`},
		{name: "named with none", choice: chat.ToolChoice{Mode: chat.ToolChoiceNone, Name: "get_weather"}, err: `ToolChoice names tool "get_weather" with mode none`},
		{name: "unknown mode", choice: chat.ToolChoice{Mode: "sometimes"}, err: `unknown tool choice mode "sometimes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := &chat.Request{Messages: hiRequest.Messages, Tools: []chat.ToolDefinition{weatherTool}, ToolChoice: tc.choice}
			if tc.err != "" {
				srv, c := serve(t, reply(okText))
				_, err := newModel(srv, gemini.Config{}).Chat(context.Background(), req)
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, testModel)
				assert.Equal(t, tc.err, pe.Message)
				assert.Zero(t, c.Count(), "nothing sent")
				return
			}
			var body struct {
				ToolConfig json.RawMessage `json:"toolConfig"`
			}
			require.NoError(t, json.Unmarshal(sendOne(t, gemini.Config{}, req), &body))
			if tc.want == "" {
				assert.Nil(t, body.ToolConfig)
				return
			}
			assert.JSONEq(t, tc.want, string(body.ToolConfig))
		})
	}
}

// TestExtra: Options.Extra["thinkingConfig"] overrides Config.Thinking (nil
// removes it); Extra["generationConfig"]'s keys join the generationConfig
// without replacing the package's; other keys are top-level fields, a
// toolConfig only when ToolChoice sets none.
func TestExtra(t *testing.T) {
	t.Parallel()
	cfg := gemini.Config{Thinking: &gemini.ThinkingConfig{ThinkingLevel: "LOW"}}
	for _, tc := range []struct {
		name       string
		extra      map[string]any
		choice     chat.ToolChoice
		want       string // the body's generationConfig, toolConfig and safetySettings
		wantAbsent []string
	}{
		{name: "Config's thinking", want: `{"generationConfig":{"thinkingConfig":{"thinkingLevel":"LOW"}}}`},
		{name: "thinking as a struct", extra: map[string]any{"thinkingConfig": gemini.ThinkingConfig{ThinkingBudget: ptr(0)}},
			want: `{"generationConfig":{"thinkingConfig":{"thinkingBudget":0}}}`},
		{name: "thinking as a map", extra: map[string]any{"thinkingConfig": map[string]any{"includeThoughts": true, "thinkingLevel": "HIGH"}},
			want: `{"generationConfig":{"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}}}`},
		{name: "no thinking", extra: map[string]any{"thinkingConfig": nil}, want: `{}`, wantAbsent: []string{"generationConfig"}},
		{name: "generationConfig keys", extra: map[string]any{"generationConfig": map[string]any{"responseMimeType": "application/json", "thinkingConfig": "ignored"}},
			want: `{"generationConfig":{"responseMimeType":"application/json","thinkingConfig":{"thinkingLevel":"LOW"}}}`},
		{name: "generationConfig as JSON", extra: map[string]any{"generationConfig": json.RawMessage(`{"candidateCount":1}`)},
			want: `{"generationConfig":{"candidateCount":1,"thinkingConfig":{"thinkingLevel":"LOW"}}}`},
		{name: "top-level fields", extra: map[string]any{"safetySettings": []any{map[string]any{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}},
			"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "VALIDATED"}}, "contents": "ignored"},
			want: `{"generationConfig":{"thinkingConfig":{"thinkingLevel":"LOW"}},"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED"}},
				"safetySettings":[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_NONE"}]}`},
		{name: "toolConfig from ToolChoice wins", choice: chat.ToolChoice{Mode: chat.ToolChoiceNone},
			extra: map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "VALIDATED"}}},
			want:  `{"generationConfig":{"thinkingConfig":{"thinkingLevel":"LOW"}},"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := &chat.Request{Messages: hiRequest.Messages, Tools: []chat.ToolDefinition{weatherTool}, ToolChoice: tc.choice,
				Options: chat.Options{Extra: tc.extra}}
			var body map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(sendOne(t, cfg, req), &body))
			got := map[string]json.RawMessage{}
			for _, k := range []string{"generationConfig", "toolConfig", "safetySettings"} {
				if v, ok := body[k]; ok {
					got[k] = v
				}
			}
			b, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			var contents []any
			require.NoError(t, json.Unmarshal(body["contents"], &contents))
			assert.Len(t, contents, 1, "Extra cannot set contents")
		})
	}
}

// TestRefused: requests that cannot be built are refused before anything
// is sent, saying why.
func TestRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cfg    gemini.Config
		req    *chat.Request
		msg    string
		prefix bool // msg is how the message begins: encoding/json's words follow
	}{
		{name: "no messages", req: &chat.Request{Messages: []chat.Message{chat.SystemMessage("hi")}},
			msg: "no messages to send: the Gemini API needs at least one user or assistant message"},
		{name: "negative max tokens", req: &chat.Request{Messages: hiRequest.Messages, Options: chat.Options{MaxTokens: ptr(-1)}},
			msg: "Options.MaxTokens is -1; it must not be negative"},
		{name: "parallel calls off", req: &chat.Request{Messages: hiRequest.Messages, Options: chat.Options{ParallelToolCalls: ptr(false)}},
			msg: "Options.ParallelToolCalls is false: the Gemini API cannot turn parallel calls off"},
		{name: "thinking misspelled", req: &chat.Request{Messages: hiRequest.Messages, Options: chat.Options{Extra: map[string]any{"thinkingConfig": map[string]any{"include_thoughts": true}}}},
			msg: `Options.Extra: key "thinkingConfig": want an object such as {"includeThoughts":true,"thinkingBudget":1024}: json: unknown field "include_thoughts"`, prefix: true},
		{name: "generationConfig not an object", req: &chat.Request{Messages: hiRequest.Messages, Options: chat.Options{Extra: map[string]any{"generationConfig": 3}}},
			msg: `Options.Extra: key "generationConfig": want a JSON object of generationConfig fields`},
		{name: "result without a name", req: &chat.Request{Messages: []chat.Message{chat.UserMessage("hi"), {Role: chat.RoleTool, ToolCallID: "x", Content: "1"}}},
			msg: `message 1: tool result for call "x" names no tool and answers no call of the message before it: the Gemini API needs the function's name`},
		{name: "unknown role", req: &chat.Request{Messages: []chat.Message{{Role: "robot", Content: "hi"}}}, msg: `message 0: unknown role "robot"`},
		{name: "call without a name", req: &chat.Request{Messages: []chat.Message{chat.UserMessage("hi"), chat.AssistantMessage("", call("c1", "", `{}`))}},
			msg: `message 1: call 0 ("c1") has no name`},
		{name: "bad ProviderData", req: &chat.Request{Messages: []chat.Message{chat.UserMessage("hi"), {Role: chat.RoleAssistant, Content: "x", ProviderData: json.RawMessage(`{"gemini_parts":3}`)}}},
			msg: "message 1: ProviderData: gemini_parts is not a list of parts: ", prefix: true},
		{name: "schema not JSON", req: &chat.Request{Messages: hiRequest.Messages, Tools: []chat.ToolDefinition{{Name: "f", InputSchema: json.RawMessage(`{`)}}},
			msg: `tool "f": input schema is not valid JSON`},
		{name: "BaseURL with a query", cfg: gemini.Config{BaseURL: "http://example.invalid/?key=1"}, req: hiRequest,
			msg: `BaseURL "http://example.invalid/?key=1" has a query or fragment, which the path /v1beta/models/... cannot follow; set Config.BaseURL (or GOOGLE_GEMINI_BASE_URL) to the server's root, such as https://generativelanguage.googleapis.com`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := serve(t, reply(okText))
			m := newModel(srv, tc.cfg)
			if tc.cfg.BaseURL != "" {
				m = gemini.New(gemini.Config{BaseURL: tc.cfg.BaseURL, APIKey: testKey, Model: testModel, HTTPClient: srv.Client()})
			}
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					_, err = m.Stream(context.Background(), tc.req, nil)
				} else {
					_, err = m.Chat(context.Background(), tc.req)
				}
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, testModel)
				if tc.prefix {
					assert.True(t, strings.HasPrefix(pe.Message, tc.msg[:strings.LastIndex(tc.msg, ": ")+2]), pe.Message)
					continue
				}
				assert.Equal(t, tc.msg, pe.Message)
			}
			assert.Zero(t, c.Count(), "nothing sent")
		})
	}
	t.Run("no model", func(t *testing.T) {
		t.Parallel()
		_, err := gemini.New(gemini.Config{APIKey: testKey}).Chat(context.Background(), hiRequest)
		checkProviderError(t, err, chat.ErrBadRequest, 0, "")
	})
}

// TestNoKeySent: with no key anywhere, no key header is sent, and a 401
// says that none is set.
func TestNoKeySent(t *testing.T) {
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	srv, c := serve(t, status(http.StatusUnauthorized, `{"error":{"code":401,"message":"Method doesn't allow unregistered callers.","status":"UNAUTHENTICATED"}}`))
	m := gemini.New(gemini.Config{BaseURL: srv.URL, Model: testModel, HTTPClient: srv.Client()})
	_, err := m.Chat(context.Background(), hiRequest)
	pe := checkProviderError(t, err, chat.ErrUnauthorized, 401, testModel)
	assert.Equal(t, "Method doesn't allow unregistered callers.; no API key is set (Config.APIKey or GOOGLE_API_KEY or GEMINI_API_KEY)", pe.Message)
	_, sent := c.Get(t, 0).Header["X-Goog-Api-Key"]
	assert.False(t, sent)
}

// TestBaseURLForms: a BaseURL ending in /v1beta or /v1beta/models, with or
// without a slash, is the server's root; any other path is kept.
func TestBaseURLForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ suffix, path string }{
		{"", generatePath}, {"/", generatePath}, {"/v1beta", generatePath}, {"/v1beta/", generatePath},
		{"/v1beta/models", generatePath}, {"/v1beta/models/", generatePath},
		{"/proxy/models", "/proxy/models" + generatePath},
	} {
		srv, c := serve(t, reply(okText))
		m := gemini.New(gemini.Config{BaseURL: srv.URL + tc.suffix, APIKey: testKey, Model: testModel, HTTPClient: srv.Client()})
		_, err := m.Chat(context.Background(), hiRequest)
		require.NoError(t, err, tc.suffix)
		assert.Equal(t, tc.path, c.Get(t, 0).Path, tc.suffix)
	}
}
