package openairesponses_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is the API key of every test model; no error may show it.
const testKey = "sk-test-SECRET123"

// weatherTool is the tool offered in the recorded requests.
var weatherTool = chat.ToolDefinition{
	Name:        "get_weather",
	Description: "Get the current weather for a city",
	InputSchema: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": {"type": "integer", "minimum": 1, "maximum": 14}, "options": {"type": "object", "properties": {"wind": {"type": "boolean"}, "lang": {"type": "string"}}, "required": ["wind"]}}, "required": ["city", "unit", "days", "options"]}`),
}

// responsesPath is where a model built by newModel sends its requests.
const responsesPath = "/v1/responses"

// replay starts a server that answers the n-th POST to responsesPath with
// the n-th recording (the last one again once they run out). Every body it
// receives must pass checkSDK.
func replay(t *testing.T, names ...string) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	recs := make([]providertest.Recording, len(names))
	for i, n := range names {
		recs[i] = providertest.LoadRecording(t, n)
	}
	return serve(t, func(w http.ResponseWriter, i int) {
		recs[min(i, len(recs)-1)].ServeHTTP(w, nil)
	})
}

// serve starts a server that records each POST to responsesPath and
// answers the i-th with answer; the bodies must pass checkSDK.
func serve(t *testing.T, answer func(w http.ResponseWriter, i int)) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	srv, c := providertest.Serve(t, responsesPath, func(w http.ResponseWriter, _ *http.Request, i int) { answer(w, i) })
	t.Cleanup(func() {
		for i := range c.Count() {
			checkSDK(t, c.Get(t, i).Body)
		}
	})
	return srv, c
}

// newModel returns a model talking to srv with testKey, with cfg's other
// settings; the model name defaults to "tiny-toolcaller", as recorded.
func newModel(srv *httptest.Server, cfg openairesponses.Config) *openairesponses.Model {
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = srv.Client() // its idle connections close with srv
	if cfg.Model == "" {
		cfg.Model = "tiny-toolcaller"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	return openairesponses.New(cfg)
}

// checkProviderError checks the fields every error must carry, and that
// checkProviderError checks the fields every error of this package
// carries, and that the API key appears nowhere in it.
func checkProviderError(t *testing.T, err, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	return providertest.CheckProviderError(t, err, sentinel, "openairesponses", testKey, status, model)
}

// sse writes events as a stream: "event: TYPE" and "data: JSON" lines.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(e), &head)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", head.Type, e)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

func text(s string) chat.Delta { return chat.Delta{Content: s} }

func callDelta(i int, id, name, args string) chat.Delta {
	return chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: id, Name: name, Arguments: args}}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}
