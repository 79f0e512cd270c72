package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/ollama"
)

// cannedBody answers every request with one status and body, in process,
// so a fuzz iteration costs no socket.
type cannedBody struct {
	status int
	body   []byte
}

func (c cannedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: c.status,
		Header:     http.Header{"Content-Type": {"application/x-ndjson"}},
		Body:       io.NopCloser(bytes.NewReader(c.body)),
		Request:    req,
	}, nil
}

func fuzzModel(status int, body []byte) *ollama.Model {
	return ollama.New(ollama.Config{
		BaseURL:    "http://ollama.invalid",
		Model:      "fuzz",
		HTTPClient: &http.Client{Transport: cannedBody{status: status, body: body}},
		MaxRetries: ollama.NoRetries, // a 5xx is sent once
	})
}

var fuzzRequest = &chat.Request{
	Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}},
	Tools:    []chat.ToolDefinition{weatherTool},
}

// addRecordings seeds f with the bodies of the recorded responses whose
// file names end in ext.
func addRecordings(f *testing.F, ext string) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.response"+ext))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no testdata/*.response%s seeds: %v", ext, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkReply holds for every reply an adapter returns, whatever the server
// sent: an error is a ProviderError (or a stop), and a reply's tool calls
// have unique ids and JSON arguments the library can hand to a tool.
func checkReply(t *testing.T, resp *chat.Response, err error) {
	t.Helper()
	if err != nil {
		var pe *chat.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("error is not a *chat.ProviderError: %T %v", err, err)
		}
		if resp != nil {
			t.Fatalf("both a reply and an error: %v", err)
		}
		return
	}
	if resp == nil {
		t.Fatal("no reply and no error")
	}
	seen := map[string]bool{}
	for i, c := range resp.Message.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("call %d: id %q is empty or repeated", i, c.ID)
		}
		seen[c.ID] = true
		if len(c.Arguments) == 0 {
			t.Fatalf("call %d: empty arguments", i)
		}
	}
	if len(resp.Message.ToolCalls) > 0 && resp.FinishReason != chat.FinishToolCalls && resp.FinishReason != chat.FinishLength {
		t.Fatalf("reply with tool calls finished with %q", resp.FinishReason)
	}
}

// FuzzStream feeds arbitrary bytes to the NDJSON stream reader.
func FuzzStream(f *testing.F) {
	addRecordings(f, ".ndjson") // and the hand-made quirks in testdata/fuzz/FuzzStream
	f.Fuzz(func(t *testing.T, body []byte) {
		var text strings.Builder
		var calls []chat.ToolCallDelta
		resp, err := fuzzModel(http.StatusOK, body).Stream(context.Background(), fuzzRequest, func(d chat.Delta) bool {
			text.WriteString(d.Content)
			if d.ToolCall != nil {
				calls = append(calls, *d.ToolCall)
			}
			return true
		})
		checkReply(t, resp, err)
		if err != nil {
			return
		}
		// What was streamed is what the reply holds.
		if text.String() != resp.Message.Content {
			t.Fatalf("streamed text %q, reply text %q", text.String(), resp.Message.Content)
		}
		if len(calls) != len(resp.Message.ToolCalls) {
			t.Fatalf("streamed %d calls, reply has %d", len(calls), len(resp.Message.ToolCalls))
		}
		for i, d := range calls {
			c := resp.Message.ToolCalls[i]
			if d.Index != i || d.ID != c.ID || d.Name != c.Name || d.Arguments != string(c.Arguments) {
				t.Fatalf("streamed call %d = %+v, reply call = %+v", i, d, c)
			}
		}
	})
}

// FuzzChat feeds arbitrary response bodies, with a success or a failure
// status, to Chat.
func FuzzChat(f *testing.F) {
	addRecordings(f, ".json") // and the hand-made quirks in testdata/fuzz/FuzzChat
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := fuzzModel(http.StatusOK, body).Chat(context.Background(), fuzzRequest)
		checkReply(t, resp, err)
		if err == nil {
			// The reply must survive being sent back: the next request
			// replays it, and its arguments must encode as an object.
			next := &chat.Request{Messages: append(append([]chat.Message(nil), fuzzRequest.Messages...), resp.Message)}
			replay := cannedBody{status: http.StatusOK, body: []byte(`{"message":{"role":"assistant","content":"ok"},"done":true}`)}
			m := ollama.New(ollama.Config{BaseURL: "http://ollama.invalid", Model: "fuzz", HTTPClient: &http.Client{Transport: recordBody{cannedBody: replay, t: t}}})
			if _, err := m.Chat(context.Background(), next); err != nil {
				t.Fatalf("replaying the reply: %v", err)
			}
		}
		for _, status := range []int{http.StatusBadRequest, http.StatusNotFound, http.StatusInternalServerError} {
			resp, err := fuzzModel(status, body).Chat(context.Background(), fuzzRequest)
			if err == nil || resp != nil {
				t.Fatalf("status %d: reply %v, error %v", status, resp, err)
			}
			var pe *chat.ProviderError
			if !errors.As(err, &pe) || pe.StatusCode != status {
				t.Fatalf("status %d: error %T %v", status, err, err)
			}
		}
	})
}

// recordBody checks that every request body the adapter sends is JSON and
// that replayed tool call arguments are objects.
type recordBody struct {
	cannedBody
	t *testing.T
}

func (r recordBody) RoundTrip(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	var sent struct {
		Messages []struct {
			ToolCalls []struct {
				Function struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &sent); err != nil {
		r.t.Fatalf("request body is not JSON: %v\n%s", err, b)
	}
	for _, m := range sent.Messages {
		for _, c := range m.ToolCalls {
			if a := bytes.TrimSpace(c.Function.Arguments); len(a) == 0 || a[0] != '{' {
				r.t.Fatalf("replayed arguments are not an object: %s", c.Function.Arguments)
			}
		}
	}
	return r.cannedBody.RoundTrip(req)
}

// TestDeepResponse: arguments nested 10,000 levels deep in a reply, or a
// stream line, end in an error naming the problem, not a crash.
func TestDeepResponse(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	body := []byte(`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":` + deep + `}}}]},"done":true}`)
	_, err := fuzzModel(http.StatusOK, body).Chat(context.Background(), fuzzRequest)
	checkProviderError(t, err, chat.ErrBadResponse, http.StatusOK, "fuzz")
	assert.Contains(t, err.Error(), "exceeded max depth")

	_, err = fuzzModel(http.StatusOK, append(body, '\n')).Stream(context.Background(), fuzzRequest, nil)
	checkProviderError(t, err, chat.ErrBadResponse, http.StatusOK, "fuzz")

	// Just inside the limit, the reply arrives whole.
	ok := strings.Repeat("[", 9990) + strings.Repeat("]", 9990)
	body = []byte(`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":` + ok + `}}}]},"done":true}`)
	resp, err := fuzzModel(http.StatusOK, body).Chat(context.Background(), fuzzRequest)
	require.NoError(t, err)
	assert.Len(t, resp.Message.ToolCalls[0].Arguments, len(`{"city":}`)+len(ok))
}
