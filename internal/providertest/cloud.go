package providertest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The recordings of the real cloud APIs (api.openai.com, api.anthropic.com,
// the Gemini API) are copied byte for byte into each provider's
// testdata/cloud/API/, with the README that lists them and the LICENSE of
// the project that recorded them: FIXTURE/NN.request.json is the body a
// real client sent, NN.meta.json the status, content type and path of the
// answer, NN.response.json or NN.response.sse.txt its body.

// A CloudExchange is one request of a cloud recording and its answer.
type CloudExchange struct {
	// Request is the body the recording client sent.
	Request json.RawMessage
	// Path and Query are the request's URI path and query.
	Path, Query string
	Recording
}

// A CloudFixture is one recorded case: a single exchange, independent
// requests, or a conversation whose every request is the previous one
// plus its reply and new input.
type CloudFixture struct {
	Name      string
	Exchanges []CloudExchange
}

// Stream reports whether exchange i was answered with a stream.
func (f CloudFixture) Stream(i int) bool {
	return strings.HasPrefix(f.Exchanges[i].ContentType, "text/event-stream")
}

// LoadCloud reads every fixture of testdata/cloud/API, sorted by name. It
// fails the test when want, the names the caller checks, and the
// directories differ: a fixture copied but not checked, or checked but
// missing.
func LoadCloud(t testing.TB, api string, want []string) []CloudFixture {
	t.Helper()
	dir := filepath.Join("testdata", "cloud", api)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "copy ../shared/fixtures/cloud/%s with its README and LICENSE into testdata/cloud", api)
	for _, f := range []string{"README.md", "LICENSE"} {
		_, err := os.Stat(filepath.Join("testdata", "cloud", f))
		require.NoError(t, err, "testdata/cloud keeps the recordings' %s", f)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	require.ElementsMatch(t, want, names, "the fixtures of %s checked and those in %s", api, dir)
	fixtures := make([]CloudFixture, 0, len(names))
	for _, name := range names {
		fixtures = append(fixtures, loadFixture(t, filepath.Join(dir, name), name))
	}
	return fixtures
}

func loadFixture(t testing.TB, dir, name string) CloudFixture {
	t.Helper()
	metas, err := filepath.Glob(filepath.Join(dir, "*.meta.json"))
	require.NoError(t, err)
	require.NotEmpty(t, metas, "fixture %s has no exchange", dir)
	slices.Sort(metas)
	f := CloudFixture{Name: name}
	for _, meta := range metas {
		prefix := strings.TrimSuffix(meta, ".meta.json")
		rel, err := filepath.Rel("testdata", prefix)
		require.NoError(t, err)
		var m struct {
			Path  string `json:"path"`
			Query string `json:"query"`
		}
		raw, err := os.ReadFile(meta)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &m))
		req, err := os.ReadFile(prefix + ".request.json")
		require.NoError(t, err)
		f.Exchanges = append(f.Exchanges, CloudExchange{Request: req, Path: m.Path, Query: m.Query, Recording: LoadRecording(t, rel)})
	}
	return f
}

// ReplayCloud starts a server that answers the n-th POST, whatever its
// path, with the n-th exchange of f, and a request past the last with 500.
// The Capture holds each request's body, headers and path.
func ReplayCloud(t testing.TB, f CloudFixture) (*httptest.Server, *Capture) {
	t.Helper()
	c := &Capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		i := c.Add(r)
		if i >= len(f.Exchanges) {
			http.Error(w, `{"error":{"message":"no recorded exchange left"}}`, http.StatusInternalServerError)
			return
		}
		f.Exchanges[i].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, c
}
