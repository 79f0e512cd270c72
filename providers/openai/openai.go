package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
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
type Config struct {
	// BaseURL is the API root, up to and including the version, e.g.
	// "http://localhost:8080/v1" for llama.cpp's server or
	// "http://localhost:11434/v1" for Ollama. Requests go to
	// BaseURL + "/chat/completions". Empty means $OPENAI_BASE_URL, read by
	// [New], else [DefaultBaseURL].
	//
	// A BaseURL that already ends in /chat/completions is taken as meant:
	// that suffix is dropped. One that ends in /responses (OpenAI's
	// Responses API) or /messages (Anthropic's Messages API) is another
	// API: every request fails, without being sent, with an error wrapping
	// [chat.ErrBadRequest] that says what to set instead.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer APIKey". Empty means
	// $OPENAI_API_KEY, read by [New]; if that is empty too, no
	// Authorization header is sent, as local servers expect. The key never
	// appears in errors, nor in the Model's String form.
	APIKey string
	// Model is the model name, e.g. "gpt-4o-mini". Request.Model overrides
	// it.
	Model string
	// Organization, when set, is sent in the OpenAI-Organization header.
	Organization string
	// HTTPClient sends the requests. Nil means a client shared by the
	// models of both providers, which keeps up to 100 idle connections per
	// server and uses HTTP/2 where the server offers it (see "Connections"
	// in the package documentation). Leave its Timeout zero for streaming
	// and bound calls with the context instead.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with status 408,
	// 409, 429 or 5xx, or whose connection failed before any response,
	// is sent again (see "Retries" in the package documentation). 0 means
	// [DefaultMaxRetries]; [NoRetries], or any negative value, turns
	// retries off.
	MaxRetries int
	// MaxResponseBytes bounds a reply: the body of a reply that is not
	// streamed, and what a stream assembles: text, reasoning, tool calls
	// (their ids, names, arguments and extra_content, and their number)
	// and the message's own fields (see "Response limit" in the package
	// documentation). A larger reply ends the call with an error that wraps
	// [chat.ErrBadResponse] and names the limit. 0 means 32 MiB; a
	// negative value, such as [toolcall.NoLimit], removes the limit. Each
	// line of a stream is bounded to eight times the limit, at least
	// 1 MiB and at most 16 MiB.
	// A body or stream line whose JSON values would take more than the
	// limit, or 1 MiB if that is more, to decode (256 bytes an array
	// element, 32 an object member; a byte that is not UTF-8, the three it
	// decodes to) is refused before it is decoded. A reply whose model or
	// finish_reason is longer than 1 KiB is malformed.
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

// A Model is a chat model behind an OpenAI-compatible Chat Completions API.
// It implements [chat.Model] and [chat.StreamingModel].
//
// A Model is safe for concurrent use by multiple goroutines; it holds no
// per-request state.
type Model struct {
	ep    httpline.Endpoint // URL is base + "/chat/completions"
	base  string
	model string
	// baseErr, when set, says why BaseURL cannot be used; every request
	// fails with it.
	baseErr string
	// completionTokens sends Options.MaxTokens as max_completion_tokens,
	// which OpenAI requires of its reasoning models; compatible servers
	// know max_tokens.
	completionTokens bool
}

var (
	_ chat.Model          = (*Model)(nil)
	_ chat.StreamingModel = (*Model)(nil)
)

// New returns a Model for cfg. It reads OPENAI_BASE_URL and OPENAI_API_KEY
// for the fields cfg leaves empty and does no I/O: an unreachable server,
// a bad key or an unknown model is reported by the first request.
func New(cfg Config) *Model {
	base, baseErr := apiRoot(strings.TrimRight(httpline.Setting(cfg.BaseURL, "OPENAI_BASE_URL", DefaultBaseURL), "/"))
	key := httpline.Setting(cfg.APIKey, "OPENAI_API_KEY", "")
	m := &Model{
		base:             base,
		model:            cfg.Model,
		baseErr:          baseErr,
		completionTokens: isOpenAI(base),
	}
	header := http.Header{}
	if key != "" {
		header.Set("Authorization", "Bearer "+key)
	}
	if cfg.Organization != "" {
		header.Set("OpenAI-Organization", cfg.Organization)
	}
	m.ep = httpline.Endpoint{
		Provider:    providerName,
		URL:         base + "/chat/completions",
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

// apiRoot returns the API root a BaseURL stands for: base without a
// trailing /chat/completions, which users copy from the API's reference
// with the endpoint. For a BaseURL that ends in another API's endpoint it
// also returns why it cannot be used and what to set instead, since
// appending /chat/completions to it would end in a 404 that reads like a
// missing model.
func apiRoot(base string) (root, problem string) {
	u, err := url.Parse(base)
	if err != nil {
		return base, "" // reported by the first request, as any invalid URL
	}
	path := strings.TrimRight(u.Path, "/")
	if strings.HasSuffix(path, "/chat/completions") {
		u.Path = strings.TrimSuffix(path, "/chat/completions")
		u.RawPath = ""
		return strings.TrimRight(u.String(), "/"), ""
	}
	for _, other := range []struct{ suffix, api, pkg string }{
		{"/responses", "OpenAI's Responses API", "providers/openairesponses"},
		{"/messages", "Anthropic's Messages API", "providers/anthropic"},
	} {
		if strings.HasSuffix(path, other.suffix) {
			u.Path = strings.TrimSuffix(path, other.suffix)
			u.RawPath = ""
			return base, "BaseURL " + base + " ends in " + other.suffix + ", the endpoint of " + other.api +
				"; this package speaks Chat Completions: set BaseURL to the API root, " + u.String() +
				", to which it adds /chat/completions, or use " + other.pkg
		}
	}
	return base, ""
}

// isOpenAI reports whether base is OpenAI's own API.
func isOpenAI(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// String describes the model without its API key, so that logging a Model
// cannot leak the key.
func (m *Model) String() string {
	return "openai.Model(" + m.ep.Redact(m.ep.URL) + ", model " + m.model + ")"
}

// GoString is String, for %#v.
func (m *Model) GoString() string { return m.String() }

// StructuredOutput reports true: Request.Output goes out as response_format
// {"type": "json_schema", "json_schema": {name, schema, strict}}, the shape
// OpenAI, llama.cpp's server, vLLM and Ollama's /v1 take.
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
	var wr chatResponse
	if err := json.Unmarshal(data, &wr); err != nil {
		return nil, rep.BadResponse(wire.DecodeProblem("response", apiName, err))
	}
	if len(wr.Choices) == 0 {
		if hasError(wr.Error) {
			return nil, inBandError(rep, wr.Error)
		}
		return nil, rep.BadResponse("response has no choices")
	}
	c := &wr.Choices[0]
	if err := cmp.Or(rep.Metadata("model", wr.Model), rep.Metadata("finish_reason", c.FinishReason)); err != nil {
		return nil, err
	}
	// Each call costs what it costs in a stream: a reply of many tiny
	// calls is bounded by their number, not only by its bytes.
	if limit := rep.Limit(); limit >= 0 && int64(len(c.Message.ToolCalls))*httpline.ItemCost > limit {
		return nil, rep.TooLarge("reply")
	}
	return newResponse(wr.Model, c.Message.message(), wr.Usage, c.FinishReason), nil
}
