// Openai runs the tool-calling loop on an OpenAI-compatible Chat Completions
// API with package providers/openai: OpenAI itself, or llama.cpp's
// llama-server, vLLM, LM Studio, Ollama's /v1, DeepSeek, Groq...
//
// By default it needs no server and no key: it starts a fake server in the
// process (net/http/httptest) that replays replies shaped like those
// recorded from llama.cpp's llama-server, so the real adapter runs end to
// end, over HTTP, with no network. The fake server prints what it
// receives: note that tool call arguments go back as a JSON string and
// that the tool result carries the call's id. With -stream the tool call
// arrives in fragments, as server-sent events, and the adapter assembles
// it. (The package itself is tested on replies recorded from llama-server,
// Ollama, api.openai.com and Gemini's OpenAI-compatible endpoint: see its
// documentation.)
//
//	go run ./examples/openai            # offline, fake server
//	go run ./examples/openai -stream    # the same, streaming (SSE)
//
// Point it at a real server with OPENAI_API_KEY (OpenAI) or
// OPENAI_BASE_URL / -base-url (a compatible server):
//
//	OPENAI_API_KEY=sk-... go run ./examples/openai -model gpt-4o-mini
//	go run ./examples/openai -base-url http://localhost:8080/v1 -model qwen2.5 -stream
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// WeatherRequest is the input of get_weather.
type WeatherRequest struct {
	City string `json:"city" jsonschema:"description=City name"`
}

// Weather is the result of get_weather.
type Weather struct {
	City        string `json:"city"`
	Temperature int    `json:"temperature"`
	Sky         string `json:"sky"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run() error {
	baseURL := flag.String("base-url", os.Getenv("OPENAI_BASE_URL"), "API root such as http://localhost:8080/v1; empty means OpenAI if OPENAI_API_KEY is set, else a fake server in the process")
	modelName := flag.String("model", "gpt-4o-mini", "model name")
	stream := flag.Bool("stream", false, "stream the replies")
	flag.Parse()

	cfg := openai.Config{BaseURL: *baseURL, Model: *modelName} // APIKey: $OPENAI_API_KEY
	switch {
	case *baseURL == "" && os.Getenv("OPENAI_API_KEY") == "":
		srv := httptest.NewServer(fakeServer{})
		defer srv.Close()
		cfg.BaseURL, cfg.HTTPClient = srv.URL+"/v1", srv.Client()
		fmt.Println("Offline: a fake OpenAI-compatible server in this process replays recorded replies.")
		fmt.Println("Set OPENAI_API_KEY, OPENAI_BASE_URL or -base-url to use a real server.")
	case *baseURL == "":
		fmt.Printf("Using model %s on OpenAI.\n", *modelName)
	default:
		fmt.Printf("Using model %s at %s.\n", *modelName, *baseURL)
	}
	fmt.Println()

	weather, err := toolcall.NewFunc("get_weather", "Get the current weather in a city",
		func(ctx context.Context, in WeatherRequest) (Weather, error) {
			return Weather{City: in.City, Temperature: 21, Sky: "sunny"}, nil // a stand-in
		})
	if err != nil {
		return err
	}
	client := toolcall.NewClient(openai.New(cfg), toolcall.WithHooks(toolcall.Hooks{
		AfterTool: func(ctx context.Context, e toolcall.ToolExecution) {
			fmt.Printf("tool call:   %s %s %s\ntool result: %s\n", e.Call.ID, e.Call.Name, e.Call.Arguments, e.Result)
		},
	}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	question := "What's the weather in Paris?"
	fmt.Println("user:", question)
	prompt := client.Prompt(question).Tools(weather)
	var resp *toolcall.Response
	if *stream {
		for ev, err := range prompt.Stream(ctx) {
			if err != nil {
				return err
			}
			switch ev.Kind {
			case toolcall.EventText:
				fmt.Printf("text piece:  %q\n", ev.Text)
			case toolcall.EventDone:
				resp = ev.Response
			}
		}
	} else {
		if resp, err = prompt.Call(ctx); err != nil {
			return err
		}
	}
	fmt.Println("answer:", resp.Content())
	fmt.Printf("model rounds: %d, tokens: %d prompt + %d completion\n", resp.Rounds, resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	return nil
}

// fakeServer answers POST /v1/chat/completions as llama.cpp's llama-server
// does: a call to get_weather while the conversation has no tool result,
// then the answer.
type fakeServer struct{}

func (fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"not_found_error"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role       string     `json:"role"`
			Content    *string    `json:"content"`
			ToolCallID string     `json:"tool_call_id"`
			ToolCalls  []toolCall `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}

	var msgs, tools []string
	for _, m := range req.Messages {
		switch {
		case len(m.ToolCalls) > 0:
			f := m.ToolCalls[0].Function
			msgs = append(msgs, fmt.Sprintf("assistant(%s %q)", f.Name, f.Arguments))
		case m.Role == "tool" && m.Content != nil:
			msgs = append(msgs, fmt.Sprintf("tool(%s: %s)", m.ToolCallID, *m.Content))
		default:
			msgs = append(msgs, m.Role)
		}
	}
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	fmt.Printf("  [server] POST /v1/chat/completions model=%s stream=%t tools=%s\n", req.Model, req.Stream, strings.Join(tools, ","))
	fmt.Printf("  [server]   messages: %s\n", strings.Join(msgs, ", "))

	// The reply: a tool call while the conversation has no tool result,
	// then the answer. Streamed, the call's arguments and the text come in
	// fragments.
	var pieces, args []string
	var finish string
	var use usage
	if req.Messages[len(req.Messages)-1].Role != "tool" {
		args = []string{`{`, `"city"`, `:"`, `Paris`, `"}`}
		finish, use = "tool_calls", usage{PromptTokens: 284, CompletionTokens: 10, TotalTokens: 294}
	} else {
		pieces = []string{"It is ", "21°C ", "and sunny ", "in Paris."}
		finish, use = "stop", usage{PromptTokens: 358, CompletionTokens: 9, TotalTokens: 367}
	}
	const callID = "bV8QPhBwjnr8swJ3TeacS0uh9AwvlJsL" // llama-server's ids have no call_ prefix
	reply := completion{ID: "chatcmpl-hoguqZcs6xJXOsqpBHybhanqxWyJMf2h", Created: 1795347555, Model: req.Model}

	if !req.Stream {
		reply.Object = "chat.completion"
		msg := &message{Role: "assistant", Content: strings.Join(pieces, "")}
		if args != nil {
			msg.ToolCalls = []toolCall{{ID: callID, Type: "function", Function: function{Name: "get_weather", Arguments: strings.Join(args, "")}}}
		}
		reply.Choices = []choice{{Message: msg, FinishReason: &finish}}
		reply.Usage = &use
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(reply)
		return
	}

	fmt.Printf("  [server]   streaming %d text and %d tool call fragments\n", len(pieces), len(args))
	w.Header().Set("Content-Type", "text/event-stream")
	reply.Object = "chat.completion.chunk"
	send := func(delta *message, finish *string, use *usage) {
		c := reply
		c.Choices = []choice{{Delta: delta, FinishReason: finish}}
		if use != nil {
			c.Choices, c.Usage = []choice{}, use
		}
		data, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	send(&message{Role: "assistant"}, nil, nil)
	for _, p := range pieces {
		send(&message{Content: p}, nil, nil)
	}
	zero := 0
	for i, a := range args {
		tc := toolCall{Index: &zero, Function: function{Arguments: a}}
		if i == 0 { // id, type and name come with the first fragment only
			tc.ID, tc.Type, tc.Function.Name = callID, "function", "get_weather"
		}
		send(&message{ToolCalls: []toolCall{tc}}, nil, nil)
	}
	send(&message{}, &finish, nil)
	send(nil, nil, &use) // usage, because the adapter asks for it
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// The wire types of Chat Completions, as far as the fake server needs them.
type (
	completion struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   *usage   `json:"usage,omitempty"`
	}
	choice struct {
		Index        int      `json:"index"`
		Message      *message `json:"message,omitempty"`
		Delta        *message `json:"delta,omitempty"`
		FinishReason *string  `json:"finish_reason"`
	}
	message struct {
		Role      string     `json:"role,omitempty"`
		Content   string     `json:"content,omitempty"`
		ToolCalls []toolCall `json:"tool_calls,omitempty"`
	}
	toolCall struct {
		Index    *int     `json:"index,omitempty"`
		ID       string   `json:"id,omitempty"`
		Type     string   `json:"type,omitempty"`
		Function function `json:"function"`
	}
	function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
)
