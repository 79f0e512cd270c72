package gemini_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"google.golang.org/genai"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// benchTools are three tools of the recorded requests: get_weather
// (function_call_then_answer), get_time (function_calls_three_rounds) and
// get_capital (function_call_signature_then_text).
var benchTools = []chat.ToolDefinition{
	{Name: "get_weather", Description: "Get the current weather for a city.",
		InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
	{Name: "get_time", Description: "Get the current time in a city.",
		InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`)},
	{Name: "get_capital", Description: "Get the capital of a country.",
		InputSchema: json.RawMessage(`{"additionalProperties":false,"properties":{"country":{"description":"The country name.","type":"string"}},"required":["country"],"type":"object"}`)},
}

// BenchmarkRound measures one round over loopback: a request with three
// tools answered with one call, the recorded reply of the Gemini API
// (function_call_then_answer: a functionCall with its thoughtSignature)
// or its recorded stream (stream_function_call_thought_signature: the
// call with its signature, then an empty text chunk with the
// finishReason). The same round goes through this package's Chat and
// Stream and through the official SDK, google.golang.org/genai. Each side
// builds its request in the loop from tools defined once, and reads the
// call's name and arguments from the reply; the SDK's stream is read
// chunk by chunk with its iterator, the calls taken from each chunk.
func BenchmarkRound(b *testing.B) {
	ctx := context.Background()
	const model, question = "gemini-2.5-flash", "What's the weather in Paris?"
	for _, mode := range []struct {
		name, fixture string
		stream        bool
	}{
		{name: "", fixture: "function_call_then_answer"},
		{name: "-stream", fixture: "stream_function_call_thought_signature", stream: true},
	} {
		rec := providertest.LoadRecording(b, "cloud/"+cloudAPI+"/"+mode.fixture+"/01")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			rec.ServeHTTP(w, r)
		}))
		b.Cleanup(srv.Close)

		b.Run("toolcall"+mode.name, func(b *testing.B) {
			m := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "AIza-bench-key", Model: model, HTTPClient: srv.Client()})
			providertest.BenchRound(b, m, mode.stream, func() *chat.Request {
				return &chat.Request{Messages: []chat.Message{chat.UserMessage(question)}, Tools: benchTools}
			})
		})

		b.Run("sdk"+mode.name, func(b *testing.B) {
			client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "AIza-bench-key", Backend: genai.BackendGeminiAPI,
				HTTPClient: srv.Client(), HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
			if err != nil {
				b.Fatal(err)
			}
			decls := make([]*genai.FunctionDeclaration, len(benchTools))
			for i, d := range benchTools {
				var schema any
				if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
					b.Fatal(err)
				}
				decls[i] = &genai.FunctionDeclaration{Name: d.Name, Description: d.Description, ParametersJsonSchema: schema}
			}
			b.ReportAllocs()
			for b.Loop() {
				config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: decls}}}
				contents := []*genai.Content{genai.NewContentFromText(question, genai.RoleUser)}
				var calls []*genai.FunctionCall
				if mode.stream {
					for chunk, err := range client.Models.GenerateContentStream(ctx, model, contents, config) {
						if err != nil {
							b.Fatalf("stream: %v", err)
						}
						calls = append(calls, chunk.FunctionCalls()...)
					}
				} else {
					resp, err := client.Models.GenerateContent(ctx, model, contents, config)
					if err != nil {
						b.Fatal(err)
					}
					calls = resp.FunctionCalls()
				}
				if len(calls) != 1 || calls[0].Name == "" || calls[0].Args == nil {
					b.Fatalf("calls %+v", calls)
				}
			}
		})
	}
}
