package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// A benchRound is one recorded round of the real API: a request offering
// three tools, answered with one tool call.
type benchRound struct {
	model    string
	question string
	tools    []chat.ToolDefinition
	reply    providertest.Recording
}

// loadBenchRound reads the first exchange of a cloud fixture.
func loadBenchRound(b *testing.B, fixture string) benchRound {
	rec := providertest.LoadRecording(b, "cloud/"+cloudAPI+"/"+fixture+"/01")
	var f providertest.CloudFixture
	for _, fx := range providertest.LoadCloud(b, cloudAPI, cloudNames()) {
		if fx.Name == fixture {
			f = fx
		}
	}
	req := firstRequest(b, f.Exchanges[0].Request)
	if len(req.Tools) != 3 || len(req.Messages) == 0 {
		b.Fatalf("%s: %d tools, %d messages", fixture, len(req.Tools), len(req.Messages))
	}
	return benchRound{model: req.Model, question: req.Messages[len(req.Messages)-1].Content, tools: req.Tools, reply: rec}
}

func (r benchRound) server(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.reply.ServeHTTP(w, req)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkRound measures one round over loopback: a request with three
// tools answered with one tool call, the recorded reply of OpenAI's API
// (tool_call_then_output_tool), or its recorded stream of 40 chunks
// (stream_tool_call_mcp). The same round goes through this package's Chat
// and Stream, through the official SDK (openai-go) and through go-openai.
// Each side builds its request in the loop from tools defined once, and
// reads the call's name and arguments from the reply; the SDK's stream is
// put together with its ChatCompletionAccumulator, as its documentation
// shows.
func BenchmarkRound(b *testing.B) {
	ctx := context.Background()
	for _, mode := range []struct {
		name    string
		fixture string
		stream  bool
	}{
		{name: "", fixture: "tool_call_then_output_tool"},
		{name: "-stream", fixture: "stream_tool_call_mcp", stream: true},
	} {
		round := loadBenchRound(b, mode.fixture)
		srv := round.server(b)

		b.Run("toolcall"+mode.name, func(b *testing.B) {
			m := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-bench", Model: round.model, HTTPClient: srv.Client()})
			providertest.BenchRound(b, m, mode.stream, func() *chat.Request {
				return &chat.Request{Messages: []chat.Message{chat.UserMessage(round.question)}, Tools: round.tools}
			})
		})

		b.Run("sdk"+mode.name, func(b *testing.B) {
			client := openaisdk.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-bench"),
				option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
			tools := make([]openaisdk.ChatCompletionToolUnionParam, len(round.tools))
			for i, d := range round.tools {
				var params shared.FunctionParameters
				if err := json.Unmarshal(d.InputSchema, &params); err != nil {
					b.Fatal(err)
				}
				f := shared.FunctionDefinitionParam{Name: d.Name, Parameters: params}
				if d.Description != "" {
					f.Description = openaisdk.String(d.Description)
				}
				if d.Strict {
					f.Strict = openaisdk.Bool(true)
				}
				tools[i] = openaisdk.ChatCompletionFunctionTool(f)
			}
			b.ReportAllocs()
			for b.Loop() {
				params := openaisdk.ChatCompletionNewParams{
					Model:    round.model,
					Messages: []openaisdk.ChatCompletionMessageParamUnion{openaisdk.UserMessage(round.question)},
					Tools:    tools,
				}
				var msg openaisdk.ChatCompletionMessage
				if mode.stream {
					params.StreamOptions.IncludeUsage = openaisdk.Bool(true) // as this package asks
					stream := client.Chat.Completions.NewStreaming(ctx, params)
					var acc openaisdk.ChatCompletionAccumulator
					for stream.Next() {
						acc.AddChunk(stream.Current())
					}
					if err := stream.Err(); err != nil || len(acc.Choices) != 1 {
						b.Fatalf("stream: %v", err)
					}
					stream.Close()
					msg = acc.Choices[0].Message
				} else {
					resp, err := client.Chat.Completions.New(ctx, params)
					if err != nil || len(resp.Choices) != 1 {
						b.Fatalf("reply %+v, error %v", resp, err)
					}
					msg = resp.Choices[0].Message
				}
				if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name == "" || len(msg.ToolCalls[0].Function.Arguments) < 2 {
					b.Fatalf("message %+v", msg)
				}
			}
		})

		if mode.stream {
			continue
		}
		b.Run("goopenai", func(b *testing.B) {
			cfg := goopenai.DefaultConfig("sk-bench")
			cfg.BaseURL = srv.URL + "/v1"
			cfg.HTTPClient = srv.Client()
			c := goopenai.NewClientWithConfig(cfg)
			tools := make([]goopenai.Tool, len(round.tools))
			for i, d := range round.tools {
				tools[i] = goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
					Name: d.Name, Description: d.Description, Strict: d.Strict, Parameters: d.InputSchema}}
			}
			b.ReportAllocs()
			for b.Loop() {
				req := goopenai.ChatCompletionRequest{
					Model:    round.model,
					Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: round.question}},
					Tools:    tools,
				}
				resp, err := c.CreateChatCompletion(ctx, req)
				if err != nil || len(resp.Choices) != 1 || len(resp.Choices[0].Message.ToolCalls) != 1 || resp.Choices[0].Message.ToolCalls[0].Function.Name == "" {
					b.Fatalf("reply %+v, error %v", resp, err)
				}
			}
		})
	}
}
