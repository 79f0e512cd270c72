package anthropic_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

var update = flag.Bool("update", false, "rewrite the golden request files under testdata/golden")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is the API key of every test model; no error may show it.
const testKey = "sk-ant-test-SECRET123"

// weatherTool is the tool offered in the recorded requests.
var weatherTool = chat.ToolDefinition{
	Name:        "get_weather",
	Description: "Get the current weather for a city",
	InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": {"type": "integer", "minimum": 1, "maximum": 14}, "options": {"type": "object", "properties": {"wind": {"type": "boolean"}, "lang": {"type": "string"}}, "required": ["wind"]}}, "required": ["city", "unit", "days", "options"]}`),
}

// messagesPath is where a model built by newModel sends its requests.
const messagesPath = "/v1/messages"

// serve starts a server that answers the n-th POST to messagesPath with
// the n-th handler (the last one again once they run out). Every request
// body it receives must pass checkSDK.
func serve(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	return providertest.Serve(t, messagesPath, func(w http.ResponseWriter, r *http.Request, i int) {
		body, _ := io.ReadAll(r.Body)
		checkSDK(t, body)
		handlers[min(i, len(handlers)-1)](w, r)
	})
}

// replay starts a server that answers with the recordings named, in turn.
func replay(t *testing.T, names ...string) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	hs := make([]http.HandlerFunc, len(names))
	for i, n := range names {
		hs[i] = answer(providertest.LoadRecording(t, n))
	}
	return serve(t, hs...)
}

// answer replays a recording, with header's name, value pairs set.
func answer(rec providertest.Recording, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		rec.ServeHTTP(w, r)
	}
}

// reply answers 200 with body; a body that starts with "event:" is a
// stream.
func reply(body string, header ...string) http.HandlerFunc {
	ctype := "application/json"
	if strings.HasPrefix(body, "event:") {
		ctype = "text/event-stream"
	}
	return answer(providertest.Recording{Status: 200, ContentType: ctype, Body: []byte(body)}, header...)
}

// newModel returns a model talking to srv with testKey, with cfg's other
// settings; the model name defaults to "tiny-toolcaller", as in the
// recordings.
func newModel(srv *httptest.Server, cfg anthropic.Config) *anthropic.Model {
	cfg.BaseURL = srv.URL
	cfg.HTTPClient = srv.Client() // its idle connections close with srv
	if cfg.Model == "" {
		cfg.Model = "tiny-toolcaller"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	return anthropic.New(cfg)
}

// sse writes events as a stream: each is an object whose "type" names
// its event.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var v struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(e), &v); err != nil {
			panic(fmt.Sprintf("sse: %v: %s", err, e))
		}
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", v.Type, e)
	}
	return b.String()
}

// checkProviderError checks the fields every error of this package
// checkProviderError checks the fields every error of this package
// carries, and that the API key appears nowhere in it.
func checkProviderError(t *testing.T, err, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	return providertest.CheckProviderError(t, err, sentinel, "anthropic", testKey, status, model)
}

func ptr[T any](v T) *T { return &v }

func text(s string) chat.Delta { return chat.Delta{Content: s} }

func callDelta(i int, id, name, args string) chat.Delta {
	return chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: id, Name: name, Arguments: args}}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// collect returns a yield function that appends every delta to *ds.
func collect(ds *[]chat.Delta) func(chat.Delta) bool {
	return func(d chat.Delta) bool {
		if d.ToolCall != nil {
			tc := *d.ToolCall
			d.ToolCall = &tc
		}
		*ds = append(*ds, d)
		return true
	}
}
