package ollama_test

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
	"github.com/toolcall-go/toolcall/providers/ollama"
)

var update = flag.Bool("update", false, "rewrite the golden request files under testdata/golden")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// weatherTool is the tool offered in the captured requests.
var weatherTool = chat.ToolDefinition{
	Name:        "get_weather",
	Description: "Get weather",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

// chatPath is where a model built by newModel sends its requests.
const chatPath = "/api/chat"

// replay starts a server that answers the n-th POST to chatPath with the
// n-th recording (the last one again once they run out).
func replay(t *testing.T, names ...string) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	return providertest.Replay(t, chatPath, names...)
}

// newModel returns a model talking to srv, with cfg's other settings.
func newModel(srv *httptest.Server, cfg ollama.Config) *ollama.Model {
	cfg.BaseURL = srv.URL
	cfg.HTTPClient = srv.Client() // its idle connections close with srv
	if cfg.Model == "" {
		cfg.Model = "tiny-toolcaller"
	}
	return ollama.New(cfg)
}

// checkCaptured compares a request body with the one recorded in
// testdata/NAME.request.json. The real client omitted "stream" in some
// captures, meaning true; the adapter always sends it.
func checkCaptured(t *testing.T, name string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join("testdata", name+".request.json"))
	require.NoError(t, err)
	var w, g map[string]any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	if _, ok := w["stream"]; !ok {
		assert.Equal(t, true, g["stream"], "stream")
		delete(g, "stream")
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	assert.JSONEq(t, string(wb), string(gb), "request body differs from the recorded one")
}

// checkProviderError checks the fields every error of this package
// carries.
func checkProviderError(t *testing.T, err, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	return providertest.CheckProviderError(t, err, sentinel, "ollama", "", status, model)
}
