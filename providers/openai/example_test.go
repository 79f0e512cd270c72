package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// fakeServer answers /v1/chat/completions like a compatible server: a call
// to get_weather first, then the answer once a tool result is in the
// request. A stream request gets text and a call in fragments.
func fakeServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role string } `json:"messages"`
			Stream   bool                    `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Stream {
			// Text, then a call whose arguments come in two fragments.
			w.Header().Set("Content-Type", "text/event-stream")
			for _, delta := range []string{
				`{"content":"Let me check."}`,
				`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`,
			} {
				fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", delta)
			}
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
			fmt.Fprint(w, `{"model":"qwen2.5","choices":[{"index":0,"message":{"role":"assistant","content":"It is 21°C in Paris."},"finish_reason":"stop"}],"usage":{"prompt_tokens":60,"completion_tokens":9,"total_tokens":69}}`)
			return
		}
		fmt.Fprint(w, `{"model":"qwen2.5","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62}}`)
	}))
}

// WeatherInput is the argument of the example's weather tool.
type WeatherInput struct {
	City string `json:"city" jsonschema:"description=City name"`
}

func ExampleNew() {
	srv := fakeServer() // a real server: BaseURL "http://localhost:8080/v1", or leave it empty for OpenAI
	defer srv.Close()

	weather, err := toolcall.NewFunc("get_weather", "Get the weather in a city",
		func(ctx context.Context, in WeatherInput) (string, error) {
			return `{"temperature":21}`, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	model := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-...", Model: "qwen2.5", HTTPClient: srv.Client()})
	client := toolcall.NewClient(model)

	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	call := resp.Executions[0].Call
	fmt.Println(call.ID, call.Name, string(call.Arguments))
	fmt.Println(resp.Content())
	fmt.Println(resp.Usage.TotalTokens, "tokens in", resp.Rounds, "rounds")
	// Output:
	// call_1 get_weather {"city":"Paris"}
	// It is 21°C in Paris.
	// 131 tokens in 2 rounds
}

func ExampleModel_Stream() {
	srv := fakeServer()
	defer srv.Close()
	model := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "qwen2.5", HTTPClient: srv.Client()})

	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("What's the weather in Paris?")}}
	resp, err := model.Stream(context.Background(), req, func(d chat.Delta) bool {
		if d.ToolCall != nil {
			fmt.Printf("call %d fragment: id=%q name=%q arguments=%q\n", d.ToolCall.Index, d.ToolCall.ID, d.ToolCall.Name, d.ToolCall.Arguments)
		} else {
			fmt.Printf("text: %q\n", d.Content)
		}
		return true
	})
	if err != nil {
		log.Fatal(err)
	}
	c := resp.Message.ToolCalls[0]
	fmt.Println(resp.FinishReason, c.ID, c.Name, string(c.Arguments))
	// Output:
	// text: "Let me check."
	// call 0 fragment: id="call_1" name="get_weather" arguments="{\"city\":"
	// call 0 fragment: id="" name="" arguments="\"Paris\"}"
	// tool_calls call_1 get_weather {"city":"Paris"}
}
