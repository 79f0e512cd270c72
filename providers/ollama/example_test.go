package ollama_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// fakeOllama answers /api/chat like the captured server: a call to
// get_weather first, then the answer once a tool result is in the request.
func fakeOllama() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
			fmt.Fprint(w, `{"model":"qwen2.5","message":{"role":"assistant","content":"It is 21°C in Paris."},"done":true,"done_reason":"stop"}`)
			return
		}
		fmt.Fprint(w, `{"model":"qwen2.5","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"done":true,"done_reason":"stop"}`)
	}))
}

// WeatherInput is the argument of the example's weather tool.
type WeatherInput struct {
	City string `json:"city" jsonschema:"description=City name"`
}

func ExampleNew() {
	srv := fakeOllama() // a real server: leave BaseURL empty, or set OLLAMA_HOST
	defer srv.Close()

	weather, err := toolcall.NewFunc("get_weather", "Get the weather in a city",
		func(ctx context.Context, in WeatherInput) (string, error) {
			return `{"temperature":21}`, nil
		})
	if err != nil {
		log.Fatal(err)
	}
	model := ollama.New(ollama.Config{BaseURL: srv.URL, Model: "qwen2.5", HTTPClient: srv.Client()})
	client := toolcall.NewClient(model)

	resp, err := client.Prompt("What's the weather in Paris?").Tools(weather).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	call := resp.Executions[0].Call
	fmt.Println(call.ID, call.Name, string(call.Arguments)) // this server sent no id
	fmt.Println(resp.Content())
	// Output:
	// call_0 get_weather {"city":"Paris"}
	// It is 21°C in Paris.
}
