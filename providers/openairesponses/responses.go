package openairesponses

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/retry"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// DefaultBaseURL is OpenAI's API, used when neither Config.BaseURL nor
// OPENAI_BASE_URL is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a [Model]. Every field is optional; the zero value talks
// to OpenAI with the key in $OPENAI_API_KEY and requires Request.Model on
// each request.
//
// Reasoning is asked for per request, in Options.Extra: a request with a
// "reasoning" setting also asks for include
// ["reasoning.encrypted_content"], so that the reasoning goes back to the
// model; one without does not, as models without reasoning refuse it. An
// "include" in Options.Extra is sent as given instead (see "Requests" in
// the package documentation).
type Config struct {
	// BaseURL is the API root, up to and including the version, e.g.
	// "http://localhost:8080/v1" for llama.cpp's server or
	// "http://localhost:11434/v1" for Ollama. Requests go to
	// BaseURL + "/responses". A BaseURL that ends in an endpoint's path
	// ("/responses", "/chat/completions", "/completions", "/messages") is
	// taken for the root before it. Empty means $OPENAI_BASE_URL, read by
	// [New], else [DefaultBaseURL].
	BaseURL string
	// APIKey is sent as "Authorization: Bearer APIKey". Empty means
	// $OPENAI_API_KEY, read by [New]; if that is empty too, no
	// Authorization header is sent, as local servers expect. The key never
	// appears in errors, nor in the Model's String form.
	APIKey string
	// Model is the model name, e.g. "gpt-5-mini". Request.Model overrides
	// it.
	Model string
	// HTTPClient sends the requests. Nil means the client shared by the
	// models of every provider package, which keeps up to 100 idle
	// connections per server and uses HTTP/2 where the server offers it.
	// Leave its Timeout zero for streaming and bound calls with the
	// context instead.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with status 408,
	// 409, 429 or 5xx, or whose connection failed before any response,
	// is sent again (see "Retries, connections and limits" in the package
	// documentation). 0 means [DefaultMaxRetries]; [NoRetries], or any
	// negative value, turns retries off.
	MaxRetries int
	// MaxResponseBytes bounds a reply: the body of a reply that is not
	// streamed, and all a stream assembles: text, reasoning, the output
	// items kept to be sent back, tool calls (names, ids, arguments), and
	// a share for each call and item, so that very many empty ones are
	// bounded too. A larger reply ends the call with an
	// error that wraps [chat.ErrBadResponse] and names the limit. 0 means
	// 32 MiB; a negative value, such as [toolcall.NoLimit], removes the
	// limit. Each line of a stream is bounded to eight times the
	// limit, at least 1 MiB and at most 16 MiB.
	// A body or stream line whose JSON values would take more than the
	// limit, or 1 MiB if that is more, to decode (256 bytes an array
	// element, 32 an object member; a byte that is not UTF-8, the three it
	// decodes to) is refused before it is decoded. A reply whose model is
	// longer than 1 KiB is malformed.
	MaxResponseBytes int
}

// Retry settings for Config.MaxRetries.
const (
	// DefaultMaxRetries is the number of retries when Config.MaxRetries
	// is 0: up to three requests in all.
	DefaultMaxRetries = retry.DefaultMaxRetries
	// NoRetries turns retries off: every call makes one request.
	NoRetries = -1
)

// A Model is a chat model behind OpenAI's Responses API. It implements
// [chat.Model] and [chat.StreamingModel].
//
// A Model is safe for concurrent use by multiple goroutines; it holds no
// per-request state.
type Model struct {
	ep    httpline.Endpoint
	base  string
	model string
}

var (
	_ chat.Model          = (*Model)(nil)
	_ chat.StreamingModel = (*Model)(nil)
)

// New returns a Model for cfg. It reads OPENAI_BASE_URL and OPENAI_API_KEY
// for the fields cfg leaves empty and does no I/O: an unreachable server,
// a bad key or an unknown model is reported by the first request.
func New(cfg Config) *Model {
	base := apiRoot(httpline.Setting(cfg.BaseURL, "OPENAI_BASE_URL", DefaultBaseURL))
	key := httpline.Setting(cfg.APIKey, "OPENAI_API_KEY", "")
	m := &Model{base: base, model: cfg.Model}
	header := http.Header{}
	if key != "" {
		header.Set("Authorization", "Bearer "+key)
	}
	m.ep = httpline.Endpoint{
		Provider:    providerName,
		URL:         base + "/responses",
		Header:      header,
		Secret:      key,
		KeyEnv:      "OPENAI_API_KEY",
		Client:      cfg.HTTPClient,
		Retry:       retry.Policy{MaxRetries: cfg.MaxRetries},
		Limit:       httpline.ResponseLimit(cfg.MaxResponseBytes),
		ParseError:  m.parseError,
		Unreachable: "cannot connect to " + base + "; is the server running?",
	}
	return m
}

// endpointPaths are the paths of the APIs' endpoints that a BaseURL copied
// from an example may end in; the API root is what precedes them.
var endpointPaths = []string{"/responses", "/chat/completions", "/completions", "/messages"}

// apiRoot returns a BaseURL without trailing slashes nor an endpoint's
// path: "https://api.openai.com/v1/responses" means
// "https://api.openai.com/v1", and a request there goes to
// .../v1/responses, not .../v1/responses/responses, which would answer
// 404.
func apiRoot(base string) string {
	base = strings.TrimRight(base, "/")
	for _, p := range endpointPaths {
		if root, ok := strings.CutSuffix(base, p); ok {
			return strings.TrimRight(root, "/")
		}
	}
	return base
}

// String describes the model without its API key, so that logging a Model
// cannot leak the key.
func (m *Model) String() string {
	return "openairesponses.Model(" + m.ep.Redact(m.ep.URL) + ", model " + m.model + ")"
}

// GoString is String, for %#v.
func (m *Model) GoString() string { return m.String() }

// StructuredOutput reports true: Request.Output goes out as text.format
// {"type": "json_schema", name, schema, strict}.
func (m *Model) StructuredOutput() bool { return true }

// Chat sends req and returns the reply. It does not modify req. Errors are
// [*chat.ProviderError] values; see the package documentation. The reply's
// Attempts, or the error's, is the number of requests sent.
func (m *Model) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	body, model, err := m.encode(req, false)
	if err != nil {
		return nil, err
	}
	return m.ep.Call(ctx, model, "application/json", body, decode)
}

// decode reads a reply that is not streamed.
func decode(ctx context.Context, rep *httpline.Reply) (*chat.Response, error) {
	data, err := rep.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	var wr response
	if err := json.Unmarshal(data, &wr); err != nil {
		return nil, rep.BadResponse(wire.DecodeProblem("response", apiName, err))
	}
	if wr.Output == nil && wr.Status != "failed" {
		if msg := serverMessage(data); msg != "" {
			return nil, inBandError(rep, "", msg)
		}
		if wr.Status == "" {
			return nil, rep.BadResponse("response has no output and no status")
		}
	}
	a := assembler{content: textBuf{limit: rep.Limit()}}
	for i, raw := range wr.Output {
		if err := a.addItem(raw); err != nil {
			return nil, rep.BadResponse(wire.DecodeProblem(fmt.Sprintf("output item %d", i), apiName, err))
		}
	}
	// Each item costs what it costs in a stream: a reply of many tiny
	// items is bounded by their number, not only by its bytes.
	if limit := rep.Limit(); limit >= 0 && int64(len(wr.Output))*httpline.ItemCost > limit {
		return nil, rep.TooLarge("reply")
	}
	return a.response(&wr, rep)
}
