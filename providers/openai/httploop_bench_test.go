package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// The conversation of BenchmarkHTTPLoop: the user asks, the model calls
// loopWeather, the tool's result goes back, the model answers. The server
// sends OpenAI's replies, whole, as its API does.
const (
	loopQuestion  = "What is the weather in Paris?"
	loopCallReply = `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4o-mini-2024-07-18",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_Hm9IpwZ2PZQjsF6hqkLdDDiB","type":"function",` +
		`"function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"C\"}"}}],"refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":82,"completion_tokens":18,"total_tokens":100,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},` +
		`"service_tier":"default","system_fingerprint":"fp_06737a9306"}`
	loopAnswerReply = `{"id":"chatcmpl-B9MBtLYuQ8zCmGqvnR7DkR3Ovnfma","object":"chat.completion","created":1741569953,"model":"gpt-4o-mini-2024-07-18",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"It is 21 °C and sunny in Paris.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":121,"completion_tokens":11,"total_tokens":132,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},` +
		`"service_tier":"default","system_fingerprint":"fp_06737a9306"}`
	loopAnswer = "It is 21 °C and sunny in Paris."
)

type loopWeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=C,enum=F"`
}

// loopWeather is the tool, the same plain func on both sides.
func loopWeather(_ context.Context, in loopWeatherArgs) (string, error) {
	return "21 degrees " + in.Unit + " and sunny in " + in.City, nil
}

// httpLoopServer answers a conversation's first request with loopCallReply and
// the request that carries the tool's result with loopAnswerReply, as a
// model would.
func httpLoopServer(tb testing.TB) *httptest.Server {
	call, answer := []byte(loopCallReply), []byte(loopAnswerReply)
	toolMsg := []byte(`"role":"tool"`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		reply := call
		if bytes.Contains(body, toolMsg) {
			reply = answer
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// loopHTTPClient is the client of both sides: the transport providers use
// by default (http.DefaultTransport's settings, HTTP/2 where offered,
// MaxIdleConnsPerHost idle connections kept), a transport of its own for
// each side.
func loopHTTPClient(tb testing.TB) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConnsPerHost = httpline.MaxIdleConnsPerHost
	tb.Cleanup(t.CloseIdleConnections)
	return &http.Client{Transport: t}
}

// BenchmarkHTTPLoop measures a whole conversation over HTTP, two rounds
// with one tool call, against a local server: through toolcall's Client
// on this provider, and through the loop a careful user writes by hand on
// net/http and encoding/json. The difference is what the library costs
// over that floor: the provider's encoding and decoding, the Endpoint's
// plumbing and the Client's loop, against a struct, a status check and a
// slice of messages.
func BenchmarkHTTPLoop(b *testing.B) {
	srv := httpLoopServer(b)
	ctx := context.Background()

	b.Run("toolcall", func(b *testing.B) {
		weather := toolcall.MustFunc("get_weather", "Get the current weather for a city", loopWeather)
		m := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-bench", Model: "gpt-4o-mini", HTTPClient: loopHTTPClient(b)})
		client := toolcall.NewClient(m, toolcall.WithTools(weather))
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Prompt(loopQuestion).Call(ctx)
			if err != nil || resp.Content() != loopAnswer || resp.Rounds != 2 {
				b.Fatalf("reply %+v, error %v", resp, err)
			}
		}
	})

	b.Run("handwritten", func(b *testing.B) {
		h := newHandLoop(b, srv)
		b.ReportAllocs()
		for b.Loop() {
			answer, err := h.run(ctx, loopQuestion)
			if err != nil || answer != loopAnswer {
				b.Fatalf("answer %q, error %v", answer, err)
			}
		}
	})
}

// TestHandLoop checks the benchmark's floor against its server: the
// hand-written loop sends the tool's result back and gets the answer.
func TestHandLoop(t *testing.T) {
	srv := httpLoopServer(t)
	h := newHandLoop(t, srv)
	answer, err := h.run(context.Background(), loopQuestion)
	if err != nil || answer != loopAnswer {
		t.Fatalf("answer %q, error %v", answer, err)
	}
}

// handLoop is the tool loop a user writes by hand on net/http and
// encoding/json, for BenchmarkHTTPLoop's floor: structs for the request
// and the reply, the tool called by name, the status checked, the body
// read whole so that the connection is kept.
type handLoop struct {
	url, key string
	client   *http.Client
	tools    []handTool
}

type handRequest struct {
	Model    string        `json:"model"`
	Messages []handMessage `json:"messages"`
	Tools    []handTool    `json:"tools,omitempty"`
}

type handMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []handToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type handToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type handTool struct {
	Type     string       `json:"type"`
	Function handFunction `json:"function"`
}

type handFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type handResponse struct {
	Choices []struct {
		Message      handMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
}

func newHandLoop(tb testing.TB, srv *httptest.Server) *handLoop {
	return &handLoop{
		url:    srv.URL + "/v1/chat/completions",
		key:    "sk-bench",
		client: loopHTTPClient(tb),
		tools: []handTool{{Type: "function", Function: handFunction{
			Name:        "get_weather",
			Description: "Get the current weather for a city",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"},"unit":{"type":"string","enum":["C","F"]}},"required":["city"],"additionalProperties":false}`),
		}}},
	}
}

func (h *handLoop) run(ctx context.Context, question string) (string, error) {
	req := handRequest{Model: "gpt-4o-mini", Messages: []handMessage{{Role: "user", Content: &question}}, Tools: h.tools}
	for range 5 {
		msg, err := h.post(ctx, &req)
		if err != nil {
			return "", err
		}
		if len(msg.ToolCalls) == 0 {
			if msg.Content == nil {
				return "", nil
			}
			return *msg.Content, nil
		}
		req.Messages = append(req.Messages, msg)
		for _, call := range msg.ToolCalls {
			var result string
			switch call.Function.Name {
			case "get_weather":
				var args loopWeatherArgs
				if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
					result = "invalid arguments: " + err.Error()
				} else if result, err = loopWeather(ctx, args); err != nil {
					result = "error: " + err.Error()
				}
			default:
				result = "unknown tool " + call.Function.Name
			}
			req.Messages = append(req.Messages, handMessage{Role: "tool", Content: &result, ToolCallID: call.ID})
		}
	}
	return "", errors.New("too many rounds")
}

func (h *handLoop) post(ctx context.Context, req *handRequest) (handMessage, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return handMessage{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return handMessage{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+h.key)
	resp, err := h.client.Do(hr)
	if err != nil {
		return handMessage{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return handMessage{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return handMessage{}, fmt.Errorf("status %s: %s", resp.Status, data)
	}
	var out handResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return handMessage{}, err
	}
	if len(out.Choices) == 0 {
		return handMessage{}, errors.New("no choices")
	}
	return out.Choices[0].Message, nil
}
