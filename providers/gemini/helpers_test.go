package gemini_test

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

var update = flag.Bool("update", false, "rewrite the golden request files under testdata/golden")

// genai's dependency go.opencensus.io starts a worker when its package is
// initialised, which runs for the life of the process.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// testKey is the API key of every test model; no error may show it.
const testKey = "AIzaSy-test-SECRET1234567"

// testModel is the model of the tests that are not replays.
const testModel = "gemini-test"

// generatePath and streamPath are where a model built by newModel sends
// its requests.
const (
	generatePath = "/v1beta/models/" + testModel + ":generateContent"
	streamPath   = "/v1beta/models/" + testModel + ":streamGenerateContent"
)

// serve starts a server that answers the n-th POST (to any path) with the
// n-th handler (the last one again once they run out). Every request body
// it receives must pass checkGenai.
func serve(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	c := &providertest.Capture{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		i := c.Add(r)
		ex := c.Get(t, i)
		checkGenai(t, ex.Body)
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, c
}

// reply answers 200 with body; a body that starts with "data:" is a
// stream.
func reply(body string, header ...string) http.HandlerFunc {
	ctype := "application/json; charset=UTF-8"
	if strings.HasPrefix(body, "data:") {
		ctype = "text/event-stream"
	}
	return answer(providertest.Recording{Status: 200, ContentType: ctype, Body: []byte(body)}, header...)
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

// status answers with status and body, a JSON error.
func status(code int, body string, header ...string) http.HandlerFunc {
	return answer(providertest.Recording{Status: code, ContentType: "application/json; charset=UTF-8", Body: []byte(body)}, header...)
}

// newModel returns a model talking to srv with testKey, with cfg's other
// settings; the model name defaults to testModel.
func newModel(srv *httptest.Server, cfg gemini.Config) *gemini.Model {
	cfg.BaseURL = srv.URL
	cfg.HTTPClient = srv.Client() // its idle connections close with srv
	if cfg.Model == "" {
		cfg.Model = testModel
	}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	return gemini.New(cfg)
}

// sse writes chunks as a stream, as the API does: "data: " and the chunk,
// each line ending in CRLF, a blank line after each.
func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\r\n\r\n")
	}
	return b.String()
}

// textChunk is a chunk, or a whole reply, whose one part is text, with
// finishReason finish when it is not empty.
func textChunk(text, finish string) string {
	c := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "index": 0}
	if finish != "" {
		c["finishReason"] = finish
	}
	b, _ := json.Marshal(map[string]any{"candidates": []any{c}, "modelVersion": "gemini-test-001"})
	return string(b)
}

// checkProviderError checks the fields every error of this package
// carries, and that the API key appears nowhere in it.
func checkProviderError(t *testing.T, err, sentinel error, status int, model string) *chat.ProviderError {
	t.Helper()
	return providertest.CheckProviderError(t, err, sentinel, "gemini", testKey, status, model)
}

func ptr[T any](v T) *T { return &v }

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

// hiRequest asks one question, with no tools.
var hiRequest = &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

// weatherTool is offered in the tests' requests.
var weatherTool = chat.ToolDefinition{
	Name:        "get_weather",
	Description: "Get the current weather for a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
}
