package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// BenchmarkRound measures one round, a request offering two tools answered
// with a tool call (the captured llama.cpp reply), over loopback: through
// this adapter's Chat, and through go-openai's CreateChatCompletion with
// the same request built by hand. The difference is the adapter's own
// cost: mapping the request and reply, and its lenient decoding.
func BenchmarkRound(b *testing.B) {
	reply := providertest.LoadRecording(b, "llamacpp/c2_tools_auto").Body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	}))
	b.Cleanup(srv.Close)
	ctx := context.Background()
	const question = "What is the weather in Paris?"

	b.Run("toolcall", func(b *testing.B) {
		m := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-bench", Model: "tiny", HTTPClient: srv.Client()})
		b.ReportAllocs()
		for b.Loop() {
			req := &chat.Request{
				Messages: []chat.Message{chat.UserMessage(question)},
				Tools:    []chat.ToolDefinition{weatherTool, nowTool},
			}
			resp, err := m.Chat(ctx, req)
			if err != nil || len(resp.Message.ToolCalls) != 1 {
				b.Fatalf("reply %+v, error %v", resp, err)
			}
		}
	})

	b.Run("goopenai", func(b *testing.B) {
		cfg := goopenai.DefaultConfig("sk-bench")
		cfg.BaseURL = srv.URL + "/v1"
		cfg.HTTPClient = srv.Client()
		c := goopenai.NewClientWithConfig(cfg)
		noParams := json.RawMessage(`{"type":"object","properties":{}}`)
		b.ReportAllocs()
		for b.Loop() {
			req := goopenai.ChatCompletionRequest{
				Model:    "tiny",
				Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: question}},
				Tools: []goopenai.Tool{
					{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
						Name: weatherTool.Name, Description: weatherTool.Description, Parameters: weatherTool.InputSchema}},
					{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
						Name: nowTool.Name, Description: nowTool.Description, Parameters: noParams}},
				},
			}
			resp, err := c.CreateChatCompletion(ctx, req)
			if err != nil || len(resp.Choices) != 1 || len(resp.Choices[0].Message.ToolCalls) != 1 {
				b.Fatalf("reply %+v, error %v", resp, err)
			}
		}
	})
}
