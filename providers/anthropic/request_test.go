package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// okReply is a plain text reply.
const okReply = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`

var (
	parisCall = call("toolu_paris", "get_weather", `{"city":"Paris"}`)
	lyonCall  = call("toolu_lyon", "get_weather", `{"city":"Lyon"}`)
	shortTool = chat.ToolDefinition{Name: "get_weather", Description: "Get weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
)

// TestRequests pins the request bodies in testdata/golden (go test
// -update rewrites them); every body also passes checkSDK.
func TestRequests(t *testing.T) {
	t.Parallel()
	ask := chat.UserMessage("Weather in Paris and Lyon?")
	for _, tc := range []struct {
		name string
		cfg  anthropic.Config
		req  chat.Request
	}{
		{name: "plain", req: chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}},
		{name: "system prompts and merged turns", req: chat.Request{Messages: []chat.Message{
			chat.SystemMessage("Be brief."),
			chat.UserMessage("Hi"),
			chat.UserMessage("Are you there?"),
			chat.SystemMessage("Answer in French."),
			chat.AssistantMessage("Oui."),
			chat.AssistantMessage("Bonjour."),
			chat.UserMessage(""),
		}}},
		// The results answer the calls in the order of the calls, in one
		// user turn, before the text that follows them.
		{name: "tool results in call order before text", req: chat.Request{
			Messages: []chat.Message{
				ask,
				chat.AssistantMessage("Let me look.", parisCall, lyonCall),
				chat.ToolMessage(lyonCall, "rain in Lyon"),
				{Role: chat.RoleTool, ToolCallID: "toolu_paris", ToolName: "get_weather", Content: "service down", IsError: true},
				chat.UserMessage("Be quick."),
			},
			Tools: []chat.ToolDefinition{shortTool},
		}},
		{name: "empty tool result and call arguments", req: chat.Request{
			Messages: []chat.Message{
				ask,
				chat.AssistantMessage("", call("toolu_1", "now", ""), call("toolu_2", "now", "null"), call("toolu_3", "now", `"not an object"`)),
				chat.ToolMessage(call("toolu_1", "now", ""), ""),
				chat.ToolMessage(call("toolu_2", "now", ""), "12:00"),
				chat.ToolMessage(call("toolu_3", "now", ""), "12:00"),
			},
			Tools: []chat.ToolDefinition{{Name: "now", Description: "Current time"}},
		}},
		{name: "strict tool", req: chat.Request{Messages: []chat.Message{ask},
			Tools: []chat.ToolDefinition{{Name: "get_weather", InputSchema: shortTool.InputSchema, Strict: true}}}},
		{name: "tool choice auto", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceAuto}}},
		{name: "tool choice required", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}, Options: chat.Options{ParallelToolCalls: ptr(false)}}},
		{name: "tool choice named", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired, Name: "get_weather"}, Options: chat.Options{ParallelToolCalls: ptr(false)}}},
		// disable_parallel_tool_use has no meaning for none.
		{name: "tool choice none", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone}, Options: chat.Options{ParallelToolCalls: ptr(false)}}},
		{name: "no parallel calls", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			Options: chat.Options{ParallelToolCalls: ptr(false)}}},
		{name: "parallel calls allowed", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			Options: chat.Options{ParallelToolCalls: ptr(true)}}},
		{name: "tool choice without tools", req: chat.Request{Messages: []chat.Message{ask},
			ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}}},
		{name: "options", cfg: anthropic.Config{MaxTokens: 1000}, req: chat.Request{Messages: []chat.Message{ask},
			Options: chat.Options{Stop: []string{"\n\nHuman:", "END"}, Extra: map[string]any{"metadata": map[string]any{"user_id": "u-42"}, "service_tier": "auto"}}}},
		{name: "max tokens", cfg: anthropic.Config{MaxTokens: 1000}, req: chat.Request{Messages: []chat.Message{ask},
			Options: chat.Options{MaxTokens: ptr(64)}}},
		{name: "version 2023-06-01 samples", cfg: anthropic.Config{Version: anthropic.Version20230601}, req: chat.Request{Messages: []chat.Message{ask},
			Options: chat.Options{Temperature: ptr(0.0), TopP: ptr(0.9), Extra: map[string]any{"top_k": 40}}}},
		{name: "prompt caching", cfg: anthropic.Config{PromptCaching: true}, req: chat.Request{
			Messages: []chat.Message{chat.SystemMessage("You are a weather bot."), chat.SystemMessage("Be brief."), ask},
			Tools:    []chat.ToolDefinition{shortTool, {Name: "now", Description: "Current time"}},
		}},
		{name: "thinking", cfg: anthropic.Config{Thinking: json.RawMessage(`{"type":"enabled","budget_tokens":2048}`)}, req: chat.Request{
			Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool}, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceAuto},
		}},
		{name: "thinking from extra", cfg: anthropic.Config{Thinking: json.RawMessage(`{"type":"enabled","budget_tokens":2048}`)}, req: chat.Request{
			Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			Options: chat.Options{Extra: map[string]any{"thinking": map[string]any{"type": "adaptive"}}},
		}},
		{name: "thinking removed by extra", cfg: anthropic.Config{Thinking: json.RawMessage(`{"type":"enabled","budget_tokens":2048}`)}, req: chat.Request{
			Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool}, ToolChoice: chat.ToolChoice{Name: "get_weather"},
			Options: chat.Options{Extra: map[string]any{"thinking": nil}},
		}},
		// Turning thinking off allows a forced choice again.
		{name: "thinking disabled", cfg: anthropic.Config{Thinking: json.RawMessage(`{"type":"enabled","budget_tokens":2048}`)}, req: chat.Request{
			Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool}, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired},
			Options: chat.Options{Extra: map[string]any{"thinking": map[string]any{"type": "disabled"}}},
		}},
		{name: "request model overrides config", req: chat.Request{Model: "claude-other", Messages: []chat.Message{ask}}},
		// A typed answer, natively: output_config.format beside the tools.
		// The format has no strict field: Strict is not sent.
		{name: "output schema", req: chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{shortTool},
			Output: &chat.OutputFormat{Name: "answer", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string","description":"One line"}},"required":["summary"],"additionalProperties":false}`)}}},
		// Extra cannot set what the request itself sets.
		{name: "extra does not override", req: chat.Request{Messages: []chat.Message{ask}, Options: chat.Options{
			Extra: map[string]any{"model": "x", "messages": []any{}, "system": "x", "stream": true, "max_tokens": 1, "tools": []any{}, "tool_choice": "x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := serve(t, reply(okReply))
			m := newModel(srv, tc.cfg)
			resp, err := m.Chat(context.Background(), &tc.req)
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Message.Content)
			providertest.CheckGolden(t, "request_"+providertest.Slug(tc.name), c.Get(t, 0).Body, *update)
		})
	}
}

// TestRequestsRefused: requests the API would refuse, or that this package
// cannot send as asked, fail before anything is sent, with an error
// wrapping ErrBadRequest that names the problem.
func TestRequestsRefused(t *testing.T) {
	t.Parallel()
	ask := chat.UserMessage("Weather?")
	tools := []chat.ToolDefinition{shortTool}
	thinking := anthropic.Config{Thinking: json.RawMessage(`{"type":"adaptive"}`)}
	for _, tc := range []struct {
		name string
		cfg  anthropic.Config
		req  *chat.Request
		want string
	}{
		{"nil request", anthropic.Config{}, nil, "nil request"},
		{"seed", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Options: chat.Options{Seed: ptr(1)}}, "Options.Seed: the Messages API has no seed"},
		{"temperature", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Options: chat.Options{Temperature: ptr(0.0)}},
			`temperature: API version 2026-10-21 does not accept it (Config.Version "2023-06-01" does)`},
		{"top_p", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Options: chat.Options{TopP: ptr(1.0)}},
			`top_p: API version 2026-10-21 does not accept it`},
		{"top_k in extra", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Options: chat.Options{Extra: map[string]any{"top_k": 5}}},
			`top_k: API version 2026-10-21 does not accept it`},
		{"negative max tokens", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Options: chat.Options{MaxTokens: ptr(-1)}},
			"Options.MaxTokens is -1; it must not be negative"},
		{"thinking with tool choice any", thinking, &chat.Request{Messages: []chat.Message{ask}, Tools: tools, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}},
			`tool choice "any": with thinking on, the Messages API allows only auto and none`},
		{"thinking with a named tool", thinking, &chat.Request{Messages: []chat.Message{ask}, Tools: tools, ToolChoice: chat.ToolChoice{Name: "get_weather"}},
			`tool choice "tool": with thinking on`},
		{"thinking not an object", anthropic.Config{Thinking: json.RawMessage(`"on"`)}, &chat.Request{Messages: []chat.Message{ask}},
			"thinking: want an object"},
		{"named tool not offered", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Tools: tools, ToolChoice: chat.ToolChoice{Name: "get_time"}},
			`ToolChoice names tool "get_time", which the request does not offer`},
		{"named tool with none", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Tools: tools, ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone, Name: "get_weather"}},
			`ToolChoice names tool "get_weather" with mode none`},
		{"unknown tool choice", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Tools: tools, ToolChoice: chat.ToolChoice{Mode: "sometimes"}},
			`unknown tool choice mode "sometimes"`},
		{"invalid schema", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}, Tools: []chat.ToolDefinition{{Name: "bad", InputSchema: json.RawMessage(`{"type":`)}}},
			`tool "bad": input schema is not valid JSON`},
		{"unknown role", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask, {Role: "developer", Content: "x"}}},
			`message 1: unknown role "developer"`},
		{"tool result without id", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask, {Role: chat.RoleTool, Content: "x"}}},
			"message 1: tool result without ToolCallID"},
		{"no messages", anthropic.Config{}, &chat.Request{Messages: []chat.Message{chat.SystemMessage("Be brief."), chat.UserMessage("")}},
			"no messages to send"},
		{"bad provider data", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask, {Role: chat.RoleAssistant, Content: "x", ProviderData: json.RawMessage(`{"anthropic_content":{"type":"text"}}`)}}},
			"message 1: ProviderData: anthropic_content is not a list of content blocks"},
		{"no model", anthropic.Config{}, &chat.Request{Messages: []chat.Message{ask}}, "no model: set Config.Model or Request.Model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, c := serve(t, reply(okReply))
			model, m := "tiny-toolcaller", newModel(srv, tc.cfg)
			if tc.name == "no model" {
				model, m = "", anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), APIKey: testKey})
			}
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					_, err = m.Stream(context.Background(), tc.req, nil)
				} else {
					_, err = m.Chat(context.Background(), tc.req)
				}
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, model)
				assert.Contains(t, pe.Message, tc.want)
				assert.Zero(t, pe.Attempts, "nothing was sent")
			}
			assert.Zero(t, c.Count(), "nothing was sent")
		})
	}
}
