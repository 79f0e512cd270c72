package gemini_test

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
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// recordedServer answers each POST with the next recorded reply of the
// Gemini API in testdata/cloud/gemini/NAME.response.*, as the API did.
func recordedServer(names ...string) *httptest.Server {
	n := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Join("testdata", "cloud", "gemini", names[min(n, len(names)-1)])
		n++
		body, err := os.ReadFile(name + ".response.json")
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			body, _ = os.ReadFile(name + ".response.sse.txt")
			w.Header().Set("Content-Type", "text/event-stream")
		}
		_, _ = w.Write(body)
	}))
}

// The tool loop on the Gemini API's recorded replies: gemini-2.5-flash
// calls get_weather, with a thought signature that goes back with the
// call, the tool runs, the model answers.
func ExampleNew() {
	srv := recordedServer("function_call_then_answer/01", "function_call_then_answer/02")
	defer srv.Close()

	model := gemini.New(gemini.Config{
		BaseURL: srv.URL,   // empty: GOOGLE_GEMINI_BASE_URL, else the Gemini API
		APIKey:  "AIza...", // empty: GOOGLE_API_KEY, else GEMINI_API_KEY
		Model:   "gemini-2.5-flash",
	})
	weather := toolcall.MustFunc("get_weather", "Get the current weather for a city.",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "Sunny, 22C in " + in.City, nil
		})
	resp, err := toolcall.NewClient(model).Prompt("What's the weather in Paris?").Tools(weather).Call(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range resp.Executions {
		fmt.Printf("%s %s(%s) = %s\n", e.Call.ID, e.Call.Name, e.Call.Arguments, e.Result)
	}
	fmt.Println(resp.Content())
	fmt.Printf("%d prompt tokens, %d completion tokens of which %d thinking\n",
		resp.Usage.PromptTokens, resp.Usage.CompletionTokens, resp.Usage.ReasoningTokens)
	// Output:
	// call_0 get_weather({"city":"Paris"}) = Sunny, 22C in Paris
	// The weather in Paris is sunny with a temperature of 22C.
	// 137 prompt tokens, 78 completion tokens of which 48 thinking
}

// A gemini-2.5-pro stream with thought summaries, replayed: the text as it
// arrives, the thoughts in Reasoning, and the text's thought signature
// kept on its part, to go back with the message.
func ExampleModel_Stream() {
	srv := recordedServer("stream_thought_parts/01")
	defer srv.Close()

	model := gemini.New(gemini.Config{BaseURL: srv.URL, Model: "gemini-2.5-pro",
		Thinking: &gemini.ThinkingConfig{IncludeThoughts: true}})
	pieces := 0
	resp, err := model.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("How do I cross the street?")}},
		func(d chat.Delta) bool {
			pieces++
			return true
		})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pieces, "text pieces:", strings.SplitN(resp.Message.Content, "!", 2)[0]+"!")
	fmt.Println("thoughts:", strings.SplitN(resp.Message.Reasoning, "\n", 2)[0])
	var kept struct {
		Parts []struct {
			Thought          bool   `json:"thought"`
			ThoughtSignature string `json:"thoughtSignature"`
		} `json:"gemini_parts"`
	}
	_ = json.Unmarshal(resp.Message.ProviderData, &kept)
	for _, p := range kept.Parts {
		fmt.Printf("part: thought %v, signed %v\n", p.Thought, p.ThoughtSignature != "")
	}
	fmt.Println(resp.FinishReason, resp.Usage.ReasoningTokens, "thinking tokens")
	// Output:
	// 19 text pieces: This is a great question!
	// thoughts: **Clarifying User Goals**
	// part: thought true, signed false
	// part: thought false, signed true
	// stop 787 thinking tokens
}
