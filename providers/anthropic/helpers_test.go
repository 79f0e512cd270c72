package anthropic_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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

// A recording is one exchange from testdata/: NAME.meta.json (status and
// content type) and NAME.response.json or NAME.response.sse.txt.
type recording struct {
	status      int
	contentType string
	body        []byte
}

func loadRecording(t testing.TB, name string) recording {
	t.Helper()
	var meta struct {
		Status      int    `json:"status"`
		ContentType string `json:"content_type"`
	}
	raw, err := os.ReadFile(filepath.Join("testdata", name+".meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &meta))
	body, err := os.ReadFile(filepath.Join("testdata", name+".response.json"))
	if errors.Is(err, os.ErrNotExist) {
		body, err = os.ReadFile(filepath.Join("testdata", name+".response.sse.txt"))
	}
	require.NoError(t, err)
	return recording{status: meta.Status, contentType: meta.ContentType, body: body}
}

// An exchange is a request a test server received.
type exchange struct {
	body   []byte
	header http.Header
}

// A capture records the requests a test server received.
type capture struct {
	mu   sync.Mutex
	reqs []exchange
}

func (c *capture) add(r *http.Request) int {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, exchange{body: body, header: r.Header.Clone()})
	return len(c.reqs) - 1
}

// get returns the i-th request received.
func (c *capture) get(t *testing.T, i int) exchange {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Greater(t, len(c.reqs), i, "the server received %d requests", len(c.reqs))
	return c.reqs[i]
}

func (c *capture) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reqs)
}

// messagesPath is where a model built by newModel sends its requests.
const messagesPath = "/v1/messages"

// serve starts a server that answers the n-th POST to messagesPath with
// the n-th handler (the last one again once they run out). Every request
// body it receives must pass checkSDK.
func serve(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *capture) {
	t.Helper()
	c := &capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != messagesPath {
			http.NotFound(w, r)
			return
		}
		i := c.add(r)
		checkSDK(t, c.get(t, i).body)
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, c
}

// replay starts a server that answers with the recordings named, in turn.
func replay(t *testing.T, names ...string) (*httptest.Server, *capture) {
	t.Helper()
	hs := make([]http.HandlerFunc, len(names))
	for i, n := range names {
		hs[i] = answer(loadRecording(t, n))
	}
	return serve(t, hs...)
}

// answer replays a recording.
func answer(rec recording, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", rec.contentType)
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body)
	}
}

// reply answers 200 with body; a body that starts with "event:" is a
// stream.
func reply(body string, header ...string) http.HandlerFunc {
	ctype := "application/json"
	if strings.HasPrefix(body, "event:") {
		ctype = "text/event-stream"
	}
	return answer(recording{status: 200, contentType: ctype, body: []byte(body)}, header...)
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
// carries, and that the API key appears nowhere in it.
func checkProviderError(t *testing.T, err error, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, sentinel)
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "anthropic", pe.Provider)
	assert.Equal(t, status, pe.StatusCode)
	assert.Equal(t, model, pe.Model)
	checkNoKey(t, err)
	return pe
}

// checkNoKey fails if the API key shows in err: its message, its %+v and
// %#v forms, or the message of any error it wraps.
func checkNoKey(t *testing.T, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, s := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
			if strings.Contains(s, testKey) {
				t.Errorf("the API key shows in the error (%T): %s", e, s)
			}
		}
	}
}

// slug turns a case name into a file name part: "Tool choice any" -> "tool_choice_any".
func slug(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	return strings.Join(f, "_")
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
