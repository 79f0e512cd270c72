package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

func ptr[T any](v T) *T { return &v }

func TestChat(t *testing.T) {
	t.Parallel()
	askParis := []toolcall.Message{toolcall.UserMessage("What is the weather in Paris?")}
	// The assistant turn of c2_tools, as the library keeps it.
	parisCall := toolcall.ToolCall{ID: "call_kfi8g1mg", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	for _, tc := range []struct {
		name      string
		recording string
		captured  bool // the request must equal the recorded one
		cfg       ollama.Config
		req       *toolcall.Request
		want      *toolcall.ModelResponse
		wantErr   error
		status    int
		model     string   // the error's model
		wantMsg   []string // substrings of the error's Message
	}{
		{
			name: "plain", recording: "b_plain", captured: true,
			req: &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}},
			want: &toolcall.ModelResponse{
				Message:      toolcall.AssistantMessage("Hello! How can I help you?"),
				FinishReason: toolcall.FinishStop,
				Usage:        toolcall.Usage{PromptTokens: 9, CompletionTokens: 9, TotalTokens: 18},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool call", recording: "c2_tools", captured: true,
			req: &toolcall.Request{Messages: askParis, Tools: []toolcall.Definition{weatherTool}},
			want: &toolcall.ModelResponse{
				Message:      toolcall.AssistantMessage("", parisCall),
				FinishReason: toolcall.FinishToolCalls,
				Usage:        toolcall.Usage{PromptTokens: 156, CompletionTokens: 5, TotalTokens: 161},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "older server: no ids", recording: "h_tools_no_id", captured: true,
			req: &toolcall.Request{
				Messages: []toolcall.Message{toolcall.UserMessage("What is the weather in Paris and Lyon?")},
				Tools:    []toolcall.Definition{weatherTool},
			},
			want: &toolcall.ModelResponse{
				Message: toolcall.AssistantMessage("",
					toolcall.ToolCall{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
					toolcall.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`)}),
				FinishReason: toolcall.FinishToolCalls,
				Usage:        toolcall.Usage{PromptTokens: 160, CompletionTokens: 22, TotalTokens: 182},
				Model:        "tiny-toolcaller",
			},
		},
		{
			// The captured loop replays a call without id and a result
			// without tool_call_id, as with an older server.
			name: "tool result without ids", recording: "e_loop", captured: true,
			req: &toolcall.Request{
				Messages: append(append([]toolcall.Message{}, askParis...),
					toolcall.AssistantMessage("", toolcall.ToolCall{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}),
					toolcall.Message{Role: toolcall.RoleTool, Content: `{"temperature":21}`, ToolName: "get_weather"}),
				Tools: []toolcall.Definition{weatherTool},
			},
			want: &toolcall.ModelResponse{
				Message:      toolcall.AssistantMessage("The weather is warm."),
				FinishReason: toolcall.FinishStop,
				Usage:        toolcall.Usage{PromptTokens: 199, CompletionTokens: 6, TotalTokens: 205},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool result with ids", recording: "e_loop",
			req: &toolcall.Request{
				Messages: append(append([]toolcall.Message{}, askParis...),
					toolcall.AssistantMessage("", parisCall),
					toolcall.ToolMessage(parisCall, `{"temperature":21}`)),
				Tools: []toolcall.Definition{weatherTool},
			},
			want: &toolcall.ModelResponse{
				Message:      toolcall.AssistantMessage("The weather is warm."),
				FinishReason: toolcall.FinishStop,
				Usage:        toolcall.Usage{PromptTokens: 199, CompletionTokens: 6, TotalTokens: 205},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "model without tool support", recording: "c_tools_notools_model", captured: true,
			cfg:     ollama.Config{Model: "tiny-notools"},
			req:     &toolcall.Request{Messages: askParis, Tools: []toolcall.Definition{weatherTool}},
			wantErr: toolcall.ErrToolsNotSupported, status: 400, model: "tiny-notools",
			wantMsg: []string{"tiny-notools", "does not support tools"},
		},
		{
			name: "model not found", recording: "m_model_not_found", captured: true,
			req:     &toolcall.Request{Model: "does-not-exist", Messages: askParis},
			wantErr: toolcall.ErrModelNotFound, status: 404, model: "does-not-exist",
			wantMsg: []string{"model 'does-not-exist' not found", "ollama pull does-not-exist"},
		},
		{
			name: "server error", recording: "h_server_error", captured: true,
			req:     &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}},
			wantErr: toolcall.ErrServer, status: 500, model: "tiny-toolcaller",
			wantMsg: []string{"llama runner process has terminated"},
		},
		{
			name: "malformed JSON", recording: "h_malformed", captured: true,
			req:     &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}},
			wantErr: toolcall.ErrBadResponse, status: 200, model: "tiny-toolcaller",
			wantMsg: []string{"not valid JSON"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recording)
			m := newModel(srv, tc.cfg)

			resp, err := m.Chat(context.Background(), tc.req)

			sent := got.body(t, 0)
			providertest.CheckGolden(t, "chat_"+slug(tc.name), sent, *update)
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
			assert.Equal(t, tc.want, resp)
		})
	}
}

// cloneRequest copies req deeply, so that a later change to req shows.
func cloneRequest(req *toolcall.Request) *toolcall.Request {
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

// slug turns a case name into a file name part: "Malformed JSON" -> "malformed_json".
func slug(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	return strings.Join(f, "_")
}

// TestRequestMapping pins the body sent for the request settings.
func TestRequestMapping(t *testing.T) {
	t.Parallel()
	hi := []toolcall.Message{toolcall.SystemMessage("Be brief."), toolcall.UserMessage("Hi there")}
	for _, tc := range []struct {
		name string
		cfg  ollama.Config
		req  *toolcall.Request
	}{
		{
			name: "options",
			cfg: ollama.Config{
				KeepAlive: "10m", Think: ptr(true),
				Options: map[string]any{"num_ctx": 4096, "repeat_penalty": 1.1, "temperature": 0.9},
			},
			req: &toolcall.Request{
				Model:    "qwen2.5:7b",
				Messages: hi,
				Options: toolcall.Options{
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
			req: &toolcall.Request{Messages: hi, Options: toolcall.Options{
				Extra: map[string]any{"keep_alive": "-1", "think": "low", "format": "json", "num_ctx": 2048},
			}},
		},
		{
			name: "keep alive in seconds",
			cfg:  ollama.Config{KeepAlive: "0", Think: ptr(false)},
			req:  &toolcall.Request{Messages: hi},
		},
		{
			name: "tool choice none offers no tools",
			req: &toolcall.Request{
				Messages: hi, Tools: []toolcall.Definition{weatherTool},
				ToolChoice: toolcall.ToolChoice{Mode: toolcall.ToolChoiceNone},
			},
		},
		{
			name: "tool choice required is not enforced",
			req: &toolcall.Request{
				Messages: hi, Tools: []toolcall.Definition{weatherTool},
				ToolChoice: toolcall.ToolChoice{Mode: toolcall.ToolChoiceRequired},
			},
		},
		{
			name: "tool without parameters",
			req: &toolcall.Request{
				Messages: hi,
				Tools:    []toolcall.Definition{{Name: "now", Description: "Current time"}},
			},
		},
		{
			name: "replayed arguments become objects",
			req: &toolcall.Request{Messages: []toolcall.Message{
				toolcall.UserMessage("go"),
				toolcall.AssistantMessage("Calling.",
					toolcall.ToolCall{ID: "call_a", Name: "now", Arguments: json.RawMessage(``)},
					toolcall.ToolCall{ID: "call_b", Name: "now", Arguments: json.RawMessage(`null`)},
					toolcall.ToolCall{ID: "call_c", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris", "days": 2}`)},
					toolcall.ToolCall{ID: "call_d", Name: "get_weather", Arguments: json.RawMessage(`"{\"city\":\"Lyon\"}"`)},
					toolcall.ToolCall{ID: "call_e", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Ni`)},
				),
				{Role: toolcall.RoleTool, ToolCallID: "call_e", ToolName: "get_weather", IsError: true, Content: "invalid arguments"},
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

			providertest.CheckGolden(t, "request_"+slug(tc.name), got.body(t, 0), *update)
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

	_, err := m.Chat(context.Background(), &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"tiny-toolcaller","messages":[{"role":"user","content":"Hi there"}],"stream":false,"options":{"num_ctx":4096}}`,
		string(got.body(t, 0)))
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
			wantErr: toolcall.ErrModelNotFound, wantMsg: "is BaseURL an Ollama server?"},
		{name: "HTML error page is not dumped", status: 502, contentType: "text/html", body: "<html><body>Bad gateway from nginx</body></html>",
			wantErr: toolcall.ErrServer, wantMsg: "Bad Gateway"},
		{name: "busy server asks to retry", status: 503, contentType: "application/json", body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`,
			header: map[string]string{"Retry-After": "7"}, wantErr: toolcall.ErrServer, wantMsg: "server busy", retryAfter: 7 * time.Second},
		{name: "rate limited asks to retry", status: 429, contentType: "application/json", body: `{"error":"too many requests, please retry later"}`,
			header: map[string]string{"Retry-After": "7"}, wantErr: toolcall.ErrRateLimited, wantMsg: "too many requests", retryAfter: 7 * time.Second},
		{name: "bad request", status: 400, contentType: "application/json", body: `{"error":"invalid options: foo"}`,
			wantErr: toolcall.ErrBadRequest, wantMsg: "invalid options: foo"},
		{name: "unauthorized proxy", status: 401, contentType: "application/json", body: `{"error":{"message":"missing bearer token"}}`,
			wantErr: toolcall.ErrUnauthorized, wantMsg: "missing bearer token"},
		{name: "error object with 200", status: 200, contentType: "application/json", body: `{"error":"something went wrong"}`,
			wantErr: toolcall.ErrServer, wantMsg: "something went wrong"},
		{name: "not done", status: 200, contentType: "application/json", body: `{}`,
			wantErr: toolcall.ErrBadResponse, wantMsg: `no "done": true`},
		{name: "empty body", status: 200, contentType: "application/json", body: ``,
			wantErr: toolcall.ErrBadResponse, wantMsg: "not valid JSON"},
		{name: "wrong field type", status: 200, contentType: "application/json", body: `{"message":{"content":5},"done":true}`,
			wantErr: toolcall.ErrBadResponse, wantMsg: "not valid JSON"},
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
			m := newModel(srv, ollama.Config{})

			resp, err := m.Chat(context.Background(), &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("hi")}})

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
		req     *toolcall.Request
		wantMsg string
	}{
		{name: "nil request", req: nil, wantMsg: "nil request"},
		{name: "no model", noModel: true, req: &toolcall.Request{}, wantMsg: "no model"},
		{name: "invalid schema", req: &toolcall.Request{Tools: []toolcall.Definition{{Name: "x", InputSchema: json.RawMessage(`{`)}}}, wantMsg: `tool "x"`},
		{name: "option JSON cannot hold", req: &toolcall.Request{Options: toolcall.Options{Extra: map[string]any{"f": func() {}}}}, wantMsg: "encoding request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newModel(srv, ollama.Config{})
			if tc.noModel {
				m = ollama.New(ollama.Config{BaseURL: srv.URL, HTTPClient: srv.Client()})
			}
			_, err := m.Chat(context.Background(), tc.req)
			require.ErrorIs(t, err, toolcall.ErrBadRequest)
			var pe *toolcall.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, pe.Message, tc.wantMsg)
			_, err = m.Stream(context.Background(), tc.req, nil)
			require.ErrorIs(t, err, toolcall.ErrBadRequest)
		})
	}
	t.Cleanup(func() {
		got.mu.Lock()
		defer got.mu.Unlock()
		assert.Empty(t, got.bodies, "invalid requests must not be sent")
	})
}

func TestConcurrentChat(t *testing.T) {
	t.Parallel()
	srv, got := replay(t, "b_plain")
	m := newModel(srv, ollama.Config{Options: map[string]any{"num_ctx": 2048}})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			req := &toolcall.Request{
				Messages: []toolcall.Message{toolcall.UserMessage("Hi there")},
				Options:  toolcall.Options{Seed: ptr(i), Extra: map[string]any{"top_k": i}},
			}
			resp, err := m.Chat(context.Background(), req)
			if assert.NoError(t, err) {
				assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
			}
		})
	}
	wg.Wait()
	got.mu.Lock()
	defer got.mu.Unlock()
	assert.Len(t, got.bodies, 16)
}
