package openairesponses_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// recordedServer answers /v1/responses with recorded replies, in turn:
// the n-th request gets testdata/NAME.response.json or .sse.txt of the
// n-th name.
func recordedServer(names ...string) *httptest.Server {
	var n atomic.Int32
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := names[min(int(n.Add(1))-1, len(names)-1)]
		if body, err := os.ReadFile(filepath.Join("testdata", name+".response.sse.txt")); err == nil {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(body)
			return
		}
		body, _ := os.ReadFile(filepath.Join("testdata", name+".response.json"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
}

// The tool loop over Ollama's /v1/responses, as recorded: a call to
// get_weather, then the answer once its result is sent.
func ExampleNew() {
	srv := recordedServer("ollama/a_tools", "ollama/c_tool_result") // a real server: "http://localhost:11434/v1", or leave BaseURL empty for OpenAI
	defer srv.Close()

	weather := toolcall.MustFunc("get_weather", "Get the current weather for a city",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=City name"`
		}) (string, error) {
			return "18 degrees, light wind", nil
		})
	model := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", Model: "tiny-toolcaller", HTTPClient: srv.Client()})
	resp, err := toolcall.NewClient(model).Prompt("What is the weather in Paris?").Tools(weather).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	call := resp.Executions[0].Call
	fmt.Println(call.ID, call.Name, string(call.Arguments), "->", resp.Executions[0].Result)
	fmt.Println(resp.Content())
	fmt.Println(resp.Usage.TotalTokens, "tokens in", resp.Rounds, "rounds")
	// Output:
	// call_lk55ifok get_weather {"city":"Paris"} -> 18 degrees, light wind
	// The weather is warm.
	// 452 tokens in 2 rounds
}

// A stream from llama.cpp's llama-server, as recorded: the call's id and
// name first, then its arguments one token at a time.
func ExampleModel_Stream() {
	srv := recordedServer("llamacpp/b_tools_stream")
	defer srv.Close()
	model := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", Model: "tiny-toolcaller", HTTPClient: srv.Client()})

	weather := chat.ToolDefinition{Name: "get_weather", Description: "Get the current weather for a city",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("What is the weather in Paris?")}, Tools: []chat.ToolDefinition{weather}}
	fragments := 0
	resp, err := model.Stream(context.Background(), req, func(d chat.Delta) bool {
		if d.ToolCall != nil && d.ToolCall.Name != "" {
			fmt.Println("call", d.ToolCall.Index, d.ToolCall.Name)
		} else if d.ToolCall != nil {
			fragments++
		}
		return true
	})
	if err != nil {
		log.Fatal(err)
	}
	c := resp.Message.ToolCalls[0]
	fmt.Println(fragments, "fragments:", string(c.Arguments))
	fmt.Println(resp.FinishReason, resp.Usage.PromptTokens, "prompt tokens,", resp.Usage.CacheReadTokens, "from the cache")
	// Output:
	// call 0 get_weather
	// 32 fragments: {"city": "Paris", "unit": "celsius", "days":1, "options": {"wind": true}}
	// tool_calls 267 prompt tokens, 266 from the cache
}

// A reasoning model's reply keeps its output items, reasoning items with
// their encrypted content among them, in the message (ProviderData); the
// next request sends them back in the reply's order, each reasoning item
// before the call it led to, which carries its output id, since nothing
// is stored on the server. The server here prints the input items it
// gets.
func ExampleModel_Chat_reasoning() {
	replies := recordedServer("h_reasoning_tools", "h_reasoning_answer")
	defer replies.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []struct {
				Type, ID, Role string
				CallID         string `json:"call_id"`
			}
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		if len(req.Input) > 1 {
			for _, it := range req.Input {
				fmt.Println("sent:", it.Type, strings.TrimSpace(it.Role+it.CallID+" "+it.ID))
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		replies.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	model := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", Model: "gpt-5-mini", HTTPClient: srv.Client()})
	weather := toolcall.MustFunc("get_weather", "Get the weather in a city", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "sunny", nil
	})
	resp, err := toolcall.NewClient(model).Prompt("Weather in Paris and Lyon?").Tools(weather).
		Options(chat.Options{Extra: map[string]any{"reasoning": map[string]any{"effort": "low", "summary": "auto"}}}).
		Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Content())
	fmt.Println(resp.Usage.ReasoningTokens, "reasoning tokens")
	// Output:
	// sent: message user
	// sent: reasoning rs_68e4a1c0f2d08190b3
	// sent: function_call call_wT7pQ2mX9 fc_68e4a1c1a0388190b3
	// sent: reasoning rs_68e4a1c1f9f08190b3
	// sent: function_call call_Ly0nR4kZ2 fc_68e4a1c2b1c48190b3
	// sent: function_call_output call_wT7pQ2mX9
	// sent: function_call_output call_Ly0nR4kZ2
	// Sunny in Paris, rain in Lyon.
	// 216 reasoning tokens
}
