// Gemini runs the tool-calling loop on Google's Gemini API with package
// providers/gemini.
//
// By default it needs no key and no network: it starts a server in the
// process (net/http/httptest) that answers with replies the Gemini API
// really sent (recorded/, from the package's test recordings), so the
// real provider runs end to end, over HTTP. The server prints what it
// receives: note that the call goes back with the thought signature the
// API put on it and without an id (the API gave none; the provider's
// call_0 is its own), and its result as a functionResponse. With -stream
// it replays a gemini-3-pro-preview stream instead: the call arrives
// whole in one chunk, the answer in pieces.
//
//	go run ./examples/gemini            # offline, recorded replies
//	go run ./examples/gemini -stream    # the same, streamed (SSE)
//
// With GEMINI_API_KEY or GOOGLE_API_KEY set it talks to the Gemini API:
//
//	GEMINI_API_KEY=... go run ./examples/gemini -model gemini-2.5-flash
package main

import (
	"context"
	"embed"
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
	"github.com/toolcall-go/toolcall/providers/gemini"
)

//go:embed recorded
var recorded embed.FS

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run() error {
	stream := flag.Bool("stream", false, "stream the replies")
	modelName := flag.String("model", "", "model name (default gemini-2.5-flash; offline, the recording's model)")
	flag.Parse()

	// The recorded conversations: a weather question answered whole, and a
	// question about the user's country, streamed.
	question, model, replies := "What's the weather in Paris?", "gemini-2.5-flash", []string{"weather_call.json", "weather_answer.json"}
	if *stream {
		question, model, replies = "What is the capital of the user country? Call the tool", "gemini-3-pro-preview", []string{"country_call.sse.txt", "country_answer.sse.txt"}
	}
	cfg := gemini.Config{Model: model} // APIKey: $GOOGLE_API_KEY, else $GEMINI_API_KEY
	if os.Getenv("GEMINI_API_KEY") == "" && os.Getenv("GOOGLE_API_KEY") == "" {
		srv := httptest.NewServer(&recordedServer{replies: replies})
		defer srv.Close()
		cfg.BaseURL, cfg.HTTPClient, cfg.APIKey = srv.URL, srv.Client(), "offline-placeholder-key"
		fmt.Println("Offline: a server in this process answers with replies the Gemini API sent.")
		fmt.Println("Set GEMINI_API_KEY or GOOGLE_API_KEY to use the Gemini API.")
	} else {
		if *modelName != "" {
			cfg.Model = *modelName
		}
		fmt.Printf("Using model %s on the Gemini API.\n", cfg.Model)
	}
	fmt.Println()

	weather := toolcall.MustFunc("get_weather", "Get the current weather for a city.",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "Sunny, 22C in " + in.City, nil // a stand-in
		})
	country := toolcall.MustFunc("get_country", "Get the user's country.",
		func(ctx context.Context, in struct{}) (string, error) { return "Mexico", nil })
	client := toolcall.NewClient(gemini.New(cfg), toolcall.WithHooks(toolcall.Hooks{
		AfterTool: func(ctx context.Context, e toolcall.ToolExecution) {
			fmt.Printf("tool call:   %s %s %s\ntool result: %s\n", e.Call.ID, e.Call.Name, e.Call.Arguments, e.Result)
		},
	}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()

	fmt.Println("user:", question)
	var resp *toolcall.Response
	var err error
	if *stream {
		for ev, err := range client.Prompt(question).Tools(country).Stream(ctx) {
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
	} else if resp, err = client.Prompt(question).Tools(weather).Call(ctx); err != nil {
		return err
	}
	fmt.Println("answer:", resp.Content())
	u := resp.Usage
	fmt.Printf("model rounds: %d, tokens: %d prompt + %d completion (%d thinking)\n", resp.Rounds, u.PromptTokens, u.CompletionTokens, u.ReasoningTokens)
	return nil
}

// recordedServer answers the n-th request with the n-th recorded reply,
// and prints what each request holds.
type recordedServer struct {
	replies []string
	n       int
}

func (s *recordedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             *string         `json:"text"`
				ThoughtSignature string          `json:"thoughtSignature"`
				FunctionCall     json.RawMessage `json:"functionCall"`
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil || s.n >= len(s.replies) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"code":400,"message":"bad request","status":"INVALID_ARGUMENT"}}`)
		return
	}
	var tools, contents []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			tools = append(tools, d.Name)
		}
	}
	for _, c := range req.Contents {
		var parts []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				part := "functionCall " + string(p.FunctionCall)
				if p.ThoughtSignature != "" {
					part += " with its signature"
				}
				parts = append(parts, part)
			case p.FunctionResponse != nil:
				parts = append(parts, fmt.Sprintf("functionResponse %s %s", p.FunctionResponse.Name, p.FunctionResponse.Response))
			case p.Text != nil:
				parts = append(parts, "text")
			}
		}
		contents = append(contents, fmt.Sprintf("%s(%s)", c.Role, strings.Join(parts, ", ")))
	}
	query := ""
	if r.URL.RawQuery != "" {
		query = "?" + r.URL.RawQuery
	}
	fmt.Printf("  [server] POST %s%s tools=%s key in x-goog-api-key: %t\n", r.URL.Path, query, strings.Join(tools, ","), r.Header.Get("X-Goog-Api-Key") != "")
	fmt.Printf("  [server]   contents: %s\n", strings.Join(contents, ", "))

	name := s.replies[s.n]
	s.n++
	body, err := recorded.ReadFile("recorded/" + name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if strings.HasSuffix(name, ".sse.txt") {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	_, _ = w.Write(body)
}
