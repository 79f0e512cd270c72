package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/retry"
	"github.com/toolcall-go/toolcall/internal/wire"
)

// DefaultBaseURL is the Gemini API, used when neither Config.BaseURL nor
// GOOGLE_GEMINI_BASE_URL is set.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// apiVersion is the path of the API version the package speaks.
const apiVersion = "/v1beta"

// Config configures a [Model]. Every field is optional; the zero value
// talks to the Gemini API with the key in $GOOGLE_API_KEY or
// $GEMINI_API_KEY and requires Request.Model on each request.
type Config struct {
	// BaseURL is the server's root. Requests go to BaseURL +
	// "/v1beta/models/MODEL:generateContent" (":streamGenerateContent?alt=sse"
	// for Stream). A BaseURL that already ends in /v1beta (or
	// /v1beta/models) is taken as meant, that ending left out; one with a query or fragment is refused
	// by the first request, with an error wrapping [chat.ErrBadRequest].
	// Empty means $GOOGLE_GEMINI_BASE_URL, read by [New], else
	// [DefaultBaseURL].
	BaseURL string
	// APIKey is sent in the x-goog-api-key header, never in the URL.
	// Empty means $GOOGLE_API_KEY, else $GEMINI_API_KEY, read by [New] in
	// the order google.golang.org/genai reads them. The key never appears
	// in errors, nor in the Model's String form.
	APIKey string
	// Model is the model name, e.g. "gemini-2.5-flash" (a "models/" prefix
	// is allowed). Request.Model overrides it.
	Model string
	// Thinking, when set, is sent as generationConfig.thinkingConfig.
	// Options.Extra["thinkingConfig"] overrides it for one request.
	Thinking *ThinkingConfig
	// HTTPClient sends the requests. Nil means a client shared by the
	// models of all providers, which keeps up to 100 idle connections per
	// server and uses HTTP/2 where the server offers it. Leave its Timeout
	// zero for streaming and bound calls with the context instead.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with status 408,
	// 409, 429, 5xx, or whose connection failed before any response, is
	// sent again (see "Retries" in the package documentation). 0 means
	// [DefaultMaxRetries]; [NoRetries], or any negative value, turns
	// retries off.
	MaxRetries int
	// MaxResponseBytes bounds a reply: the body of a reply that is not
	// streamed, and everything a stream assembles (text, thoughts,
	// signatures, call arguments); each part also counts 256 bytes. A
	// larger reply ends the call with an error that wraps
	// [chat.ErrBadResponse] and names the limit. 0 means 32 MiB; a
	// negative value removes the limit. Each line of a stream is bounded
	// to eight times the limit, at least 1 MiB and at most 16 MiB.
	// A body or stream line whose JSON values would take more than the
	// limit, or 1 MiB if that is more, to decode (256 bytes an array
	// element, 32 an object member; a byte that is not UTF-8, the three it
	// decodes to) is refused before it is decoded. A reply whose
	// modelVersion or finishReason is longer than 1 KiB is malformed.
	MaxResponseBytes int
}

// ThinkingConfig is generationConfig.thinkingConfig: whether the reply
// carries the model's thought summaries, and how much it may think.
// Gemini 2.5 models take a ThinkingBudget in tokens (0 turns thinking off
// where the model allows it, -1 lets the model decide); Gemini 3 models
// take a ThinkingLevel ("LOW", "HIGH", ...).
type ThinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// Retry settings for Config.MaxRetries.
const (
	// DefaultMaxRetries is the number of retries when Config.MaxRetries
	// is 0: up to three requests in all.
	DefaultMaxRetries = retry.DefaultMaxRetries
	// NoRetries turns retries off: every call makes one request.
	NoRetries = -1
)

// A Model is a chat model behind the Gemini API's generateContent. It
// implements [chat.Model] and [chat.StreamingModel].
//
// A Model is safe for concurrent use by multiple goroutines; it holds no
// per-request state.
type Model struct {
	endpoint httpline.Endpoint
	base     string
	model    string
	thinking *ThinkingConfig
	// baseProblem says why the BaseURL cannot be a server's root, or is
	// empty; New reports nothing, so the first request does.
	baseProblem string
}

var (
	_ chat.Model          = (*Model)(nil)
	_ chat.StreamingModel = (*Model)(nil)
)

// keyEnv names the variables the key is read from, for the message of a
// 401 sent without a key.
const keyEnv = "GOOGLE_API_KEY or GEMINI_API_KEY"

// New returns a Model for cfg. It reads GOOGLE_GEMINI_BASE_URL,
// GOOGLE_API_KEY and GEMINI_API_KEY for the fields cfg leaves empty and
// does no I/O: an unreachable server, a bad key or an unknown model is
// reported by the first request.
func New(cfg Config) *Model {
	base, problem := serverRoot(httpline.Setting(cfg.BaseURL, "GOOGLE_GEMINI_BASE_URL", DefaultBaseURL))
	key := httpline.Setting(cfg.APIKey, "GOOGLE_API_KEY", "")
	if key == "" {
		key = httpline.Setting("", "GEMINI_API_KEY", "")
	}
	header := http.Header{}
	if key != "" {
		header.Set("X-Goog-Api-Key", key)
	}
	m := &Model{base: base, model: cfg.Model, baseProblem: problem}
	if cfg.Thinking != nil {
		t := *cfg.Thinking
		m.thinking = &t
	}
	m.endpoint = httpline.Endpoint{
		Provider:    providerName,
		URL:         base + apiVersion + "/models",
		Header:      header,
		Secret:      key,
		KeyEnv:      keyEnv,
		Client:      cfg.HTTPClient,
		Retry:       retry.Policy{MaxRetries: cfg.MaxRetries},
		Limit:       httpline.ResponseLimit(cfg.MaxResponseBytes),
		ParseError:  parseStatusError,
		Unreachable: "cannot connect to " + base + "; is the server running?",
	}
	return m
}

// serverRoot returns the server's root that a BaseURL stands for, its
// /v1beta or /v1beta/models left out. problem says why base cannot be a root, or is empty.
func serverRoot(base string) (root, problem string) {
	if strings.ContainsAny(base, "?#") {
		return base, fmt.Sprintf("BaseURL %q has a query or fragment, which the path /v1beta/models/... cannot follow; set Config.BaseURL (or GOOGLE_GEMINI_BASE_URL) to the server's root, such as %s", base, DefaultBaseURL)
	}
	root = strings.TrimRight(base, "/")
	for _, suffix := range []string{apiVersion + "/models", apiVersion} {
		if strings.HasSuffix(root, suffix) {
			return strings.TrimSuffix(root, suffix), ""
		}
	}
	return root, ""
}

// String describes the model without its API key, so that logging a Model
// cannot leak the key.
func (m *Model) String() string {
	return "gemini.Model(" + m.endpoint.Redact(m.base) + ", model " + m.model + ")"
}

// GoString is String, for %#v.
func (m *Model) GoString() string { return m.String() }

// at returns the endpoint of model's method (generateContent or
// streamGenerateContent?alt=sse). A model named with its "models/" or
// "tunedModels/" prefix keeps it.
func (m *Model) at(model, method string) *httpline.Endpoint {
	ep := m.endpoint
	name := model
	collection := "models"
	for _, c := range []string{"models/", "tunedModels/"} {
		if rest, ok := strings.CutPrefix(model, c); ok {
			collection, name = strings.TrimSuffix(c, "/"), rest
			break
		}
	}
	ep.URL = m.base + apiVersion + "/" + collection + "/" + url.PathEscape(name) + ":" + method
	return &ep
}

// StructuredOutput reports true: Request.Output goes out in
// generationConfig as responseMimeType application/json and
// responseJsonSchema, the whole schema.
func (m *Model) StructuredOutput() bool { return true }

// Chat sends req and returns the reply. It does not modify req. Errors are
// [*chat.ProviderError] values; see the package documentation. The reply's
// Attempts, or the error's, is the number of requests sent.
func (m *Model) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	body, model, err := m.encode(req)
	if err != nil {
		return nil, err
	}
	return m.at(model, "generateContent").Call(ctx, model, "application/json", body, m.reply)
}

// reply reads a reply that is not streamed.
func (m *Model) reply(ctx context.Context, r *httpline.Reply) (*chat.Response, error) {
	data, err := r.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	var wr generateResponse
	if err := json.Unmarshal(data, &wr); err != nil {
		// An error body sent with a 2xx status may be a list of one.
		if e, ok := errorBody(data); ok {
			return nil, inBandError(r, e)
		}
		return nil, r.BadResponse(wire.DecodeProblem("response", apiName, err))
	}
	if wr.hasError() {
		return nil, inBandError(r, data)
	}
	if err := metadata(r, &wr); err != nil {
		return nil, err
	}
	var a assembler
	if err := a.add(&wr, false); err != nil {
		return nil, r.BadResponse(err.Error())
	}
	// Each part costs more kept than read: a reply of many tiny parts
	// counts that against the limit too.
	if limit := r.Limit(); limit >= 0 && int64(len(data))+int64(len(a.parts))*httpline.ItemCost > limit {
		return nil, r.TooLarge(fmt.Sprintf("reply of %d parts", len(a.parts)))
	}
	return a.response(r)
}
