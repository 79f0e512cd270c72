package openairesponses_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	openaisdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// BenchmarkRound measures one round over loopback: a request offering the
// three tools of a recorded request of OpenAI's API
// (function_call_then_output_tool, gpt-5-mini, with reasoning and its
// encrypted content asked for), answered with one tool call: that
// recording's reply (a reasoning item and the call), or for the stream
// variants the recorded stream of stream_reasoning_text_function_call
// (a reasoning item, a commentary message in 13 deltas, the call in 7).
// The same round goes through this package's Chat and Stream and through
// the official SDK (openai-go). Each side builds its request in the loop
// from tools defined once, and reads the call's name and arguments from
// the reply; the SDK's stream is read event by event, as its
// documentation shows, and the call taken from the final response.
func BenchmarkRound(b *testing.B) {
	ctx := context.Background()
	raw, err := os.ReadFile(filepath.Join("testdata", "cloud", "openai-responses", "function_call_then_output_tool", "01.request.json"))
	if err != nil {
		b.Fatal(err)
	}
	base := requestFrom(b, readRecorded(b, raw))
	if len(base.Tools) != 3 {
		b.Fatalf("%d tools", len(base.Tools))
	}
	question := base.Messages[len(base.Messages)-1].Content
	reasoning := map[string]any{"effort": "low"}

	for _, mode := range []struct {
		name, reply string
		stream      bool
	}{
		{name: "", reply: "function_call_then_output_tool/01"},
		{name: "-stream", reply: "stream_reasoning_text_function_call/01", stream: true},
	} {
		rec := providertest.LoadRecording(b, "cloud/openai-responses/"+mode.reply)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			rec.ServeHTTP(w, r)
		}))
		b.Cleanup(srv.Close)

		b.Run("toolcall"+mode.name, func(b *testing.B) {
			m := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-bench", Model: base.Model, HTTPClient: srv.Client()})
			providertest.BenchRound(b, m, mode.stream, func() *chat.Request {
				return &chat.Request{Messages: []chat.Message{chat.UserMessage(question)}, Tools: base.Tools,
					Options: chat.Options{Extra: map[string]any{"reasoning": reasoning}}}
			})
		})

		b.Run("sdk"+mode.name, func(b *testing.B) {
			client := openaisdk.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-bench"),
				option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
			tools := make([]responses.ToolUnionParam, len(base.Tools))
			for i, d := range base.Tools {
				var params map[string]any
				if err := json.Unmarshal(d.InputSchema, &params); err != nil {
					b.Fatal(err)
				}
				f := &responses.FunctionToolParam{Name: d.Name, Parameters: params, Strict: openaisdk.Bool(d.Strict)}
				if d.Description != "" {
					f.Description = openaisdk.String(d.Description)
				}
				tools[i] = responses.ToolUnionParam{OfFunction: f}
			}
			b.ReportAllocs()
			for b.Loop() {
				params := responses.ResponseNewParams{
					Model:     base.Model,
					Input:     responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(question, responses.EasyInputMessageRoleUser)}},
					Tools:     tools,
					Store:     openaisdk.Bool(false),
					Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow},
					Include:   []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
				}
				var out []responses.ResponseOutputItemUnion
				if mode.stream {
					stream := client.Responses.NewStreaming(ctx, params)
					for stream.Next() {
						if ev := stream.Current(); ev.Type == "response.completed" {
							out = ev.AsResponseCompleted().Response.Output
						}
					}
					if err := stream.Err(); err != nil {
						b.Fatalf("stream: %v", err)
					}
					stream.Close()
				} else {
					resp, err := client.Responses.New(ctx, params)
					if err != nil {
						b.Fatalf("reply %+v, error %v", resp, err)
					}
					out = resp.Output
				}
				var calls []responses.ResponseFunctionToolCall
				for _, it := range out {
					if it.Type == "function_call" {
						calls = append(calls, it.AsFunctionCall())
					}
				}
				if len(calls) != 1 || calls[0].Name == "" || len(calls[0].Arguments) < 2 {
					b.Fatalf("output %+v", out)
				}
			}
		})
	}
}
