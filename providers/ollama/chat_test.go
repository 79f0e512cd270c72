package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

func ptr[T any](v T) *T { return &v }

func TestChat(t *testing.T) {
	t.Parallel()
	askParis := []chat.Message{chat.UserMessage("What is the weather in Paris?")}
	// The assistant turn of c2_tools, as the library keeps it.
	parisCall := chat.ToolCall{ID: "call_kfi8g1mg", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	for _, tc := range []struct {
		name      string
		recording string
		captured  bool // the request must equal the recorded one
		cfg       ollama.Config
		req       *chat.Request
		want      *chat.Response
		wantErr   error
		status    int
		model     string   // the error's model
		wantMsg   []string // substrings of the error's Message
	}{
		{
			name: "plain", recording: "b_plain", captured: true,
			req: &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 9, CompletionTokens: 9, TotalTokens: 18},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool call", recording: "c2_tools", captured: true,
			req: &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{weatherTool}},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", parisCall),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 156, CompletionTokens: 5, TotalTokens: 161},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "older server: no ids", recording: "h_tools_no_id", captured: true,
			req: &chat.Request{
				Messages: []chat.Message{chat.UserMessage("What is the weather in Paris and Lyon?")},
				Tools:    []chat.ToolDefinition{weatherTool},
			},
			want: &chat.Response{
				Message: chat.AssistantMessage("",
					chat.ToolCall{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
					chat.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`)}),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 160, CompletionTokens: 22, TotalTokens: 182},
				Model:        "tiny-toolcaller",
			},
		},
		{
			// The captured loop replays a call without id and a result
			// without tool_call_id, as with an older server.
			name: "tool result without ids", recording: "e_loop", captured: true,
			req: &chat.Request{
				Messages: append(append([]chat.Message{}, askParis...),
					chat.AssistantMessage("", chat.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}),
					chat.Message{Role: chat.RoleTool, Content: `{"temperature":21}`, ToolName: "get_weather"}),
				Tools: []chat.ToolDefinition{weatherTool},
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("The weather is warm."),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 199, CompletionTokens: 6, TotalTokens: 205},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool result with ids", recording: "e_loop",
			req: &chat.Request{
				Messages: append(append([]chat.Message{}, askParis...),
					chat.AssistantMessage("", parisCall),
					chat.ToolMessage(parisCall, `{"temperature":21}`)),
				Tools: []chat.ToolDefinition{weatherTool},
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("The weather is warm."),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 199, CompletionTokens: 6, TotalTokens: 205},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "model without tool support", recording: "c_tools_notools_model", captured: true,
			cfg:     ollama.Config{Model: "tiny-notools"},
			req:     &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{weatherTool}},
			wantErr: chat.ErrToolsNotSupported, status: 400, model: "tiny-notools",
			wantMsg: []string{"tiny-notools", "does not support tools"},
		},
		{
			name: "model not found", recording: "m_model_not_found", captured: true,
			req:     &chat.Request{Model: "does-not-exist", Messages: askParis},
			wantErr: chat.ErrModelNotFound, status: 404, model: "does-not-exist",
			wantMsg: []string{"model 'does-not-exist' not found", "ollama pull does-not-exist"},
		},
		{
			name: "server error", recording: "h_server_error", captured: true,
			cfg:     ollama.Config{MaxRetries: ollama.NoRetries}, // retry_test.go retries
			req:     &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
			wantErr: chat.ErrServer, status: 500, model: "tiny-toolcaller",
			wantMsg: []string{"llama runner process has terminated"},
		},
		{
			name: "malformed JSON", recording: "h_malformed", captured: true,
			req:     &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
			wantErr: chat.ErrBadResponse, status: 200, model: "tiny-toolcaller",
			wantMsg: []string{"not valid JSON"},
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
				for _, s := range tc.wantMsg {
					assert.Contains(t, pe.Message, s)
				}
				assert.NotContains(t, err.Error(), "created_at", "no raw body in the error")
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

// TestRequestMapping pins the body sent for the request settings.
func TestRequestMapping(t *testing.T) {
	t.Parallel()
	hi := []chat.Message{chat.SystemMessage("Be brief."), chat.UserMessage("Hi there")}
	for _, tc := range []struct {
		name string
		cfg  ollama.Config
		req  *chat.Request
	}{
		{
			name: "options",
			cfg: ollama.Config{
				KeepAlive: "10m", Think: ptr(true),
				Options: map[string]any{"num_ctx": 4096, "repeat_penalty": 1.1, "temperature": 0.9},
			},
			req: &chat.Request{
				Model:    "qwen2.5:7b",
				Messages: hi,
				Options: chat.Options{
					Temperature: ptr(0.2), TopP: ptr(0.9), Seed: ptr(42), MaxTokens: ptr(128),
					Stop:              []string{"\n\n"},
					ParallelToolCalls: ptr(false),
					Extra:             map[string]any{"num_ctx": 8192, "top_k": 20},
				},
			},
		},
		{
			name: "request fields in extra",
			cfg:  ollama.Config{KeepAlive: "10m", Think: ptr(true)},
			req: &chat.Request{Messages: hi, Options: chat.Options{
				Extra: map[string]any{"keep_alive": "-1", "think": "low", "format": "json", "num_ctx": 2048},
			}},
		},
		{
			name: "keep alive in seconds",
			cfg:  ollama.Config{KeepAlive: "0", Think: ptr(false)},
			req:  &chat.Request{Messages: hi},
		},
		{
			name: "tool choice none offers no tools",
			req: &chat.Request{
				Messages: hi, Tools: []chat.ToolDefinition{weatherTool},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone},
			},
		},
		{
			name: "tool choice required is not enforced",
			req: &chat.Request{
				Messages: hi, Tools: []chat.ToolDefinition{weatherTool},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired},
			},
		},
		{
			name: "tool without parameters",
			req: &chat.Request{
				Messages: hi,
				Tools:    []chat.ToolDefinition{{Name: "now", Description: "Current time"}},
			},
		},
		{
			// A typed answer, natively: format is the schema itself, at the
			// top level, beside the tools. Ollama has no strict flag:
			// Strict is not sent.
			name: "output schema",
			req: &chat.Request{
				Messages: hi, Tools: []chat.ToolDefinition{weatherTool},
				Output: &chat.OutputFormat{Name: "answer", Strict: true,
					Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","description":"One line"}},"required":["summary"],"additionalProperties":false}`)},
			},
		},
		{
			name: "replayed arguments become objects",
			req: &chat.Request{Messages: []chat.Message{
				chat.UserMessage("go"),
				chat.AssistantMessage("Calling.",
					chat.ToolCall{ID: "call_a", Name: "now", Arguments: json.RawMessage(``)},
					chat.ToolCall{ID: "call_b", Name: "now", Arguments: json.RawMessage(`null`)},
					chat.ToolCall{ID: "call_c", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris", "days": 2}`)},
					chat.ToolCall{ID: "call_d", Name: "get_weather", Arguments: json.RawMessage(`"{\"city\":\"Lyon\"}"`)},
					chat.ToolCall{ID: "call_e", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Ni`)},
				),
				{Role: chat.RoleTool, ToolCallID: "call_e", ToolName: "get_weather", IsError: true, Content: "invalid arguments"},
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, "b_plain")
			m := newModel(srv, tc.cfg)
			before := cloneRequest(tc.req)

			_, err := m.Chat(context.Background(), tc.req)
			require.NoError(t, err)

			providertest.CheckGolden(t, "request_"+providertest.Slug(tc.name), got.Get(t, 0).Body, *update)
			assert.Equal(t, before, tc.req, "Chat must not modify the request")
		})
	}
}

func TestConfigOptionsCopied(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "b_plain")
	opts := map[string]any{"num_ctx": 4096}
	m := newModel(srv, ollama.Config{Options: opts})
	opts["num_ctx"] = 1 // a later change must not reach the model

	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"tiny-toolcaller","messages":[{"role":"user","content":"Hi there"}],"stream":false,"options":{"num_ctx":4096}}`,
		string(got.Get(t, 0).Body))
}

func TestChatErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		header      map[string]string
		body        string
		wantErr     error
		wantMsg     string
		retryAfter  time.Duration
	}{
		{name: "404 without message is a wrong URL", status: 404, contentType: "text/plain", body: "404 page not found",
			wantErr: chat.ErrBadRequest, wantMsg: "is BaseURL an Ollama server?"},
		{name: "404 about something else is a wrong URL", status: 404, contentType: "application/json", body: `{"error":"not found"}`,
			wantErr: chat.ErrBadRequest, wantMsg: "is BaseURL an Ollama server?"},
		{name: "HTML error page is not dumped", status: 502, contentType: "text/html", body: "<html><body>Bad gateway from nginx</body></html>",
			wantErr: chat.ErrServer, wantMsg: "Bad Gateway"},
		{name: "busy server asks to retry", status: 503, contentType: "application/json", body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`,
			header: map[string]string{"Retry-After": "7"}, wantErr: chat.ErrServer, wantMsg: "server busy", retryAfter: 7 * time.Second},
		{name: "rate limited asks to retry", status: 429, contentType: "application/json", body: `{"error":"too many requests, please retry later"}`,
			header: map[string]string{"Retry-After": "7"}, wantErr: chat.ErrRateLimited, wantMsg: "too many requests", retryAfter: 7 * time.Second},
		{name: "bad request", status: 400, contentType: "application/json", body: `{"error":"invalid options: foo"}`,
			wantErr: chat.ErrBadRequest, wantMsg: "invalid options: foo"},
		{name: "unauthorized proxy", status: 401, contentType: "application/json", body: `{"error":{"message":"missing bearer token"}}`,
			wantErr: chat.ErrUnauthorized, wantMsg: "missing bearer token"},
		{name: "error object with 200", status: 200, contentType: "application/json", body: `{"error":"something went wrong"}`,
			wantErr: chat.ErrServer, wantMsg: "something went wrong"},
		{name: "not done", status: 200, contentType: "application/json", body: `{}`,
			wantErr: chat.ErrBadResponse, wantMsg: `no "done": true`},
		{name: "empty body", status: 200, contentType: "application/json", body: ``,
			wantErr: chat.ErrBadResponse, wantMsg: "not valid JSON"},
		{name: "wrong field type", status: 200, contentType: "application/json", body: `{"message":{"content":5},"done":true}`,
			wantErr: chat.ErrBadResponse, wantMsg: "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			t.Cleanup(srv.Close)
			m := newModel(srv, ollama.Config{MaxRetries: ollama.NoRetries}) // retry_test.go retries

			resp, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})

			assert.Nil(t, resp)
			pe := checkProviderError(t, err, tc.wantErr, tc.status, "tiny-toolcaller")
			assert.Contains(t, pe.Message, tc.wantMsg)
			assert.Equal(t, tc.retryAfter, pe.RetryAfter)
			assert.NotContains(t, err.Error(), "<html>")
		})
	}
}

func TestChatInvalidRequest(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "b_plain")
	for _, tc := range []struct {
		name    string
		noModel bool
		req     *chat.Request
		wantMsg string
	}{
		{name: "nil request", req: nil, wantMsg: "nil request"},
		{name: "no model", noModel: true, req: &chat.Request{}, wantMsg: "no model"},
		{name: "invalid schema", req: &chat.Request{Tools: []chat.ToolDefinition{{Name: "x", InputSchema: json.RawMessage(`{`)}}}, wantMsg: `tool "x"`},
		{name: "option JSON cannot hold", req: &chat.Request{Options: chat.Options{Extra: map[string]any{"f": func() {}}}}, wantMsg: "encoding request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newModel(srv, ollama.Config{})
			if tc.noModel {
				m = ollama.New(ollama.Config{BaseURL: srv.URL, HTTPClient: srv.Client()})
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
	t.Cleanup(func() {
		assert.Zero(t, got.Count(), "invalid requests must not be sent")
	})
}

func TestConcurrentChat(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "b_plain")
	m := newModel(srv, ollama.Config{Options: map[string]any{"num_ctx": 2048}})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			req := &chat.Request{
				Messages: []chat.Message{chat.UserMessage("Hi there")},
				Options:  chat.Options{Seed: ptr(i), Extra: map[string]any{"top_k": i}},
			}
			resp, err := m.Chat(context.Background(), req)
			if assert.NoError(t, err) {
				assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 16, got.Count())
}
