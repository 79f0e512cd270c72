package openairesponses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/retry"
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
	// BaseURL + "/responses". Empty means $OPENAI_BASE_URL, read by
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
	// is sent again (see "Retries" in the package documentation). 0 means
	// [DefaultMaxRetries]; [NoRetries], or any negative value, turns
	// retries off.
	MaxRetries int
	// MaxResponseBytes bounds a reply: the body of a reply that is not
	// streamed, and the text, reasoning, reasoning items and tool-call
	// arguments a stream assembles. A larger reply ends the call with an
	// error that wraps [chat.ErrBadResponse] and names the limit. 0 means
	// 32 MiB; a negative value, such as
	// [toolcall.NoLimit], removes the limit. Each line of a stream is
	// bounded to 16 MiB whatever this limit.
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
	endpoint string // base + "/responses"
	base     string
	model    string
	key      string // redacted from every error; see errors.go
	auth     string // "Bearer " + key, built once
	client   *http.Client
	retry    retry.Policy
	limit    int64 // of a reply, in bytes; negative: none
}

var (
	_ chat.Model          = (*Model)(nil)
	_ chat.StreamingModel = (*Model)(nil)
)

// New returns a Model for cfg. It reads OPENAI_BASE_URL and OPENAI_API_KEY
// for the fields cfg leaves empty and does no I/O: an unreachable server,
// a bad key or an unknown model is reported by the first request.
func New(cfg Config) *Model {
	base := strings.TrimSpace(cfg.BaseURL)
	if base == "" {
		base = strings.TrimSpace(os.Getenv("OPENAI_BASE_URL"))
	}
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key = strings.TrimSpace(os.Getenv("OPENAI_API_KEY"))
	}
	client := cfg.HTTPClient
	if client == nil {
		client = httpline.DefaultClient()
	}
	m := &Model{
		endpoint: base + "/responses",
		base:     base,
		model:    cfg.Model,
		key:      key,
		client:   client,
		retry:    retry.Policy{MaxRetries: cfg.MaxRetries},
		limit:    httpline.ResponseLimit(cfg.MaxResponseBytes),
	}
	if key != "" {
		m.auth = "Bearer " + key
	}
	return m
}

// String describes the model without its API key, so that logging a Model
// cannot leak the key.
func (m *Model) String() string {
	return "openairesponses.Model(" + m.redact(m.endpoint) + ", model " + m.model + ")"
}

// GoString is String, for %#v.
func (m *Model) GoString() string { return m.String() }

// Chat sends req and returns the reply. It does not modify req. Errors are
// [*chat.ProviderError] values; see the package documentation. The reply's
// Attempts, or the error's, is the number of requests sent.
func (m *Model) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	var attempts int
	resp, err := m.chat(ctx, req, &attempts)
	return retry.Count(resp, err, attempts)
}

func (m *Model) chat(ctx context.Context, req *chat.Request, attempts *int) (*chat.Response, error) {
	body, model, err := m.encode(req, false)
	if err != nil {
		return nil, err
	}
	resp, err := m.post(ctx, body, model, false, attempts)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	reply, err := m.readReply(ctx, resp, model)
	return reply, withRequestID(err, resp)
}

// readReply reads and converts a reply that is not streamed.
func (m *Model) readReply(ctx context.Context, resp *http.Response, model string) (*chat.Response, error) {
	data, err := httpline.ReadBody(resp, m.limit)
	if err != nil {
		return nil, m.readError(ctx, model, resp.StatusCode, "response body", err)
	}
	var wr response
	if err := json.Unmarshal(data, &wr); err != nil {
		return nil, m.badResponse(model, resp.StatusCode, decodeProblem("response", err))
	}
	if wr.Output == nil && wr.Status != "failed" {
		if msg := serverMessage(data); msg != "" {
			return nil, m.inBandError(model, resp.StatusCode, "", msg)
		}
		if wr.Status == "" {
			return nil, m.badResponse(model, resp.StatusCode, "response has no output and no status")
		}
	}
	var a assembler
	for i, raw := range wr.Output {
		if err := a.addItem(raw); err != nil {
			return nil, m.badResponse(model, resp.StatusCode, decodeProblem(fmt.Sprintf("output item %d", i), err))
		}
	}
	return a.response(&wr, m, model, resp.StatusCode)
}

// withRequestID records the server's id of the request in err, when err
// is a *chat.ProviderError that has none yet.
func withRequestID(err error, resp *http.Response) error {
	var pe *chat.ProviderError
	if err != nil && errors.As(err, &pe) && pe.RequestID == "" {
		pe.RequestID = requestID(resp.Header)
	}
	return err
}

// requestID is the id the server gave the request: OpenAI's x-request-id,
// or a request-id header.
func requestID(h http.Header) string {
	if id := h.Get("X-Request-Id"); id != "" {
		return id
	}
	return h.Get("Request-Id")
}

// post sends body, again when the server or the connection failed in a
// way that is retried, and returns a 2xx response whose body is unread; any
// other status is read and turned into a *chat.ProviderError. It sets
// *attempts to the number of requests made.
func (m *Model) post(ctx context.Context, body []byte, model string, stream bool, attempts *int) (*http.Response, error) {
	var resp *http.Response
	n, err := m.retry.Do(ctx, func() error {
		var err error
		resp, err = m.send(ctx, body, model, stream)
		return err
	})
	*attempts = n
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// send makes one request: it sends body and returns a 2xx response; any
// other status is read and turned into a *chat.ProviderError.
func (m *Model) send(ctx context.Context, body []byte, model string, stream bool) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, m.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &chat.ProviderError{Provider: providerName, Model: model, Err: chat.ErrBadRequest,
			Message: m.redact("invalid BaseURL: " + err.Error())}
	}
	hr.Header.Set("Content-Type", "application/json")
	if stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	if m.auth != "" {
		hr.Header.Set("Authorization", m.auth)
	}
	resp, err := m.client.Do(hr)
	if err != nil {
		return nil, m.transportError(ctx, model, 0, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, withRequestID(m.statusError(resp, model), resp)
	}
	return resp, nil
}
