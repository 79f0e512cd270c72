package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// recordedServer answers POST /v1/messages with the recorded replies of
// testdata/NAME.response.*, in turn, as the server that made them did.
func recordedServer(names ...string) *httptest.Server {
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := names[min(n, len(names)-1)]
		n++
		body, err := os.ReadFile(filepath.Join("testdata", name+".response.json"))
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			body, _ = os.ReadFile(filepath.Join("testdata", name+".response.sse.txt"))
			w.Header().Set("Content-Type", "text/event-stream")
		}
		_, _ = w.Write(body)
	}))
}

// The tool loop over Ollama's /v1/messages, on its recorded replies: the
// model calls get_weather, the tool runs, the model answers.
func ExampleNew() {
	srv := recordedServer("ollama/a_tools", "ollama/c_tool_result")
	defer srv.Close()

	model := anthropic.New(anthropic.Config{
		BaseURL: srv.URL, // Ollama: "http://localhost:11434"; empty: ANTHROPIC_BASE_URL, else Anthropic
		Model:   "tiny-toolcaller",
		Version: anthropic.Version20230601, // what Ollama and llama-server speak
	})
	weather := toolcall.MustFunc("get_weather", "Get the current weather for a city",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "18 degrees, light wind in " + in.City, nil
		})
	resp, err := toolcall.NewClient(model).Prompt("What is the weather in Paris?").Tools(weather).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range resp.Executions {
		fmt.Printf("%s(%s) = %s\n", e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println(resp.Content())
	fmt.Printf("%d prompt tokens\n", resp.Usage.PromptTokens)
	// Output:
	// get_weather({"city":"Paris"}) = 18 degrees, light wind in Paris
	// The weather is warm.
	// 425 prompt tokens
}

// A llama-server stream, replayed: text as it arrives, and the usage,
// whose cached prompt tokens llama-server leaves out of input_tokens.
func ExampleModel_Stream() {
	srv := recordedServer("llamacpp/d_plain_stream")
	defer srv.Close()

	model := anthropic.New(anthropic.Config{BaseURL: srv.URL, Model: "tiny-toolcaller", Version: anthropic.Version20230601})
	var pieces []string
	resp, err := model.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}},
		func(d chat.Delta) bool {
			pieces = append(pieces, fmt.Sprintf("%q", d.Content))
			return true
		})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(pieces, " "))
	fmt.Println(resp.FinishReason, resp.Usage.PromptTokens, "prompt tokens,", resp.Usage.CacheReadTokens, "from the cache")
	// Output:
	// "Hello" "!" " How" " can" " I" " help" " you" "?"
	// stop 30 prompt tokens, 24 from the cache
}

// With thinking on, a reply's thinking is its Reasoning, and its blocks,
// signatures included, stay on the message to go back with the tool
// results.
func ExampleConfig_thinking() {
	srv := recordedServer("h_thinking_tools")
	defer srv.Close()

	model := anthropic.New(anthropic.Config{
		BaseURL:  srv.URL,
		Model:    "claude-sonnet-4-5",
		Thinking: json.RawMessage(`{"type":"enabled","budget_tokens":2048}`),
	})
	resp, err := model.Chat(context.Background(), &chat.Request{
		Messages: []chat.Message{chat.UserMessage("Weather in Paris and Lyon?")},
		Tools:    []chat.ToolDefinition{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("thinking:", resp.Message.Reasoning)
	for _, c := range resp.Message.ToolCalls {
		fmt.Println("call:", c.Name, string(c.Arguments))
	}
	var kept map[string][]struct{ Type string }
	_ = json.Unmarshal(resp.Message.ProviderData, &kept)
	var types []string
	for _, b := range kept["anthropic_content"] {
		types = append(types, b.Type)
	}
	fmt.Println("blocks kept:", strings.Join(types, ", "))
	// Output:
	// thinking: The user wants the weather in Paris and Lyon. I will call get_weather for each city.
	// call: get_weather {"city":"Paris"}
	// call: get_weather {"city":"Lyon"}
	// blocks kept: thinking, redacted_thinking, text, tool_use, tool_use
}
