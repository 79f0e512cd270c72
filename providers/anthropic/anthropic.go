package anthropic

import (
	"bytes"
	"cmp"
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

// DefaultBaseURL is Anthropic's API, used when neither Config.BaseURL nor
// ANTHROPIC_BASE_URL is set.
const DefaultBaseURL = "https://api.anthropic.com"

// API versions, sent in the anthropic-version header.
const (
	// DefaultVersion is the current version, sent when Config.Version is
	// empty. It removed temperature, top_p and top_k: a request that sets
	// Options.Temperature or Options.TopP is refused before it is sent.
	DefaultVersion = "2026-10-21"
	// Version20230601 is the earlier version, which still takes
	// temperature, top_p and top_k; llama-server and Ollama speak it.
	Version20230601 = "2023-06-01"
)

// DefaultMaxTokens is the max_tokens sent when neither
// Options.MaxTokens nor Config.MaxTokens sets it: the API requires it.
const DefaultMaxTokens = 4096

// Config configures a [Model]. Every field is optional; the zero value
// talks to Anthropic with the key in $ANTHROPIC_API_KEY and requires
// Request.Model on each request.
type Config struct {
	// BaseURL is the server's root, e.g. "http://localhost:11434" for
	// Ollama or "http://localhost:8080" for llama-server. Requests go to
	// BaseURL + "/v1/messages". A BaseURL that already ends in /v1 or
	// /v1/messages is taken as meant, that ending left out; one that ends
	// in another API's path (/chat/completions, /completions, /responses,
	// /api/chat), or has a query, is refused by the first request, with
	// an error wrapping [chat.ErrBadRequest] that says what to set.
	// Empty means $ANTHROPIC_BASE_URL, read by [New], else
	// [DefaultBaseURL].
	BaseURL string
	// APIKey is sent in the x-api-key header. Empty means
	// $ANTHROPIC_API_KEY, read by [New]; if that is empty too, no key is
	// sent, as local servers expect. The key never appears in errors, nor
	// in the Model's String form.
	APIKey string
	// Model is the model name, e.g. "claude-sonnet-4-5". Request.Model
	// overrides it.
	Model string
	// Version is the anthropic-version header: empty means
	// [DefaultVersion]; set [Version20230601] for servers that speak only
	// that version or to send temperature and top_p. Any version other
	// than 2023-06-01 is sent as given and follows DefaultVersion's rules.
	Version string
	// MaxTokens is the max_tokens of a request whose Options.MaxTokens
	// is nil. 0 means [DefaultMaxTokens].
	MaxTokens int
	// Thinking, when set, is sent as the request's "thinking" field as
	// given, e.g. {"type":"enabled","budget_tokens":2048} or
	// {"type":"adaptive"}. Options.Extra["thinking"] overrides it for one
	// request. With thinking on, a forced tool choice is refused.
	Thinking json.RawMessage
	// PromptCaching marks the last tool and the last block of the system
	// prompt with cache_control {"type":"ephemeral"}, so that the server
	// caches the prompt up to them.
	PromptCaching bool
	// HTTPClient sends the requests. Nil means a client shared by the
	// models of all providers, which keeps up to 100 idle connections per
	// server and uses HTTP/2 where the server offers it. Leave its Timeout
	// zero for streaming and bound calls with the context instead.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with status 408,
	// 409, 429, 5xx (529 included), or whose connection failed before any
	// response, is sent again (see "Retries" in the package
	// documentation). 0 means [DefaultMaxRetries]; [NoRetries], or any
	// negative value, turns retries off.
	MaxRetries int
	// MaxResponseBytes bounds a reply: the body of a reply that is not
	// streamed, and everything a stream assembles (text, thinking,
	// signatures, tool-call arguments, blocks received whole); each
	// content block also counts 256 bytes. A larger reply ends the call
	// with an error that wraps [chat.ErrBadResponse] and names the limit.
	// 0 means 32 MiB; a negative value removes the limit. Each line of a
	// stream is bounded to eight times the limit, at least 1 MiB and at
	// most 16 MiB.
	// A body or stream line whose JSON values would take more than the
	// limit, or 1 MiB if that is more, to decode (256 bytes an array
	// element, 32 an object member; a byte that is not UTF-8, the three it
	// decodes to) is refused before it is decoded. A reply whose model or
	// stop_reason is longer than 1 KiB is malformed.
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

// A Model is a chat model behind Anthropic's Messages API. It implements
// [chat.Model] and [chat.StreamingModel].
//
// A Model is safe for concurrent use by multiple goroutines; it holds no
// per-request state.
type Model struct {
	endpoint  httpline.Endpoint
	base      string
	model     string
	version   string
	legacy    bool // version 2023-06-01: temperature and top_p allowed
	maxTokens int
	thinking  json.RawMessage
	caching   bool
	// baseProblem says why the BaseURL cannot be a server's root, or is
	// empty; New reports nothing, so the first request does.
	baseProblem string
}

var (
	_ chat.Model          = (*Model)(nil)
	_ chat.StreamingModel = (*Model)(nil)
)

// New returns a Model for cfg. It reads ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY for the fields cfg leaves empty and does no I/O: an
// unreachable server, a bad key or an unknown model is reported by the
// first request.
func New(cfg Config) *Model {
	base, problem := serverRoot(httpline.Setting(cfg.BaseURL, "ANTHROPIC_BASE_URL", DefaultBaseURL))
	key := httpline.Setting(cfg.APIKey, "ANTHROPIC_API_KEY", "")
	version := strings.TrimSpace(cfg.Version)
	if version == "" {
		version = DefaultVersion
	}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	header := http.Header{"Anthropic-Version": {version}}
	if key != "" {
		header.Set("X-Api-Key", key)
	}
	m := &Model{
		base:      base,
		model:     cfg.Model,
		version:   version,
		legacy:    version == Version20230601,
		maxTokens: maxTokens,
		thinking:  bytes.Clone(cfg.Thinking),
		caching:   cfg.PromptCaching,

		baseProblem: problem,
	}
	m.endpoint = httpline.Endpoint{
		Provider:    providerName,
		URL:         base + "/v1/messages",
		Header:      header,
		Secret:      key,
		KeyEnv:      "ANTHROPIC_API_KEY",
		Client:      cfg.HTTPClient,
		Retry:       retry.Policy{MaxRetries: cfg.MaxRetries},
		Limit:       httpline.ResponseLimit(cfg.MaxResponseBytes),
		ParseError:  m.parseError,
		Unreachable: "cannot connect to " + base + "; is the server running?",
	}
	return m
}

// otherAPIPaths end the URLs of other APIs, which a BaseURL copied from
// another provider's settings may still have.
var otherAPIPaths = []string{"/chat/completions", "/completions", "/responses", "/api/chat"}

// serverRoot returns the server's root that a BaseURL stands for: the
// Messages API's path, or its /v1, left out. problem says why base cannot
// be a root, or is empty.
func serverRoot(base string) (root, problem string) {
	if strings.ContainsAny(base, "?#") {
		return base, fmt.Sprintf("BaseURL %q has a query or fragment, which the path /v1/messages cannot follow; set Config.BaseURL (or ANTHROPIC_BASE_URL) to the server's root, such as %s", base, DefaultBaseURL)
	}
	root = strings.TrimRight(base, "/")
	for _, suffix := range []string{"/v1/messages", "/v1"} {
		if strings.HasSuffix(root, suffix) {
			return strings.TrimSuffix(root, suffix), ""
		}
	}
	for _, p := range otherAPIPaths {
		if strings.HasSuffix(root, p) {
			return root, fmt.Sprintf("BaseURL %q ends in %s, the path of another API; set Config.BaseURL (or ANTHROPIC_BASE_URL) to the server's root, such as %s, to which this package adds /v1/messages", base, p, DefaultBaseURL)
		}
	}
	return root, ""
}

// String describes the model without its API key, so that logging a Model
// cannot leak the key.
func (m *Model) String() string {
	return "anthropic.Model(" + m.endpoint.Redact(m.endpoint.URL) + ", model " + m.model + ")"
}

// GoString is String, for %#v.
func (m *Model) GoString() string { return m.String() }

// StructuredOutput reports whether Request.Output is sent, as
// output_config.format json_schema: with the current API version, not
// with Version20230601, which Ollama and llama-server speak and which has
// no output_config.
func (m *Model) StructuredOutput() bool { return !m.legacy }

// Chat sends req and returns the reply. It does not modify req. Errors are
// [*chat.ProviderError] values; see the package documentation. The reply's
// Attempts, or the error's, is the number of requests sent.
func (m *Model) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	body, model, err := m.encode(req, false)
	if err != nil {
		return nil, err
	}
	return m.endpoint.Call(ctx, model, "application/json", body, m.reply)
}

// reply reads a reply that is not streamed.
func (m *Model) reply(ctx context.Context, r *httpline.Reply) (*chat.Response, error) {
	data, err := r.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	var wr messageResponse
	if err := json.Unmarshal(data, &wr); err != nil {
		return nil, r.BadResponse(wire.DecodeProblem("response", apiName, err))
	}
	if wr.Type == "error" || len(wr.Error) > 0 && string(wr.Error) != "null" {
		return nil, inBandError(r, data)
	}
	if wr.Type != "message" && wr.Type != "" {
		return nil, r.BadResponse("response is of type " + httpline.Quote(wr.Type) + ", not a message")
	}
	// Each block costs more kept than read: a reply of many tiny blocks
	// counts that against the limit too.
	if limit := r.Limit(); limit >= 0 && int64(len(data))+int64(len(wr.Content))*httpline.ItemCost > limit {
		return nil, r.TooLarge(fmt.Sprintf("reply of %d content blocks", len(wr.Content)))
	}
	if err := cmp.Or(r.Metadata("model", wr.Model), r.Metadata("stop_reason", wr.StopReason)); err != nil {
		return nil, err
	}
	a := assembler{model: wr.Model, stop: wr.StopReason, usage: wr.Usage}
	for _, raw := range wr.Content {
		if err := a.addBlock(raw); err != nil {
			return nil, r.BadResponse(wire.DecodeProblem("content block", apiName, err))
		}
	}
	out, err := a.response()
	if err != nil {
		return nil, r.BadResponse(err.Error())
	}
	return out, nil
}
