// Quickstart gives a chat model one Go function as a tool: the model calls
// it, toolcall runs it with the model's arguments and sends the result back,
// and the model answers.
//
// With nothing configured it runs offline, on the scripted model of package
// toolcalltest: no network, no key. It talks to a real model when the
// environment points at one:
//
//	# offline, on the scripted model
//	go run ./examples/quickstart
//
//	# OpenAI
//	OPENAI_API_KEY=sk-... go run ./examples/quickstart
//
//	# any OpenAI-compatible server: llama.cpp, vLLM, LM Studio, Ollama's /v1...
//	OPENAI_BASE_URL=http://localhost:8080/v1 go run ./examples/quickstart -model qwen2.5
//
//	# Anthropic
//	ANTHROPIC_API_KEY=sk-ant-... go run ./examples/quickstart
//
//	# Gemini
//	GEMINI_API_KEY=... go run ./examples/quickstart
//
//	# Ollama
//	OLLAMA_HOST=localhost:11434 go run ./examples/quickstart -model qwen2.5
//
// The -provider flag chooses explicitly: scripted, openai (Chat
// Completions), responses (OpenAI's Responses API, with OPENAI_API_KEY and
// OPENAI_BASE_URL), anthropic (the Messages API, with ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL), gemini (the Gemini API, with GEMINI_API_KEY or
// GOOGLE_API_KEY, and GOOGLE_GEMINI_BASE_URL) or ollama. -model names the
// model (default gpt-4o-mini for openai, gpt-5-mini for responses,
// claude-sonnet-4-5 for anthropic, gemini-2.5-flash for gemini, qwen2.5 for
// ollama). Without -provider, the environment chooses: OPENAI_* wins over
// ANTHROPIC_*, which wins over GEMINI_API_KEY and GOOGLE_API_KEY, which win
// over OLLAMA_HOST.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/anthropic"
	"github.com/toolcall-go/toolcall/providers/gemini"
	"github.com/toolcall-go/toolcall/providers/ollama"
	"github.com/toolcall-go/toolcall/providers/openai"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// WeatherRequest is the tool's input: its fields are the parameters the
// model fills in. Every field is required unless its json tag says
// omitempty; the jsonschema tag describes it to the model.
type WeatherRequest struct {
	Location string `json:"location" jsonschema:"description=City name such as Paris"`
	Unit     string `json:"unit,omitempty" jsonschema:"enum=C,enum=F,description=Temperature unit (default C)"`
}

// WeatherReport is the tool's result; the model receives it as JSON.
type WeatherReport struct {
	Location    string `json:"location"`
	Temperature int    `json:"temperature"`
	Unit        string `json:"unit"`
	Sky         string `json:"sky"`
}

// currentWeather is the tool: a stand-in for a real weather service.
func currentWeather(ctx context.Context, in WeatherRequest) (WeatherReport, error) {
	r := WeatherReport{Location: in.Location, Temperature: 30, Unit: "C", Sky: "sunny"}
	if in.Unit == "F" {
		r.Temperature, r.Unit = 86, "F"
	}
	return r, nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run() error {
	provider := flag.String("provider", "", "scripted, openai, responses, anthropic, gemini or ollama (default: chosen from the environment)")
	modelName := flag.String("model", "", "model name (default gpt-4o-mini for openai, gpt-5-mini for responses, claude-sonnet-4-5 for anthropic, gemini-2.5-flash for gemini, qwen2.5 for ollama)")
	flag.Parse()

	model, err := chooseModel(*provider, *modelName)
	if err != nil {
		return err
	}

	weather, err := toolcall.NewFunc("currentWeather", "Get the current weather in a location", currentWeather)
	if err != nil {
		return err
	}
	client := toolcall.NewClient(model)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	question := "What's the weather in Paris?"
	fmt.Printf("user:         %s\n", question)
	resp, err := client.Prompt().User(question).Tools(weather).Call(ctx)
	if err != nil {
		return err
	}
	for _, e := range resp.Executions {
		fmt.Printf("tool call:    %s %s\n", e.Call.Name, e.Call.Arguments)
		fmt.Printf("tool result:  %s\n", e.Result)
	}
	fmt.Printf("answer:       %s\n", resp.Content())
	fmt.Printf("model rounds: %d, tokens: %d\n", resp.Rounds, resp.Usage.TotalTokens)
	return nil
}

const offlineBanner = `Offline: a scripted model (package toolcalltest) plays the model. No network, no key.
To use a real model:
  OPENAI_API_KEY=sk-... go run ./examples/quickstart                                 # OpenAI
  OPENAI_BASE_URL=http://localhost:8080/v1 go run ./examples/quickstart -model NAME  # any OpenAI-compatible server
  ANTHROPIC_API_KEY=sk-ant-... go run ./examples/quickstart                          # Anthropic
  GEMINI_API_KEY=... go run ./examples/quickstart                                    # Gemini
  OLLAMA_HOST=localhost:11434 go run ./examples/quickstart -model qwen2.5            # Ollama
  -provider responses uses OpenAI's Responses API instead of Chat Completions.

`

// chooseModel returns the model named by -provider, or else the one the
// environment points at, or else the scripted model, and says which.
func chooseModel(provider, name string) (chat.Model, error) {
	if provider == "" {
		switch {
		case os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("OPENAI_BASE_URL") != "":
			provider = "openai"
		case os.Getenv("ANTHROPIC_API_KEY") != "" || os.Getenv("ANTHROPIC_BASE_URL") != "":
			provider = "anthropic"
		case os.Getenv("GEMINI_API_KEY") != "" || os.Getenv("GOOGLE_API_KEY") != "":
			provider = "gemini"
		case os.Getenv("OLLAMA_HOST") != "":
			provider = "ollama"
		default:
			provider = "scripted"
		}
	}
	switch provider {
	case "scripted":
		fmt.Print(offlineBanner)
		return scriptedModel(), nil
	case "openai":
		name = cmp.Or(name, "gpt-4o-mini")
		server := cmp.Or(os.Getenv("OPENAI_BASE_URL"), "OpenAI")
		fmt.Printf("Using model %s on %s.\n\n", name, server)
		// BaseURL and APIKey default to $OPENAI_BASE_URL and $OPENAI_API_KEY.
		return openai.New(openai.Config{Model: name}), nil
	case "responses":
		name = cmp.Or(name, "gpt-5-mini")
		server := cmp.Or(os.Getenv("OPENAI_BASE_URL"), "OpenAI")
		fmt.Printf("Using model %s on %s (Responses API).\n\n", name, server)
		// BaseURL and APIKey default to $OPENAI_BASE_URL and $OPENAI_API_KEY.
		return openairesponses.New(openairesponses.Config{Model: name}), nil
	case "anthropic":
		name = cmp.Or(name, "claude-sonnet-4-5")
		server := cmp.Or(os.Getenv("ANTHROPIC_BASE_URL"), "Anthropic")
		fmt.Printf("Using model %s on %s (Messages API).\n\n", name, server)
		// BaseURL and APIKey default to $ANTHROPIC_BASE_URL and $ANTHROPIC_API_KEY.
		return anthropic.New(anthropic.Config{Model: name}), nil
	case "gemini":
		name = cmp.Or(name, "gemini-2.5-flash")
		server := cmp.Or(os.Getenv("GOOGLE_GEMINI_BASE_URL"), "the Gemini API")
		fmt.Printf("Using model %s on %s.\n\n", name, server)
		// BaseURL defaults to $GOOGLE_GEMINI_BASE_URL, APIKey to
		// $GOOGLE_API_KEY, else $GEMINI_API_KEY.
		return gemini.New(gemini.Config{Model: name}), nil
	case "ollama":
		name = cmp.Or(name, "qwen2.5")
		server := cmp.Or(os.Getenv("OLLAMA_HOST"), ollama.DefaultBaseURL)
		fmt.Printf("Using model %s on Ollama at %s.\n\n", name, server)
		// BaseURL defaults to $OLLAMA_HOST.
		return ollama.New(ollama.Config{Model: name}), nil
	}
	return nil, errors.New("-provider must be scripted, openai, responses, anthropic, gemini or ollama, not " + provider)
}

// scriptedModel replies as a real model would: first a call to the tool,
// then, once the tool's result is in the conversation, the answer.
func scriptedModel() chat.Model {
	return toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("call_1", "currentWeather", `{"location":"Paris","unit":"C"}`)),
		toolcalltest.Text("It is 30°C and sunny in Paris."),
	)
}
