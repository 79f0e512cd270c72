// Anthropic runs the tool-calling loop on Anthropic's Messages API with
// package providers/anthropic: Claude itself, or Ollama and llama.cpp's
// llama-server, which serve /v1/messages too.
//
// By default it needs no server and no key: it starts a fake server in the
// process (net/http/httptest) that answers as the Messages API does, so the
// real provider runs end to end, over HTTP, with no network. The fake
// server prints what it receives: note that the call goes back as a
// tool_use block with its id, and its result as a tool_result block in the
// next user turn. With -stream the call's arguments arrive as
// input_json_delta fragments, which the provider assembles. (The package
// itself is tested on replies recorded from llama-server, Ollama and
// api.anthropic.com: see its documentation.)
//
//	go run ./examples/anthropic            # offline, fake server
//	go run ./examples/anthropic -stream    # the same, streaming (SSE)
//
// Point it at a real server with ANTHROPIC_API_KEY (Anthropic) or
// ANTHROPIC_BASE_URL / -base-url (Ollama, llama-server; they speak API
// version 2023-06-01, which -version sets):
//
//	ANTHROPIC_API_KEY=sk-ant-... go run ./examples/anthropic -model claude-sonnet-4-5
//	go run ./examples/anthropic -base-url http://localhost:11434 -version 2023-06-01 -model qwen3 -stream
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
	"github.com/toolcall-go/toolcall/providers/anthropic"
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
	baseURL := flag.String("base-url", os.Getenv("ANTHROPIC_BASE_URL"), "server root such as http://localhost:11434; empty means Anthropic if ANTHROPIC_API_KEY is set, else a fake server in the process")
	modelName := flag.String("model", "claude-sonnet-4-5", "model name")
	version := flag.String("version", "", "anthropic-version header: empty for "+anthropic.DefaultVersion+", or "+anthropic.Version20230601)
	stream := flag.Bool("stream", false, "stream the replies")
	flag.Parse()

	cfg := anthropic.Config{BaseURL: *baseURL, Model: *modelName, Version: *version} // APIKey: $ANTHROPIC_API_KEY
	switch {
	case *baseURL == "" && os.Getenv("ANTHROPIC_API_KEY") == "":
		srv := httptest.NewServer(fakeServer{})
		defer srv.Close()
		cfg.BaseURL, cfg.HTTPClient = srv.URL, srv.Client()
		fmt.Println("Offline: a fake Messages API server in this process answers as Claude would.")
		fmt.Println("Set ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL or -base-url to use a real server.")
	case *baseURL == "":
		fmt.Printf("Using model %s on Anthropic.\n", *modelName)
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
	client := toolcall.NewClient(anthropic.New(cfg), toolcall.WithHooks(toolcall.Hooks{
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
	u := resp.Usage
	fmt.Printf("model rounds: %d, tokens: %d prompt (%d from the cache) + %d completion\n", resp.Rounds, u.PromptTokens, u.CacheReadTokens, u.CompletionTokens)
	return nil
}

// fakeServer answers POST /v1/messages as the Messages API does: a
// tool_use block while the last user turn holds no tool_result, then the
// answer.
type fakeServer struct{}

func (fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string  `json:"role"`
			Content []block `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`)
		return
	}

	var turns, tools []string
	for _, m := range req.Messages {
		var parts []string
		for _, b := range m.Content {
			switch b.Type {
			case "tool_use":
				parts = append(parts, fmt.Sprintf("tool_use %s %s", b.Name, b.Input))
			case "tool_result":
				parts = append(parts, fmt.Sprintf("tool_result %s: %s", b.ToolUseID, b.Content))
			default:
				parts = append(parts, b.Type)
			}
		}
		turns = append(turns, fmt.Sprintf("%s(%s)", m.Role, strings.Join(parts, ", ")))
	}
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	fmt.Printf("  [server] POST /v1/messages model=%s stream=%t tools=%s anthropic-version=%s\n", req.Model, req.Stream, strings.Join(tools, ","), r.Header.Get("Anthropic-Version"))
	fmt.Printf("  [server]   messages: %s\n", strings.Join(turns, ", "))

	// A call while the last user turn holds no result, then the answer.
	// Streamed, the call's arguments and the text come in fragments.
	const callID = "toolu_01D7FLrfh4GYq7yT1ULFeyMV"
	last := req.Messages[len(req.Messages)-1].Content
	answering := len(last) > 0 && last[0].Type == "tool_result"
	var first block
	var pieces []string
	stop, in, out := "tool_use", 380, 54
	if answering {
		pieces = []string{"It is ", "21°C ", "and sunny ", "in Paris."}
		first = block{Type: "text", Text: strings.Join(pieces, "")}
		stop, in, out = "end_turn", 45, 12
	} else {
		pieces = []string{`{"city":`, ` "Paris"}`}
		first = block{Type: "tool_use", ID: callID, Name: "get_weather", Input: json.RawMessage(strings.Join(pieces, ""))}
	}
	// Claude caches the prompt's start: input_tokens leaves the cached
	// tokens out.
	usage := map[string]int{"input_tokens": in, "cache_read_input_tokens": 400, "output_tokens": out}

	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_011CSHoEeqs5C35K2UUqR7Fy")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": req.Model,
			"content": []block{first}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}

	fmt.Printf("  [server]   streaming %d %s fragments\n", len(pieces), map[bool]string{true: "text", false: "input_json"}[answering])
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v map[string]any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], data)
	}
	event(map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "usage": map[string]int{"input_tokens": in, "cache_read_input_tokens": 400, "output_tokens": 1},
	}})
	start := map[string]any{"type": "text", "text": ""}
	delta := func(p string) map[string]any { return map[string]any{"type": "text_delta", "text": p} }
	if !answering {
		// The input is a placeholder: the fragments replace it.
		start = map[string]any{"type": "tool_use", "id": callID, "name": "get_weather", "input": map[string]any{}}
		delta = func(p string) map[string]any { return map[string]any{"type": "input_json_delta", "partial_json": p} }
	}
	event(map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	event(map[string]any{"type": "ping"})
	for _, p := range pieces {
		event(map[string]any{"type": "content_block_delta", "index": 0, "delta": delta(p)})
	}
	event(map[string]any{"type": "content_block_stop", "index": 0})
	event(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": out}})
	event(map[string]any{"type": "message_stop"})
}

// block is a content block, as far as the fake server needs one.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}
