package openai_test

import (
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

var update = flag.Bool("update", false, "rewrite the golden request files under testdata/golden and the fuzz seeds under testdata/fuzz")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testKey is the API key of every test model; no error may show it.
const testKey = "sk-test-SECRET123"

// weatherTool is the tool offered in the captured llama.cpp requests.
var weatherTool = chat.ToolDefinition{
	Name:        "get_weather",
	Description: "Get the current weather for a city",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"City name"},"unit":{"type":"string","enum":["celsius","fahrenheit"]},"options":{"type":"object","properties":{"days":{"type":"integer"},"detail":{"type":"object","properties":{"wind":{"type":"boolean"}},"required":["wind"]}},"required":["days","detail"]}},"required":["city","unit","options"]}`),
}

// shortWeatherTool is the tool offered in ollama-v1/d_tools_stream.
var shortWeatherTool = chat.ToolDefinition{
	Name:        "get_weather",
	Description: "Get weather",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

// nowTool takes no parameters.
var nowTool = chat.ToolDefinition{Name: "now", Description: "Current time"}

// chatPath is where a model built by newModel sends its requests.
const chatPath = "/v1/chat/completions"

// replay starts a server that answers the n-th POST to chatPath with the
// n-th recording (the last one again once they run out).
func replay(t *testing.T, names ...string) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	return providertest.Replay(t, chatPath, names...)
}

// newModel returns a model talking to srv with testKey, with cfg's other
// settings; the model name defaults to "tiny", as in the llama.cpp
// captures.
func newModel(srv *httptest.Server, cfg openai.Config) *openai.Model {
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = srv.Client() // its idle connections close with srv
	if cfg.Model == "" {
		cfg.Model = "tiny"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	return openai.New(cfg)
}

// checkCaptured compares a request body with the one recorded in
// testdata/NAME.request.json. The recording clients left out two fields the
// adapter always sends: "stream" (false when absent) and, with a stream,
// stream_options.include_usage.
func checkCaptured(t *testing.T, name string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("testdata", name+".request.json"))
	require.NoError(t, err)
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	if _, ok := w["stream"]; !ok {
		assert.Equal(t, false, g["stream"], "stream")
		delete(g, "stream")
	}
	if _, ok := w["stream_options"]; !ok && w["stream"] == true {
		assert.Equal(t, map[string]any{"include_usage": true}, g["stream_options"], "stream_options")
		delete(g, "stream_options")
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	assert.JSONEq(t, string(wb), string(gb), "request body differs from the recorded %s.request.json", name)
}

// checkProviderError checks the fields every adapter error must carry, and
// checkProviderError checks the fields every error of this package
// carries, and that the API key appears nowhere in it.
func checkProviderError(t *testing.T, err, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	return providertest.CheckProviderError(t, err, sentinel, "openai", testKey, status, model)
}

func ptr[T any](v T) *T { return &v }

func text(s string) chat.Delta { return chat.Delta{Content: s} }

func callDelta(i int, id, name, args string) chat.Delta {
	return chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: id, Name: name, Arguments: args}}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}
