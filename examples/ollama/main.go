// Ollama runs the tool-calling loop on Ollama's native chat API
// (POST /api/chat) with package providers/ollama.
//
// By default it needs no Ollama: it starts a fake server in the process
// (net/http/httptest) that replays replies recorded from Ollama v0.24.0,
// so the real adapter runs end to end, over HTTP, with no network. The fake
// server prints what it receives: note that tool call arguments go back as
// a JSON object, as Ollama requires, and that the tool result carries the
// tool's name.
//
//	go run ./examples/ollama            # offline, fake server
//	go run ./examples/ollama -stream    # the same, streaming (NDJSON)
//
// Point it at a real server with -host or OLLAMA_HOST, and pick a model
// that supports tools (ollama pull qwen2.5):
//
//	OLLAMA_HOST=localhost:11434 go run ./examples/ollama -model qwen2.5
//	go run ./examples/ollama -host http://gpu-box:11434 -model llama3.1 -stream
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
	"github.com/toolcall-go/toolcall/providers/ollama"
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
	host := flag.String("host", os.Getenv("OLLAMA_HOST"), "Ollama server; empty runs a fake server in the process")
	modelName := flag.String("model", "qwen2.5", "model name")
	stream := flag.Bool("stream", false, "stream the replies")
	flag.Parse()

	cfg := ollama.Config{BaseURL: *host, Model: *modelName}
	if *host == "" {
		srv := httptest.NewServer(fakeOllama{})
		defer srv.Close()
		cfg.BaseURL, cfg.HTTPClient = srv.URL, srv.Client()
		fmt.Println("Offline: a fake Ollama server in this process replays recorded replies.")
		fmt.Println("Set OLLAMA_HOST or -host to use a real server.")
	} else {
		fmt.Printf("Using model %s on Ollama at %s.\n", *modelName, *host)
	}
	fmt.Println()

	weather, err := toolcall.NewFunc("get_weather", "Get the current weather in a city",
		func(ctx context.Context, in WeatherRequest) (Weather, error) {
			return Weather{City: in.City, Temperature: 21, Sky: "sunny"}, nil // a stand-in
		})
	if err != nil {
		return err
	}
	client := toolcall.NewClient(ollama.New(cfg), toolcall.WithHooks(toolcall.Hooks{
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

// fakeOllama answers POST /api/chat as Ollama does: a call to get_weather
// while the conversation has no tool result, then the answer. The replies
// follow ones recorded from Ollama v0.24.0.
type fakeOllama struct{}

func (fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolName  string `json:"tool_name"`
			ToolCalls []struct {
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}

	var msgs, tools []string
	for _, m := range req.Messages {
		switch {
		case len(m.ToolCalls) > 0:
			f := m.ToolCalls[0].Function
			msgs = append(msgs, fmt.Sprintf("assistant(%s %s)", f.Name, f.Arguments))
		case m.Role == "tool":
			msgs = append(msgs, fmt.Sprintf("tool(%s: %s)", m.ToolName, m.Content))
		default:
			msgs = append(msgs, m.Role)
		}
	}
	for _, t := range req.Tools {
		tools = append(tools, t.Function.Name)
	}
	fmt.Printf("  [server] POST /api/chat model=%s stream=%t tools=%s\n", req.Model, req.Stream, strings.Join(tools, ","))
	fmt.Printf("  [server]   messages: %s\n", strings.Join(msgs, ", "))

	// The reply: a tool call while the conversation has no tool result,
	// then the answer, in pieces when streaming.
	reply := ollamaReply{Model: req.Model, CreatedAt: "2026-11-22T11:42:05.908677603Z", Done: true, DoneReason: "stop"}
	reply.Message.Role = "assistant"
	var pieces []string
	if req.Messages[len(req.Messages)-1].Role != "tool" {
		reply.Message.ToolCalls = json.RawMessage(`[{"id":"call_kfi8g1mg","function":{"index":0,"name":"get_weather","arguments":{"city":"Paris"}}}]`)
		reply.PromptEvalCount, reply.EvalCount = 156, 5
	} else {
		pieces = []string{"It is ", "21°C ", "and sunny ", "in Paris."}
		reply.PromptEvalCount, reply.EvalCount = 199, 9
	}

	enc := json.NewEncoder(w)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		reply.Message.Content = strings.Join(pieces, "")
		_ = enc.Encode(reply)
		return
	}
	// Streaming: one NDJSON line per piece of text or per tool call, then
	// a last line with done and the counts.
	w.Header().Set("Content-Type", "application/x-ndjson")
	part := ollamaReply{Model: reply.Model, CreatedAt: reply.CreatedAt, Message: ollamaMessage{Role: "assistant"}}
	for _, p := range pieces {
		part.Message.Content = p
		_ = enc.Encode(part)
	}
	if reply.Message.ToolCalls != nil {
		part.Message.Content, part.Message.ToolCalls = "", reply.Message.ToolCalls
		_ = enc.Encode(part)
	}
	reply.Message.ToolCalls = nil
	_ = enc.Encode(reply)
}

// ollamaReply is a reply of /api/chat, or one line of a streamed reply.
type ollamaReply struct {
	Model           string        `json:"model"`
	CreatedAt       string        `json:"created_at"`
	Message         ollamaMessage `json:"message"`
	Done            bool          `json:"done"`
	DoneReason      string        `json:"done_reason,omitempty"`
	PromptEvalCount int           `json:"prompt_eval_count,omitempty"`
	EvalCount       int           `json:"eval_count,omitempty"`
}

type ollamaMessage struct {
	Role      string          `json:"role"`
	Content   string          `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls,omitempty"`
}
