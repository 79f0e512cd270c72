package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// benchTools are three tools of the recorded requests: get_weather
// (tool_use_then_answer), get_elevation (text_then_parallel_tool_use) and
// get_temperature (stream_thinking_tool_use).
var benchTools = []chat.ToolDefinition{
	{Name: "get_weather", Description: "Get the current weather for a city.",
		InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
	{Name: "get_elevation", Description: "Get the elevation of a city.",
		InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
	{Name: "get_temperature", Description: "Get the temperature in a city.",
		InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
}

// BenchmarkRound measures one round over loopback: a request with three
// tools answered with one tool call, the recorded reply of Anthropic's API
// (tool_use_then_answer: one tool_use) or its recorded stream
// (stream_thinking_tool_use: thinking with its signature, then a tool_use
// whose input comes in four fragments, pings between). The same round
// goes through this package's Chat and Stream and through the official
// SDK, anthropic-sdk-go. Each side builds its request in the loop from
// tools defined once, and reads the call's name and input from the reply;
// the SDK's stream is put together with Message.Accumulate, as its
// documentation shows.
func BenchmarkRound(b *testing.B) {
	ctx := context.Background()
	const model, question = "claude-sonnet-4-5", "What's the weather in Paris?"
	for _, mode := range []struct {
		name, fixture string
		stream        bool
	}{
		{name: "", fixture: "tool_use_then_answer"},
		{name: "-stream", fixture: "stream_thinking_tool_use", stream: true},
	} {
		rec := providertest.LoadRecording(b, "cloud/"+cloudAPI+"/"+mode.fixture+"/01")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			rec.ServeHTTP(w, r)
		}))
		b.Cleanup(srv.Close)

		b.Run("toolcall"+mode.name, func(b *testing.B) {
			m := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "sk-ant-bench", Model: model, HTTPClient: srv.Client()})
			providertest.BenchRound(b, m, mode.stream, func() *chat.Request {
				return &chat.Request{Messages: []chat.Message{chat.UserMessage(question)}, Tools: benchTools}
			})
		})

		b.Run("sdk"+mode.name, func(b *testing.B) {
			client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("sk-ant-bench"),
				option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
			tools := make([]sdk.ToolUnionParam, len(benchTools))
			for i, d := range benchTools {
				var schema struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				}
				if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
					b.Fatal(err)
				}
				tools[i] = sdk.ToolUnionParam{OfTool: &sdk.ToolParam{
					Name:        d.Name,
					Description: sdk.String(d.Description),
					InputSchema: sdk.ToolInputSchemaParam{Properties: schema.Properties, Required: schema.Required,
						ExtraFields: map[string]any{"additionalProperties": false}},
				}}
			}
			b.ReportAllocs()
			for b.Loop() {
				params := sdk.MessageNewParams{
					Model:     model,
					MaxTokens: anthropic.DefaultMaxTokens,
					Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(question))},
					Tools:     tools,
				}
				var msg *sdk.Message
				if mode.stream {
					stream := client.Messages.NewStreaming(ctx, params)
					msg = &sdk.Message{}
					for stream.Next() {
						if err := msg.Accumulate(stream.Current()); err != nil {
							b.Fatal(err)
						}
					}
					if err := stream.Err(); err != nil {
						b.Fatalf("stream: %v", err)
					}
					stream.Close()
				} else {
					var err error
					if msg, err = client.Messages.New(ctx, params); err != nil {
						b.Fatal(err)
					}
				}
				var calls int
				for _, block := range msg.Content {
					if block.Type == "tool_use" {
						if block.Name == "" || len(block.Input) < 2 {
							b.Fatalf("call %+v", block)
						}
						calls++
					}
				}
				if calls != 1 {
					b.Fatalf("message %+v", msg)
				}
			}
		})
	}
}
