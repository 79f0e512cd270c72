package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

func fuzzModel(status int, contentType string, body []byte) *openai.Model {
	return openai.New(openai.Config{
		BaseURL:    "http://compat.invalid/v1",
		APIKey:     testKey,
		Model:      "fuzz",
		HTTPClient: &http.Client{Transport: cannedBody{status: status, contentType: contentType, body: body}},
		MaxRetries: openai.NoRetries, // a 429 or 5xx is sent once
	})
}

var fuzzRequest = &chat.Request{
	Messages: []chat.Message{chat.UserMessage("hi")},
	Tools:    []chat.ToolDefinition{shortWeatherTool, nowTool},
}

// checkReply holds for every reply the adapter returns, whatever the
// server sent: an error is a ProviderError without the key, and a reply's
// tool calls have unique ids and arguments the library can hand to a tool.
func checkReply(t *testing.T, resp *chat.Response, err error) {
	t.Helper()
	if err != nil {
		var pe *chat.ProviderError
		if !errors.As(err, &pe) || pe.Provider != "openai" {
			t.Fatalf("error is not an openai *chat.ProviderError: %T %v", err, err)
		}
		if resp != nil {
			t.Fatalf("both a reply and an error: %v", err)
		}
		providertest.CheckNoKey(t, err, testKey)
		return
	}
	if resp == nil {
		t.Fatal("no reply and no error")
	}
	if resp.Message.Role != chat.RoleAssistant {
		t.Fatalf("reply role %q", resp.Message.Role)
	}
	seen := map[string]bool{}
	for i, c := range resp.Message.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("call %d: id %q is empty or repeated", i, c.ID)
		}
		seen[c.ID] = true
		if s := strings.TrimSpace(string(c.Arguments)); s == "" || s == "null" {
			t.Fatalf("call %d: arguments %q not normalised to {}", i, c.Arguments)
		}
	}
	switch {
	case resp.FinishReason == chat.FinishLength || resp.FinishReason == chat.FinishFiltered:
	case len(resp.Message.ToolCalls) > 0 && resp.FinishReason != chat.FinishToolCalls:
		t.Fatalf("reply with tool calls finished with %q", resp.FinishReason)
	case len(resp.Message.ToolCalls) == 0 && resp.FinishReason == chat.FinishToolCalls:
		t.Fatal("reply without tool calls finished with tool_calls")
	}
}

// FuzzStream feeds arbitrary bytes to the server-sent event reader and the
// tool-call assembly: the result is a reply or an error, never a panic,
// and a reply is what the deltas add up to.
func FuzzStream(f *testing.F) {
	providertest.AddSeeds(f, ".response.sse.txt")
	f.Fuzz(func(t *testing.T, body []byte) {
		var deltas []chat.Delta
		resp, err := fuzzModel(http.StatusOK, "text/event-stream", body).Stream(context.Background(), fuzzRequest,
			func(d chat.Delta) bool {
				if d.ToolCall != nil {
					c := *d.ToolCall // the adapter must not reuse what it yielded
					d.ToolCall = &c
				}
				deltas = append(deltas, d)
				return true
			})
		checkReply(t, resp, err)
		if err == nil {
			checkDeltasMatchReply(t, deltas, resp)
			checkReplayable(t, resp)
		}
	})
}

// FuzzResponse feeds arbitrary response bodies to Chat, with a success
// status and with error statuses.
func FuzzResponse(f *testing.F) {
	providertest.AddSeeds(f, ".response.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := fuzzModel(http.StatusOK, "application/json", body).Chat(context.Background(), fuzzRequest)
		checkReply(t, resp, err)
		if err == nil {
			checkReplayable(t, resp)
		}
		for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusTooManyRequests, http.StatusInternalServerError} {
			resp, err := fuzzModel(status, "application/json", body).Chat(context.Background(), fuzzRequest)
			if err == nil || resp != nil {
				t.Fatalf("status %d: reply %v, error %v", status, resp, err)
			}
			var pe *chat.ProviderError
			if !errors.As(err, &pe) || pe.StatusCode != status {
				t.Fatalf("status %d: error %T %v", status, err, err)
			}
			// An empty 404 names no cause: the endpoint or the model may be missing.
			emptyNotFound := status == http.StatusNotFound && len(bytes.TrimSpace(body)) == 0 && pe.Err == nil
			want := httpline.StatusError(status)
			code := fuzzErrorCode(body)
			switch {
			case (status == http.StatusBadRequest || status == http.StatusNotFound) && code == "model_not_found":
				want = chat.ErrModelNotFound
			case status == http.StatusTooManyRequests && code == "insufficient_quota":
				want = chat.ErrQuotaExceeded
			case status == http.StatusNotFound && !httpline.NamesModel(pe.Message):
				want = chat.ErrBadRequest // a 404 that does not say the model is missing is a wrong URL
			}
			if !emptyNotFound && !errors.Is(err, want) && !errors.Is(err, chat.ErrToolsNotSupported) {
				t.Fatalf("status %d: error %T %v", status, err, err)
			}
			providertest.CheckNoKey(t, err, testKey)
		}
	})
}

// fuzzErrorCode is the code of an OpenAI error body, or its type when
// the code is no string, as the error's sentinel reads them.
func fuzzErrorCode(body []byte) string {
	var e struct {
		Error struct {
			Code, Type any
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	if s, ok := e.Error.Code.(string); ok && s != "" {
		return s
	}
	s, _ := e.Error.Type.(string)
	return s
}

// checkReplayable sends the reply back as the next request's history, as
// the loop does: the body must be JSON, with each call's arguments a
// non-empty string, its id the reply's and its extra_content the reply's
// ProviderData, and with the reply's reasoning.
func checkReplayable(t *testing.T, resp *chat.Response) {
	t.Helper()
	sent := &providertest.Capture{}
	ok := []byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", Model: "fuzz",
		HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: "application/json", body: ok, sent: sent}}})
	next := &chat.Request{Messages: append(append([]chat.Message(nil), fuzzRequest.Messages...), resp.Message)}
	if _, err := m.Chat(context.Background(), next); err != nil {
		t.Fatalf("replaying the reply: %v", err)
	}
	var body struct {
		Messages []struct {
			ReasoningContent string          `json:"reasoning_content"`
			ExtraContent     json.RawMessage `json:"extra_content"`
			ThoughtSignature json.RawMessage `json:"thought_signature"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
				ExtraContent json.RawMessage `json:"extra_content"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(sent.Get(t, 0).Body, &body); err != nil {
		t.Fatalf("replayed request is not JSON: %v", err)
	}
	last := body.Messages[len(body.Messages)-1]
	if last.ReasoningContent != resp.Message.Reasoning {
		t.Fatalf("replayed reasoning %q, reply has %q", last.ReasoningContent, resp.Message.Reasoning)
	}
	var kept struct {
		ExtraContent     json.RawMessage `json:"extra_content"`
		ThoughtSignature json.RawMessage `json:"thought_signature"`
	}
	if data := resp.Message.ProviderData; data != nil {
		if err := json.Unmarshal(data, &kept); err != nil {
			t.Fatalf("reply's ProviderData %s: %v", data, err)
		}
	}
	if !jsonEqual(last.ExtraContent, kept.ExtraContent) || !jsonEqual(last.ThoughtSignature, kept.ThoughtSignature) {
		t.Fatalf("replayed message fields %s %s, reply's ProviderData %s", last.ExtraContent, last.ThoughtSignature, resp.Message.ProviderData)
	}
	calls := last.ToolCalls
	if len(calls) != len(resp.Message.ToolCalls) {
		t.Fatalf("replayed %d calls, reply has %d", len(calls), len(resp.Message.ToolCalls))
	}
	for i, c := range calls {
		if c.ID != resp.Message.ToolCalls[i].ID || strings.TrimSpace(c.Function.Arguments) == "" {
			t.Fatalf("replayed call %d: id %q, arguments %q", i, c.ID, c.Function.Arguments)
		}
		if data := resp.Message.ToolCalls[i].ProviderData; !jsonEqual(c.ExtraContent, data) {
			t.Fatalf("replayed call %d: extra_content %s, reply's ProviderData %s", i, c.ExtraContent, data)
		}
	}
}

// jsonEqual reports whether a and b are the same JSON text but for
// insignificant space, or both absent.
func jsonEqual(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// fuzzSeeds are the inputs the seed corpora hold beyond the recordings:
// the quirks and failure shapes the fuzzer should start from.
var fuzzSeeds = map[string]map[string]string{
	"FuzzStream": {
		"seed_fragments_without_index":  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"now\"}},{\"id\":\"b\",\"function\":{\"name\":\"now\",\"arguments\":{}}}]}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
		"seed_repeated_id_other_index":  "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"now\",\"arguments\":\"\"}},{\"index\":1,\"id\":\"a\",\"function\":{\"name\":\"now\",\"arguments\":\"null\"}}]},\"finish_reason\":\"stop\"}]}\n",
		"seed_error_field":              "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\nerror: {\"message\":\"boom sk-test-SECRET123\"}\n\n",
		"seed_event_error":              "event: error\ndata: {\"message\":\"overloaded\"}\n\n",
		"seed_refusal_and_parts":        "data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"}],\"refusal\":\"no\"},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n",
		"seed_crlf_and_comments":        ": ping\r\n\r\ndata:{\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"length\"}]}\r\n\r\nid: 3\r\nretry: 10\r\n",
		"seed_usage_only":               "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n",
		"seed_other_choice_index":       "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"no\"}},{\"index\":0,\"delta\":{\"content\":\"yes\"},\"finish_reason\":\"stop\"}]}\n\n",
		"seed_extra_content_fragments":  "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\",\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"now\"}},{\"index\":1,\"extra_content\":\"x\"}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"extra_content\":{\"a\":[1, 2]}},{\"index\":0,\"extra_content\":{\"b\":1}}]},\"finish_reason\":\"tool_calls\"}]}\n",
		"seed_message_signature":        "data: {\"choices\":[{\"delta\":{\"content\":\"a\",\"extra_content\":{\"google\":{\"thought_signature\":\"s\"}},\"thought_signature\":\"s\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"extra_content\":[1],\"thought_signature\":7},\"finish_reason\":\"stop\"}]}\n",
		"seed_negative_and_large_index": "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1,\"function\":{\"name\":\"now\"}},{\"index\":9223372036854775807,\"function\":{\"name\":\"now\"}}]},\"finish_reason\":\"tool_calls\"}]}\n",
	},
	"FuzzResponse": {
		"seed_null":                "null",
		"seed_empty":               "",
		"seed_error_with_key":      `{"error":{"message":"bad key sk-test-SECRET123","type":"invalid_request_error"}}`,
		"seed_error_list":          `{"error":{"message":["a","b"]}}`,
		"seed_detail":              `{"detail":[{"msg":"field required"}]}`,
		"seed_duplicate_ids":       `{"choices":[{"message":{"tool_calls":[{"id":"x","function":{"name":"now","arguments":""}},{"id":"x","function":{"name":"now"}},{"function":{"name":"now","arguments":{"a":[1,2]}}}]},"finish_reason":"tool_calls"}]}`,
		"seed_synthetic_id_clash":  `{"choices":[{"message":{"tool_calls":[{"function":{"name":"now"}},{"id":"call_0","function":{"name":"now"}}]}}]}`,
		"seed_content_parts":       `{"choices":[{"message":{"content":[{"type":"text","text":"Hel"},{"type":"text","text":"lo"}]},"finish_reason":"stop"}]}`,
		"seed_tool_calls_no_calls": `{"choices":[{"message":{"content":"hi"},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":0}}`,
		"seed_vllm_error":          `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice","type":"BadRequestError","code":400}`,
	},
}

// TestFuzzCorpus checks that testdata/fuzz holds a seed for every recorded
// response (streams for FuzzStream, JSON bodies for FuzzResponse) and for
// every entry of fuzzSeeds; -update writes them.
func TestFuzzCorpus(t *testing.T) {
	want := map[string]map[string][]byte{"FuzzStream": {}, "FuzzResponse": {}}
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*.response.*"))
	require.NoError(t, err)
	top, err := filepath.Glob(filepath.Join("testdata", "*.response.*"))
	require.NoError(t, err)
	paths = append(paths, top...)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		body, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel("testdata", p)
		name := strings.NewReplacer("/", "_", "-", "_", ".response.json", "", ".response.sse.txt", "").Replace(rel)
		target := "FuzzResponse"
		if strings.HasSuffix(p, ".sse.txt") {
			target = "FuzzStream"
		}
		want[target][name] = body
	}
	for target, seeds := range fuzzSeeds {
		for name, body := range seeds {
			want[target][name] = []byte(body)
		}
	}
	for target, files := range want {
		dir := filepath.Join("testdata", "fuzz", target)
		if *update {
			require.NoError(t, os.MkdirAll(dir, 0o755))
		}
		for name, body := range files {
			path := filepath.Join(dir, name)
			file := []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", body))
			if *update {
				require.NoError(t, os.WriteFile(path, file, 0o644))
				continue
			}
			got, err := os.ReadFile(path)
			if assert.NoError(t, err, "missing seed; run go test ./providers/openai -update") {
				assert.True(t, bytes.Equal(file, got), "%s is out of date; run go test ./providers/openai -update", path)
			}
		}
	}
}

// TestDeepResponse: arguments nested 10,001 levels deep end in an error
// naming the problem, not a crash.
func TestDeepResponse(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	body := []byte(`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"now","arguments":{"x":` + deep + `}}}]}}]}`)
	_, err := fuzzModel(http.StatusOK, "application/json", body).Chat(context.Background(), fuzzRequest)
	pe := checkProviderError(t, err, chat.ErrBadResponse, http.StatusOK, "fuzz")
	assert.Contains(t, pe.Message, "exceeded max depth")

	_, err = fuzzModel(http.StatusOK, "text/event-stream", append([]byte("data: "), append(body, '\n')...)).Stream(context.Background(), fuzzRequest, nil)
	checkProviderError(t, err, chat.ErrBadResponse, http.StatusOK, "fuzz")
}

// TestLongLine: a stream line over the 16 MiB bound is an error, read
// without holding more than the bound.
func TestLongLine(t *testing.T) {
	t.Parallel()
	body := io.MultiReader(strings.NewReader("data: "), io.LimitReader(zeros{}, 17<<20))
	data, err := io.ReadAll(body)
	require.NoError(t, err)
	_, err = fuzzModel(http.StatusOK, "text/event-stream", data).Stream(context.Background(), fuzzRequest, nil)
	pe := checkProviderError(t, err, chat.ErrBadResponse, http.StatusOK, "fuzz")
	assert.Contains(t, pe.Message, "longer than 16 MiB")
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}
