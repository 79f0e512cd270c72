package providertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolcall-go/toolcall/chat"
)

// A Recording is one exchange from testdata/: NAME.meta.json (status and
// content type) and the body, NAME.response.json or, for a stream,
// NAME.response.sse.txt or NAME.response.ndjson.
type Recording struct {
	Status      int
	ContentType string
	Body        []byte
}

// LoadRecording reads the recording NAME from testdata/.
func LoadRecording(t testing.TB, name string) Recording {
	t.Helper()
	var meta struct {
		Status      int    `json:"status"`
		ContentType string `json:"content_type"`
	}
	raw, err := os.ReadFile(filepath.Join("testdata", name+".meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &meta))
	var body []byte
	for _, ext := range []string{".response.json", ".response.sse.txt", ".response.ndjson"} {
		body, err = os.ReadFile(filepath.Join("testdata", name+ext))
		if !errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	require.NoError(t, err)
	return Recording{Status: meta.Status, ContentType: meta.ContentType, Body: body}
}

// ServeHTTP answers with the recording.
func (rec Recording) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", rec.ContentType)
	w.WriteHeader(rec.Status)
	_, _ = w.Write(rec.Body)
}

// An Exchange is a request a test server received.
type Exchange struct {
	Body   []byte
	Header http.Header
	// Path and Query are the request URL's path and raw query.
	Path, Query string
}

// A Capture records the requests a test server received.
type Capture struct {
	mu   sync.Mutex
	reqs []Exchange
}

// Add records r and returns its index; r.Body is left holding the body
// again, to be read by whoever answers r.
func (c *Capture) Add(r *http.Request) int {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, Exchange{Body: body, Header: r.Header.Clone(), Path: r.URL.Path, Query: r.URL.RawQuery})
	return len(c.reqs) - 1
}

// Get returns the i-th request received.
func (c *Capture) Get(t testing.TB, i int) Exchange {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Greater(t, len(c.reqs), i, "the server received %d requests", len(c.reqs))
	return c.reqs[i]
}

// Count returns how many requests were received.
func (c *Capture) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reqs)
}

// Serve starts a server that records each POST to path and answers the
// i-th (from 0) with answer(w, r, i); anything else gets 404.
func Serve(t testing.TB, path string, answer func(w http.ResponseWriter, r *http.Request, i int)) (*httptest.Server, *Capture) {
	t.Helper()
	c := &Capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		answer(w, r, c.Add(r))
	}))
	t.Cleanup(srv.Close)
	return srv, c
}

// Replay starts a server that answers the n-th POST to path with the n-th
// recording named (the last one again once they run out).
func Replay(t testing.TB, path string, names ...string) (*httptest.Server, *Capture) {
	t.Helper()
	recs := make([]Recording, len(names))
	for i, n := range names {
		recs[i] = LoadRecording(t, n)
	}
	return Serve(t, path, func(w http.ResponseWriter, r *http.Request, i int) {
		recs[min(i, len(recs)-1)].ServeHTTP(w, r)
	})
}

// CheckProviderError checks the fields every error of provider carries:
// it wraps sentinel and is a *chat.ProviderError of that status and
// model; and that key, unless empty, shows nowhere in it.
func CheckProviderError(t testing.TB, err, sentinel error, provider, key string, status int, model string) *chat.ProviderError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, sentinel)
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, provider, pe.Provider)
	assert.Equal(t, status, pe.StatusCode)
	assert.Equal(t, model, pe.Model)
	if key != "" {
		CheckNoKey(t, err, key)
	}
	return pe
}

// CheckNoKey fails if key shows in err: its message, its %+v and %#v
// forms, or the message of any error it wraps.
func CheckNoKey(t testing.TB, err error, key string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, s := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
			if strings.Contains(s, key) {
				t.Errorf("the API key shows in the error (%T): %s", e, s)
			}
		}
	}
}

// Slug turns a case name into a file name part: "Malformed JSON" ->
// "malformed_json".
func Slug(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	return strings.Join(f, "_")
}

// Assemble is what a stream's deltas add up to: the text, and each call
// (by its Index) with the id and name of its first delta and its argument
// fragments joined, in the order of the indexes.
func Assemble(ds []chat.Delta) (string, []chat.ToolCall) {
	var text strings.Builder
	calls := map[int]*chat.ToolCall{}
	for _, d := range ds {
		text.WriteString(d.Content)
		if d.ToolCall == nil {
			continue
		}
		c := calls[d.ToolCall.Index]
		if c == nil {
			c = &chat.ToolCall{ID: d.ToolCall.ID, Name: d.ToolCall.Name}
			calls[d.ToolCall.Index] = c
		}
		c.Arguments = append(c.Arguments, d.ToolCall.Arguments...)
	}
	var out []chat.ToolCall
	for _, i := range slices.Sorted(maps.Keys(calls)) {
		out = append(out, *calls[i])
	}
	return text.String(), out
}
