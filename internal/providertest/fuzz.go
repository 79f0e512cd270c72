package providertest

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
)

// AddSeeds adds every recording under testdata whose file name ends in
// suffix (".response.json", ".response.sse.txt") as a seed of f: those of
// the local servers and those of the cloud API (testdata/cloud), of which
// there must be one.
func AddSeeds(f *testing.F, suffix string) {
	f.Helper()
	cloud := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, suffix) {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f.Add(body)
		if strings.HasPrefix(path, filepath.Join("testdata", "cloud")) {
			cloud++
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	if cloud == 0 {
		f.Fatalf("no recording of the cloud API ends in %s", suffix)
	}
}

// ReplyingClient returns an HTTP client that answers every request with
// status 200 and body, of content type ctype, without a network: for
// fuzzing a provider's reading of a reply.
func ReplyingClient(ctype string, body []byte) *http.Client {
	return &http.Client{Transport: replying{ctype, body}}
}

type replying struct {
	ctype string
	body  []byte
}

func (r replying) RoundTrip(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {r.ctype}},
		Body:    io.NopCloser(strings.NewReader(string(r.body))),
		Request: req,
	}, nil
}

// CheckFuzzed checks what a call made of an untrusted reply: an error is a
// *chat.ProviderError that never shows key; a reply has a finish reason,
// unique call ids and ProviderData that is JSON, and goes back without an
// error: sendBack is given the conversation with the reply and a result
// for each of its calls.
func CheckFuzzed(t *testing.T, resp *chat.Response, err error, key string, sendBack func([]chat.Message) error) {
	t.Helper()
	if err != nil {
		var pe *chat.ProviderError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T is not a *chat.ProviderError: %v", err, err)
		}
		if strings.Contains(err.Error(), key) {
			t.Fatalf("the key shows in %v", err)
		}
		return
	}
	if resp == nil || resp.FinishReason == "" {
		t.Fatalf("a reply without a finish reason: %+v", resp)
	}
	seen := map[string]bool{}
	for _, c := range resp.Message.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("call id %q is empty or repeated in %+v", c.ID, resp.Message.ToolCalls)
		}
		seen[c.ID] = true
	}
	if len(resp.Message.ProviderData) > 0 && !json.Valid(resp.Message.ProviderData) {
		t.Fatalf("ProviderData is not JSON: %s", resp.Message.ProviderData)
	}
	history := []chat.Message{chat.UserMessage("hi"), resp.Message}
	for _, c := range resp.Message.ToolCalls {
		history = append(history, chat.ToolMessage(c, "ok"))
	}
	if err := sendBack(history); err != nil {
		t.Fatalf("the reply cannot be sent back: %v", err)
	}
}
