package ollama_test

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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

// A recording is one captured exchange from testdata/.
type recording struct {
	name        string
	status      int
	contentType string
	body        []byte
}

func loadRecording(t *testing.T, name string) recording {
	t.Helper()
	var meta struct {
		Status      int    `json:"status"`
		ContentType string `json:"content_type"`
	}
	raw, err := os.ReadFile(filepath.Join("testdata", name+".meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &meta))
	body, err := os.ReadFile(filepath.Join("testdata", name+".response.json"))
	if os.IsNotExist(err) {
		body, err = os.ReadFile(filepath.Join("testdata", name+".response.ndjson"))
	}
	require.NoError(t, err)
	return recording{name: name, status: meta.Status, contentType: meta.ContentType, body: body}
}

// A capture records the request bodies a test server received.
type capture struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *capture) add(b []byte) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bodies = append(c.bodies, b)
	return len(c.bodies) - 1
}

// body returns the i-th request body received.
func (c *capture) body(t *testing.T, i int) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Greater(t, len(c.bodies), i, "server received %d requests", len(c.bodies))
	return c.bodies[i]
}

// replay starts a server that answers the n-th POST /api/chat with the n-th
// recording (the last one again once they run out).
func replay(t *testing.T, names ...string) (*httptest.Server, *capture) {
	t.Helper()
	recs := make([]recording, len(names))
	for i, n := range names {
		recs[i] = loadRecording(t, n)
	}
	c := &capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		i := min(c.add(body), len(recs)-1)
		w.Header().Set("Content-Type", recs[i].contentType)
		w.WriteHeader(recs[i].status)
		_, _ = w.Write(recs[i].body)
	}))
	t.Cleanup(srv.Close)
	return srv, c
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

// checkProviderError checks the fields every adapter error must carry.
func checkProviderError(t *testing.T, err error, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, sentinel)
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "ollama", pe.Provider)
	assert.Equal(t, status, pe.StatusCode)
	assert.Equal(t, model, pe.Model)
	return pe
}
