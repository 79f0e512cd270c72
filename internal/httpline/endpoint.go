package httpline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/retry"
)

// An Endpoint is where a provider's model sends its requests: it posts a
// JSON body, retries as its Policy says, turns a status other than 2xx into
// a *chat.ProviderError, and keeps the API key out of every error. Its
// fields are set once, by the provider's New; it is safe for concurrent use
// after that.
type Endpoint struct {
	// Provider names the provider in errors: "openai".
	Provider string
	// URL is where requests are posted, e.g. BaseURL + "/chat/completions".
	URL string
	// Header is sent with every request, besides Content-Type and Accept:
	// the key ("Authorization: Bearer ...") and any version headers.
	Header http.Header
	// Secret is the API key, removed from every error and message. Values
	// shorter than 8 bytes are taken for the placeholders local servers
	// accept ("ollama", "none") and left alone, since replacing them would
	// garble ordinary words.
	Secret string
	// Client sends the requests; nil means [DefaultClient].
	Client *http.Client
	// Retry decides which failed requests are sent again.
	Retry retry.Policy
	// Limit bounds a reply, in bytes, as [ResponseLimit] returns it
	// (negative: no limit).
	Limit int64
	// ParseError reads the error body of a response with a status other
	// than 2xx into pe, which comes with the Provider, status, model,
	// RequestID, RetryAfter (from retry-after-ms, else Retry-After) and
	// the sentinel of the
	// status ([StatusError], or chat.ErrBadResponse for a 1xx or 3xx).
	// body is at most the first 64 KiB, the key already removed from it,
	// so that a message cut short cannot keep part of it. ParseError sets pe.Message from
	// the body, never the raw body, and may change pe.Err and
	// pe.RetryAfter. Afterwards the Endpoint removes the key from the
	// message, and an empty message becomes the status text. Nil leaves
	// the message empty.
	ParseError func(pe *chat.ProviderError, resp *http.Response, body []byte)
	// KeyEnv is the environment variable that holds the API key, e.g.
	// "OPENAI_API_KEY". When Secret is empty, the message of a 401 ends
	// by saying that no key is set, here or in Config.APIKey. Empty for a
	// server that takes no key.
	KeyEnv string
	// Unreachable is the message of a connection refused, e.g.
	// "cannot connect to http://localhost:11434; is it running?".
	Unreachable string
}

// ModelOf returns the model req asks for: req.Model, else def, the
// Config's. A nil request, or no model at all, is an error wrapping
// chat.ErrBadRequest; nothing is sent.
func (e *Endpoint) ModelOf(req *chat.Request, def string) (string, error) {
	switch {
	case req == nil:
		return def, e.BadRequest(def, "nil request")
	case req.Model != "":
		return req.Model, nil
	case def == "":
		return "", e.BadRequest("", "no model: set Config.Model or Request.Model")
	}
	return def, nil
}

// BadRequest is the error of a request to model that cannot be built and
// is not sent: it wraps chat.ErrBadRequest and says why in msg, the key
// removed.
func (e *Endpoint) BadRequest(model, msg string) *chat.ProviderError {
	return &chat.ProviderError{Provider: e.Provider, Model: model, Err: chat.ErrBadRequest, Message: e.Redact(msg)}
}

// maxErrorBody bounds how much of an error response is read, and
// maxErrorValues what decoding it may take beyond its bytes (see
// ValueCost): a body of tiny values is not parsed.
const (
	maxErrorBody   = 64 << 10
	maxErrorValues = 256 << 10
)

// Call posts body to e.URL with the Accept header accept, again when it
// failed in a way e.Retry retries, and returns what read makes of the 2xx
// reply, with the reply's Attempts set; read is given ctx, and the body is
// closed when read returns. model is the model the body asks for, for errors. An error of
// the request is a *chat.ProviderError with Attempts set; a cancelled or
// expired ctx is reported as ctx.Err(). read builds its errors with the
// Reply's methods, so that they carry the status, request id and attempts
// too.
//
// The retries end when a 2xx response's headers arrive: nothing of a reply
// has been read then, and whatever happens to the body afterwards is
// reported by read and never retried.
func (e *Endpoint) Call(ctx context.Context, model, accept string, body []byte, read func(context.Context, *Reply) (*chat.Response, error)) (*chat.Response, error) {
	rep, err := e.post(ctx, model, accept, body)
	if err != nil {
		return nil, err
	}
	defer rep.Body.Close()
	resp, err := read(ctx, rep)
	if resp != nil {
		resp.Attempts = rep.Attempts
	}
	return resp, err
}

// post sends the request of Call and returns the 2xx reply, its body
// unread.
func (e *Endpoint) post(ctx context.Context, model, accept string, body []byte) (*Reply, error) {
	newRequest := func() (*http.Request, error) {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for k, v := range e.Header {
			hr.Header[k] = v
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Accept", accept)
		return hr, nil
	}
	// The first request is built before any is sent, so that a URL that
	// cannot be used is reported with no attempt.
	hr, err := newRequest()
	if err != nil {
		return nil, e.BadRequest(model, "invalid BaseURL: "+err.Error())
	}
	var resp *http.Response
	n, err := e.Retry.Do(ctx, func() error {
		if hr == nil {
			hr, _ = newRequest() // as the first was built, so is this one
		}
		var err error
		resp, err = e.send(ctx, hr, model)
		hr = nil
		return err
	})
	if err != nil {
		var pe *chat.ProviderError
		if errors.As(err, &pe) {
			pe.Attempts = n
		}
		return nil, err
	}
	return &Reply{Response: resp, Attempts: n, RequestID: requestID(resp.Header), e: e, model: model}, nil
}

// send sends hr once and returns a 2xx response; any other status is read
// and turned into a *chat.ProviderError.
func (e *Endpoint) send(ctx context.Context, hr *http.Request, model string) (*http.Response, error) {
	client := e.Client
	if client == nil {
		client = DefaultClient()
	}
	// A redirect elsewhere would carry the key (net/http strips only
	// Authorization from it, not x-api-key or x-goog-api-key) and the
	// conversation: it is followed only to the same scheme and host.
	c := *client
	c.CheckRedirect = sameOrigin(client.CheckRedirect)
	resp, err := c.Do(hr)
	if err != nil {
		return nil, e.transportError(ctx, model, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		pe := e.statusError(resp, model)
		// OpenAI's and Anthropic's servers may say whether to retry;
		// their SDKs follow that before their own rules, and so do we.
		switch resp.Header.Get("X-Should-Retry") {
		case "true":
			return nil, &retry.ServerSaid{Err: pe, Retry: true}
		case "false":
			return nil, &retry.ServerSaid{Err: pe, Retry: false}
		}
		return nil, pe
	}
	return resp, nil
}

// sameOrigin returns a redirect policy that refuses a redirect to another
// scheme or host, then applies next (net/http's default when nil).
func sameOrigin(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			return fmt.Errorf("refused a redirect to another host (%s), which would receive the API key", req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// statusError turns a response with a status other than 2xx into a
// ProviderError carrying the server's message, never the raw body.
func (e *Endpoint) statusError(resp *http.Response, model string) *chat.ProviderError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	pe := &chat.ProviderError{
		Provider:   e.Provider,
		StatusCode: resp.StatusCode,
		Model:      model,
		RetryAfter: retryAfter(resp.Header, time.Now()),
		RequestID:  requestID(resp.Header),
		Err:        StatusError(resp.StatusCode),
	}
	if pe.Err == nil { // a 1xx or 3xx that the client did not follow
		pe.Err = chat.ErrBadResponse
	}
	switch {
	case ValueCost(body) > maxErrorValues:
		pe.Message = "the error body has too many JSON values to be read"
	case e.ParseError != nil:
		// The key out first: ParseError may cut the message, and a key cut
		// in two would no longer be found.
		e.ParseError(pe, resp, []byte(e.Redact(string(body))))
	}
	if resp.StatusCode == http.StatusUnauthorized && e.Secret == "" && e.KeyEnv != "" {
		pe.Message = strings.TrimPrefix(pe.Message+"; no API key is set (Config.APIKey or "+e.KeyEnv+")", "; ")
	}
	pe.Message = printable(e.Redact(pe.Message))
	if pe.Message == "" {
		pe.Message = http.StatusText(resp.StatusCode)
	}
	return pe
}

// transportError wraps a failure to send, with the key removed. A
// cancelled or expired ctx is reported as ctx.Err(), so errors.Is(err,
// context.Canceled) holds.
func (e *Endpoint) transportError(ctx context.Context, model string, err error) error {
	pe := &chat.ProviderError{Provider: e.Provider, Model: model, Err: e.redactErr(err)}
	if ctx.Err() != nil {
		pe.Err = ctx.Err()
		return pe
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		pe.Message = e.Redact(e.Unreachable)
	}
	return pe
}

// retryAfter reads how long the server asks to wait: OpenAI's
// retry-after-ms, else the HTTP Retry-After header.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms < 1e12 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return RetryAfter(h.Get("Retry-After"), now)
}

// requestID returns the id a server gave a request: Anthropic's
// request-id, or the x-request-id of OpenAI and many proxies.
func requestID(h http.Header) string {
	if id := h.Get("Request-Id"); id != "" {
		return id
	}
	return h.Get("X-Request-Id")
}

// minSecretLen is the shortest Secret that is redacted.
const minSecretLen = 8

// Redact returns s without the key: a server may echo the Authorization
// header in a message, and a URL may hold the key. The password of the
// URL's user (a proxy's, say) goes too.
func (e *Endpoint) Redact(s string) string {
	if len(e.Secret) >= minSecretLen && strings.Contains(s, e.Secret) {
		s = strings.ReplaceAll(s, e.Secret, "[redacted]")
	}
	if u, err := url.Parse(e.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" && strings.Contains(s, pw) {
			s = strings.ReplaceAll(s, pw, "xxxxx")
		}
	}
	return s
}

// maxMessage bounds the server's message in an error.
const maxMessage = 1 << 10

// printable returns a server's message fit for a log line: control
// characters (newlines, terminal escapes) become spaces, and it is cut to
// maxMessage bytes.
func printable(s string) string {
	if len(s) > maxMessage {
		s = strings.ToValidUTF8(s[:maxMessage], "") + "..."
	}
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// redactErr returns err with the key removed from its message. A
// *url.Error, which quotes the request URL, is rebuilt with the URL
// redacted, so no error in the chain shows the key and errors.Is and
// errors.As still reach the net error inside. Any other error is wrapped.
func (e *Endpoint) redactErr(err error) error {
	if len(e.Secret) < minSecretLen || !strings.Contains(err.Error(), e.Secret) {
		return err
	}
	if ue, ok := err.(*url.Error); ok {
		return &url.Error{Op: ue.Op, URL: e.Redact(ue.URL), Err: e.redactErr(ue.Err)}
	}
	return &redactedError{msg: e.Redact(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// A Reply is a 2xx response to [Endpoint.Call], its body not read yet. Its
// methods build the errors of what the provider reads from it, so that
// each carries the status, the model, the request id and the number of
// attempts.
type Reply struct {
	*http.Response
	// Attempts is how many requests were sent, retries included: the
	// chat.Response's Attempts.
	Attempts int
	// RequestID is the id the server gave the request, or "".
	RequestID string

	e     *Endpoint
	model string
}

// Limit is the response limit in bytes (negative: none): the most a
// stream may assemble.
func (r *Reply) Limit() int64 { return r.e.Limit }

// ReadAll reads the body whole, up to the response limit; a body whose
// JSON values would take more than [ValueLimit] to decode is refused too.
// A larger body, or one cut off, is a malformed response; a cancelled or expired ctx is
// reported as ctx.Err().
func (r *Reply) ReadAll(ctx context.Context) ([]byte, error) {
	data, err := ReadBody(r.Response, r.e.Limit)
	if err != nil {
		return nil, r.ReadError(ctx, "response body", err)
	}
	// A body too short to pass the limit, were every byte an element, is
	// not counted: most replies.
	if limit := ValueLimit(r.e.Limit); limit >= 0 && int64(len(data))*elementCost > limit && ValueCost(data) > limit {
		return nil, r.BadResponse((&ValuesError{What: "response body", Limit: limit}).Error())
	}
	return data, nil
}

// Lines returns a reader of the body's lines, for a stream. A line longer
// than [LineLimit], or whose JSON values would take more than [ValueLimit]
// to decode, is an error. A JSON reply (application/json), a server's
// whole answer to a stream, is bounded as [Reply.ReadAll] bounds a body:
// a line of it longer than the limit is a *[TooLargeError].
func (r *Reply) Lines() *LineReader {
	lr := NewLineReader(r.Body)
	lr.limit, lr.maxLine = ValueLimit(r.e.Limit), LineLimit(r.e.Limit)
	if r.isJSON() && r.e.Limit >= 0 && r.e.Limit < int64(lr.maxLine) {
		lr.maxLine = int(r.e.Limit)
		lr.tooLong = &TooLargeError{What: "response body", Limit: r.e.Limit}
	}
	return lr
}

// MaxMetadata bounds each string of a reply's metadata that a provider
// keeps outside the limit's count: its model, finish reason, role. Real
// ones are a few dozen bytes; a longer one makes the reply malformed
// ([Reply.Metadata]) rather than be kept, a line long.
const MaxMetadata = 1 << 10

// Metadata returns a malformed response naming field when value, a
// metadata string of the reply (its model, finish reason or role), is
// longer than [MaxMetadata]; else nil.
func (r *Reply) Metadata(field, value string) error {
	if len(value) <= MaxMetadata {
		return nil
	}
	return r.BadResponse(field + " is longer than " + limitSize(MaxMetadata))
}

// Error returns a *chat.ProviderError of this reply that wraps err (a
// chat sentinel) with the message msg, the key removed.
func (r *Reply) Error(err error, msg string) *chat.ProviderError {
	return &chat.ProviderError{
		Provider:   r.e.Provider,
		StatusCode: r.StatusCode,
		Model:      r.model,
		Message:    printable(r.e.Redact(msg)),
		Attempts:   r.Attempts,
		RequestID:  r.RequestID,
		Err:        err,
	}
}

// BadResponse is a malformed reply: an error wrapping chat.ErrBadResponse
// that says what was wrong with it in msg.
func (r *Reply) BadResponse(msg string) *chat.ProviderError {
	return r.Error(chat.ErrBadResponse, msg)
}

// TooLarge is the error of a stream whose reply, what (e.g. "streamed
// reply"), grew past the response limit.
func (r *Reply) TooLarge(what string) *chat.ProviderError {
	return r.BadResponse((&TooLargeError{What: what, Limit: r.e.Limit}).Error())
}

// ReadError reports err, a failure to read what ("response body",
// "stream") from the body: a reply past the limit or a line past
// [LineLimit] is a malformed response, and so is a body cut off, whose read
// error stays in the chain (errors.Is(err, io.ErrUnexpectedEOF) holds). A
// cancelled or expired ctx is reported as ctx.Err().
func (r *Reply) ReadError(ctx context.Context, what string, err error) *chat.ProviderError {
	var tl *TooLargeError
	var ve *ValuesError
	switch {
	case ctx.Err() != nil:
		return r.Error(ctx.Err(), "")
	case errors.As(err, &tl):
		return r.BadResponse(tl.Error())
	case errors.As(err, &ve):
		return r.BadResponse(ve.Error())
	case errors.Is(err, ErrTooLong):
		return r.BadResponse(fmt.Sprintf("%s line longer than %s", what, limitSize(int64(LineLimit(r.e.Limit)))))
	}
	return r.Error(fmt.Errorf("%w: %s cut off: %w", chat.ErrBadResponse, what, r.e.redactErr(err)), "")
}
