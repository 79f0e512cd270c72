package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

func TestChat(t *testing.T) {
	t.Parallel()
	askParis := []chat.Message{chat.UserMessage("What is the weather in Paris?")}
	weather := []chat.ToolDefinition{weatherTool}
	for _, tc := range []struct {
		name      string
		recording string
		captured  bool // the request must equal the recorded one
		cfg       openai.Config
		req       *chat.Request
		want      *chat.Response
		wantErr   error
		status    int
		model     string // the error's model
		wantMsg   string // a substring of the error's Message
	}{
		{
			name: "plain", recording: "llamacpp/b_plain", captured: true,
			req: &chat.Request{
				Messages: []chat.Message{chat.SystemMessage("You are a test."), chat.UserMessage("Hi there")},
				Options:  chat.Options{MaxTokens: ptr(300)},
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 19, CompletionTokens: 9, TotalTokens: 28, CacheReadTokens: 18},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool call", recording: "llamacpp/c2_tools_auto", captured: true,
			req: &chat.Request{Messages: askParis, Tools: weather, Options: chat.Options{MaxTokens: ptr(300)}},
			want: &chat.Response{
				Message: chat.AssistantMessage("", call("bV8QPhBwjnr8swJ3TeacS0uh9AwvlJsL", "get_weather",
					`{"city":"Paris","unit":"fahrenheit","options":{"days": -9,"detail":{"wind":false}}}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 284, CompletionTokens: 75, TotalTokens: 359, CacheReadTokens: 283},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool choice required", recording: "llamacpp/c_tools_required", captured: true,
			req: &chat.Request{Messages: askParis, Tools: weather, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired},
				Options: chat.Options{MaxTokens: ptr(300)}},
			want: &chat.Response{
				Message: chat.AssistantMessage("", call("8wGONfJ76oGu42W7JBPDidaR4nOebqwO", "get_weather",
					`{"city":"Paris","unit":"fahrenheit","options":{"days":1,"detail":{"wind":true}}}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 284, CompletionTokens: 84, TotalTokens: 368, CacheReadTokens: 283},
				Model:        "tiny-toolcaller",
			},
		},
		{
			// The model's raw text is kept, newline and spaces included.
			name: "named tool choice", recording: "llamacpp/c3_tool_choice_named", captured: true,
			req: &chat.Request{Messages: askParis, Tools: weather, ToolChoice: chat.ToolChoice{Name: "get_weather"},
				Options: chat.Options{MaxTokens: ptr(300)}},
			want: &chat.Response{
				Message: chat.AssistantMessage("", call("kUtjegdGEadJvZBvsvmh1OnYBVxdTGjw", "get_weather",
					"{\"city\":\"Paris\",\"unit\":\"fahrenheit\",\"options\":{\"days\":5,\"detail\":{\"wind\":\n                 true}}}")),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 284, CompletionTokens: 95, TotalTokens: 379, CacheReadTokens: 283},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool result", recording: "llamacpp/e_loop_none", captured: true,
			req: &chat.Request{
				Messages: append(slices.Clone(askParis),
					chat.AssistantMessage("", call("call_abc123", "get_weather", `{"city":"Paris","unit":"celsius","options":{"days":1,"detail":{"wind":true}}}`)),
					chat.ToolMessage(call("call_abc123", "get_weather", ""), `{"temperature":21,"condition":"sunny"}`)),
				Tools:      weather,
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone},
				Options:    chat.Options{MaxTokens: ptr(300)},
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("The weather is warm."),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 358, CompletionTokens: 6, TotalTokens: 364, CacheReadTokens: 286},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "ollama v1 tool call", recording: "ollama-v1/c_tools_required", captured: true,
			cfg: openai.Config{Model: "tiny-toolcaller"},
			req: &chat.Request{Messages: askParis, Tools: weather, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_pjrjwp0p", "get_weather", `{"city":"Paris"}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 234, CompletionTokens: 5, TotalTokens: 239},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "parallel calls", recording: "h_parallel_calls",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather in Paris and Lyon?")}, Tools: weather},
			want: &chat.Response{
				Message: chat.AssistantMessage("",
					call("call_paris", "get_weather", `{"city":"Paris","unit":"celsius","options":{"days":1,"detail":{"wind":true}}}`),
					call("call_lyon", "get_weather", `{"city":"Lyon","unit":"celsius","options":{"days":1,"detail":{"wind":false}}}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 120, CompletionTokens: 60, TotalTokens: 180},
				Model:        "gpt-4o-mini-2024-07-18",
			},
		},
		{
			name: "empty arguments", recording: "h_empty_arguments",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("What time is it?")}, Tools: []chat.ToolDefinition{nowTool}},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_now1", "now", `{}`), call("call_now2", "now", `{}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 50, CompletionTokens: 8, TotalTokens: 58},
				Model:        "qwen2.5",
			},
		},
		{
			name: "arguments as an object", recording: "h_object_arguments",
			req: &chat.Request{Messages: askParis, Tools: weather},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_obj", "get_weather", `{"city":"Paris","options":{"days":2}}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 40, CompletionTokens: 12, TotalTokens: 52},
				Model:        "compat-model",
			},
		},
		{
			// Also: the server says "stop" for a turn with calls, and
			// sends no total_tokens.
			name: "missing ids", recording: "h_missing_ids",
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather in Paris and Lyon?")}, Tools: weather},
			want: &chat.Response{
				Message: chat.AssistantMessage("",
					call("call_0", "get_weather", `{"city":"Paris"}`),
					call("call_1", "get_weather", `{"city":"Lyon"}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 40, CompletionTokens: 20, TotalTokens: 60},
				Model:        "compat-model",
			},
		},
		{
			name: "schema the server rejects", recording: "llamacpp/f_bad_ref", captured: true,
			cfg: openai.Config{Model: "tiny-toolcaller"},
			req: &chat.Request{
				Messages: []chat.Message{chat.UserMessage("call the tool")},
				Tools: []chat.ToolDefinition{{Name: "probe", Description: "probe tool",
					InputSchema: json.RawMessage(`{"type":"object","properties":{"v":{"$ref":"#/$defs/Missing"}},"required":["v"]}`)}},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired},
				Options:    chat.Options{MaxTokens: ptr(300)},
			},
			wantErr: chat.ErrBadRequest, status: 400, model: "tiny-toolcaller",
			wantMsg: "Error resolving ref #/$defs/Missing",
		},
		{
			name: "model not found", recording: "ollama-v1/m_model_not_found", captured: true,
			req:     &chat.Request{Model: "does-not-exist", Messages: askParis},
			wantErr: chat.ErrModelNotFound, status: 404, model: "does-not-exist",
			wantMsg: "model 'does-not-exist' not found",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recording)
			m := newModel(srv, tc.cfg)

			resp, err := m.Chat(context.Background(), tc.req)

			sent := got.Get(t, 0).Body
			providertest.CheckGolden(t, "chat_"+providertest.Slug(tc.name), sent, *update)
			if tc.captured {
				checkCaptured(t, tc.recording, sent)
			}
			if tc.wantErr != nil {
				assert.Nil(t, resp)
				pe := checkProviderError(t, err, tc.wantErr, tc.status, tc.model)
				assert.Contains(t, pe.Message, tc.wantMsg)
				assert.NotContains(t, err.Error(), "_error", "no raw body in the error")
				return
			}
			require.NoError(t, err)
			want := *tc.want
			want.Attempts = 1 // one request: nothing was retried
			assert.Equal(t, &want, resp)
		})
	}
}

// cloneRequest copies req deeply, so that a later change to req shows.
func cloneRequest(req *chat.Request) *chat.Request {
	c := *req
	c.Messages = slices.Clone(req.Messages)
	for i, m := range c.Messages {
		c.Messages[i].ToolCalls = slices.Clone(m.ToolCalls)
		for j, tc := range m.ToolCalls {
			c.Messages[i].ToolCalls[j].Arguments = bytes.Clone(tc.Arguments)
		}
	}
	c.Tools = slices.Clone(req.Tools)
	o := &c.Options
	o.Temperature, o.TopP, o.MaxTokens, o.Seed = clonePtr(o.Temperature), clonePtr(o.TopP), clonePtr(o.MaxTokens), clonePtr(o.Seed)
	o.ParallelToolCalls = clonePtr(o.ParallelToolCalls)
	o.Stop = slices.Clone(o.Stop)
	o.Extra = maps.Clone(o.Extra)
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptr(*p)
}

// TestRequestMapping pins the body sent for the request's messages, tools
// and settings.
func TestRequestMapping(t *testing.T) {
	t.Parallel()
	hi := []chat.Message{chat.SystemMessage("Be brief."), chat.UserMessage("Hi there")}
	for _, tc := range []struct {
		name string
		req  *chat.Request
	}{
		{
			// A temperature of 0 must be sent: go-openai's float32
			// omitempty field would drop it.
			name: "options",
			req: &chat.Request{
				Messages: hi, Tools: []chat.ToolDefinition{weatherTool},
				Options: chat.Options{
					Temperature: ptr(0.0), TopP: ptr(0.9), Seed: ptr(42), MaxTokens: ptr(128),
					Stop: []string{"\n\n", "END"}, ParallelToolCalls: ptr(false),
				},
			},
		},
		{
			name: "no tool choice or parallel calls without tools",
			req: &chat.Request{
				Messages: hi, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired},
				Options: chat.Options{ParallelToolCalls: ptr(true), Temperature: ptr(0.7)},
			},
		},
		{
			name: "strict tool",
			req: &chat.Request{Messages: hi, Tools: []chat.ToolDefinition{{
				Name: "get_weather", Description: "Get weather", Strict: true,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":["string","null"]}},"required":["city","unit"],"additionalProperties":false}`),
			}}},
		},
		{
			name: "tool without parameters",
			req:  &chat.Request{Messages: hi, Tools: []chat.ToolDefinition{nowTool}},
		},
		{
			name: "null schema means no parameters",
			req:  &chat.Request{Messages: hi, Tools: []chat.ToolDefinition{{Name: "now", Description: "Current time", InputSchema: json.RawMessage(" null ")}}},
		},
		{
			name: "tool choice auto",
			req:  &chat.Request{Messages: hi, Tools: []chat.ToolDefinition{nowTool}, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceAuto}},
		},
		{
			name: "replayed calls",
			req: &chat.Request{Messages: []chat.Message{
				chat.UserMessage("go <now> & then"),
				chat.AssistantMessage("Calling.",
					call("call_a", "now", ``),
					call("call_b", "now", `null`),
					call("call_c", "now", "  \n"),
					call("call_d", "get_weather", `{"city": "Paris", "days": 2}`),
					call("call_e", "get_weather", `{"city":"Ni`),
				),
				chat.ToolMessage(call("call_a", "now", ""), "12:00"),
				chat.ToolMessage(call("call_b", "now", ""), ""),
				chat.ToolMessage(call("call_c", "now", ""), "12:00"),
				chat.ToolMessage(call("call_d", "get_weather", ""), `{"temperature":21}`),
				{Role: chat.RoleTool, ToolCallID: "call_e", ToolName: "get_weather", IsError: true, Content: "invalid arguments"},
				chat.AssistantMessage("", call("call_f", "now", `{}`)),
				chat.ToolMessage(call("call_f", "now", ""), "12:01"),
			}},
		},
		{
			// Typed options win over Extra, and Extra cannot replace the
			// request's own fields.
			name: "extra fields",
			req: &chat.Request{Messages: hi, Tools: []chat.ToolDefinition{nowTool}, Options: chat.Options{
				Temperature: ptr(0.1),
				Extra: map[string]any{
					"top_k": 20, "temperature": 0.9, "model": "other", "tools": []string{"x"}, "tool_choice": "none",
					"chat_template_kwargs":  map[string]any{"enable_thinking": false},
					"max_completion_tokens": 64,
				},
			}},
		},
		{
			name: "request model overrides config",
			req:  &chat.Request{Model: "qwen2.5:7b", Messages: hi},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, "llamacpp/b_plain")
			m := newModel(srv, openai.Config{})
			before := cloneRequest(tc.req)

			_, err := m.Chat(context.Background(), tc.req)
			require.NoError(t, err)

			providertest.CheckGolden(t, "request_"+providertest.Slug(tc.name), got.Get(t, 0).Body, *update)
			assert.Equal(t, before, tc.req, "Chat must not modify the request")
		})
	}
}

// cannedBody answers every request in process with one status and body,
// recording the request, so a test can use any BaseURL and a fuzz
// iteration costs no socket.
type cannedBody struct {
	status      int
	contentType string
	header      http.Header
	body        []byte
	sent        *providertest.Capture // may be nil
}

func (c cannedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.sent != nil {
		c.sent.Add(req)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	h := c.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", c.contentType)
	return &http.Response{
		StatusCode: c.status,
		Header:     h,
		Body:       io.NopCloser(bytes.NewReader(c.body)),
		Request:    req,
	}, nil
}

// TestMaxTokensOnOpenAI: OpenAI's reasoning models accept only
// max_completion_tokens; compatible servers know max_tokens.
func TestMaxTokensOnOpenAI(t *testing.T) {
	t.Parallel()
	plain := providertest.LoadRecording(t, "llamacpp/b_plain")
	for _, tc := range []struct {
		base, want, notWant string
	}{
		{base: "https://api.openai.com/v1", want: "max_completion_tokens", notWant: "max_tokens"},
		{base: "https://API.OpenAI.com/v1/", want: "max_completion_tokens", notWant: "max_tokens"},
		{base: "https://api.openai.com.example.net/v1", want: "max_tokens", notWant: "max_completion_tokens"},
		{base: "http://localhost:8080/v1", want: "max_tokens", notWant: "max_completion_tokens"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			t.Parallel()
			sent := &providertest.Capture{}
			m := openai.New(openai.Config{BaseURL: tc.base, APIKey: testKey, Model: "o3-mini",
				HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: plain.ContentType, body: plain.Body, sent: sent}}})

			_, err := m.Chat(context.Background(), &chat.Request{
				Messages: []chat.Message{chat.UserMessage("hi")}, Options: chat.Options{MaxTokens: ptr(64)}})
			require.NoError(t, err)

			var body map[string]any
			require.NoError(t, json.Unmarshal(sent.Get(t, 0).Body, &body))
			assert.Equal(t, 64.0, body[tc.want])
			assert.NotContains(t, body, tc.notWant)
		})
	}
}

func TestHeaders(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "llamacpp/b_plain", "llamacpp/d2_plain_stream")
	m := newModel(srv, openai.Config{Organization: "org-test"})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

	_, err := m.Chat(context.Background(), req)
	require.NoError(t, err)
	_, err = m.Stream(context.Background(), req, nil)
	require.NoError(t, err)

	for i, accept := range []string{"application/json", "text/event-stream"} {
		h := got.Get(t, i).Header
		assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
		assert.Equal(t, "org-test", h.Get("OpenAI-Organization"))
		assert.Equal(t, "application/json", h.Get("Content-Type"))
		assert.Equal(t, accept, h.Get("Accept"))
	}
}

// TestEnvironment reads OPENAI_BASE_URL and OPENAI_API_KEY. It cannot run
// in parallel: it sets them.
func TestEnvironment(t *testing.T) {
	srv, got := replay(t, "llamacpp/b_plain")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1/")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Cleanup(httpline.DefaultClient().CloseIdleConnections)
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

	_, err := openai.New(openai.Config{Model: "tiny"}).Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk-from-env", got.Get(t, 0).Header.Get("Authorization"))

	// Config wins over the environment.
	_, err = openai.New(openai.Config{Model: "tiny", APIKey: "sk-from-config"}).Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk-from-config", got.Get(t, 1).Header.Get("Authorization"))

	// No key anywhere: no Authorization header, as local servers expect.
	t.Setenv("OPENAI_API_KEY", "")
	_, err = openai.New(openai.Config{Model: "tiny"}).Chat(context.Background(), req)
	require.NoError(t, err)
	assert.NotContains(t, got.Get(t, 2).Header, "Authorization")
}

func TestModelStringHidesKey(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"http://localhost:8080/v1":                 "http://localhost:8080/v1/chat/completions",
		"http://localhost:8080/" + testKey + "/v1": "http://localhost:8080/[redacted]/v1/chat/completions", // a proxy's key in the path
	} {
		m := openai.New(openai.Config{BaseURL: base, APIKey: testKey, Model: "tiny"})
		//lint:ignore S1025 each way of printing is under test
		for _, s := range []string{fmt.Sprint(m), fmt.Sprintf("%v", m), fmt.Sprintf("%+v", m), fmt.Sprintf("%#v", m), fmt.Sprintf("%s", m)} {
			assert.NotContains(t, s, "SECRET123")
			assert.Contains(t, s, want)
		}
	}
}

func TestChatInvalidRequest(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "llamacpp/b_plain")
	for _, tc := range []struct {
		name    string
		noModel bool
		req     *chat.Request
		wantMsg string
	}{
		{name: "nil request", req: nil, wantMsg: "nil request"},
		{name: "no model", noModel: true, req: &chat.Request{}, wantMsg: "no model"},
		{name: "invalid schema", req: &chat.Request{Tools: []chat.ToolDefinition{{Name: "x", InputSchema: json.RawMessage(`{`)}}}, wantMsg: `tool "x": input schema is not valid JSON`},
		{name: "extra JSON cannot hold", req: &chat.Request{Options: chat.Options{Extra: map[string]any{"f": func() {}}}}, wantMsg: `Options.Extra: key "f"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newModel(srv, openai.Config{})
			if tc.noModel {
				m = openai.New(openai.Config{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
			}
			_, err := m.Chat(context.Background(), tc.req)
			require.ErrorIs(t, err, chat.ErrBadRequest)
			var pe *chat.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Message, tc.wantMsg)
			_, err = m.Stream(context.Background(), tc.req, nil)
			require.ErrorIs(t, err, chat.ErrBadRequest)
		})
	}
	t.Cleanup(func() { assert.Zero(t, got.Count(), "invalid requests must not be sent") })
}

func TestInvalidBaseURL(t *testing.T) {
	t.Parallel()
	m := openai.New(openai.Config{BaseURL: "http://bad host/" + testKey + "/v1", APIKey: testKey, Model: "tiny"})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
	pe := checkProviderError(t, err, chat.ErrBadRequest, 0, "tiny")
	assert.Contains(t, pe.Message, "invalid BaseURL")
}

func TestConcurrentChat(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "llamacpp/c2_tools_auto")
	m := newModel(srv, openai.Config{})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			req := &chat.Request{
				Messages: []chat.Message{chat.UserMessage("What is the weather in Paris?")},
				Tools:    []chat.ToolDefinition{weatherTool},
				Options:  chat.Options{Seed: ptr(i), Extra: map[string]any{"top_k": i}},
			}
			resp, err := m.Chat(context.Background(), req)
			if assert.NoError(t, err) && assert.Len(t, resp.Message.ToolCalls, 1) {
				assert.Equal(t, "get_weather", resp.Message.ToolCalls[0].Name)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 16, got.Count())
	seeds := map[float64]bool{}
	for i := range 16 {
		var body struct {
			Seed float64 `json:"seed"`
			TopK float64 `json:"top_k"`
		}
		require.NoError(t, json.Unmarshal(got.Get(t, i).Body, &body))
		assert.Equal(t, body.Seed, body.TopK, "each request keeps its own options")
		seeds[body.Seed] = true
	}
	assert.Len(t, seeds, 16)
}

// TestServerMessageShapes checks that the message in each server's error
// body reaches the caller, never the raw JSON.
func TestServerMessageShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, want string
	}{
		{name: "openai", body: `{"error":{"message":"Invalid schema for function 'x'.","type":"invalid_request_error","param":"tools[0]","code":null}}`, want: "Invalid schema for function 'x'."},
		{name: "message list", body: `{"error":{"message":["first problem","second problem"],"type":"invalid_request_error"}}`, want: "first problem, second problem"},
		{name: "error string", body: `{"error":"model is loading"}`, want: "model is loading"},
		{name: "vllm", body: `{"object":"error","message":"maximum context length is 4096 tokens","type":"BadRequestError","param":null,"code":400}`, want: "maximum context length is 4096 tokens"},
		{name: "fastapi detail", body: `{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]}`, want: "field required"},
		{name: "fastapi detail string", body: `{"detail":"Not authenticated"}`, want: "Not authenticated"},
		{name: "not JSON", body: `Bad Request`, want: "Bad Request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", Model: "tiny",
				HTTPClient: &http.Client{Transport: cannedBody{status: 400, contentType: "application/json", body: []byte(tc.body)}}})
			_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
			pe := checkProviderError(t, err, chat.ErrBadRequest, 400, "tiny")
			assert.Equal(t, tc.want, pe.Message)
			assert.False(t, strings.Contains(err.Error(), "{"), "raw JSON in %q", err.Error())
		})
	}
}
