package openairesponses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
)

const providerName = "openairesponses"

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// statusError turns a non-2xx response into a ProviderError carrying the
// server's message, never the raw body.
func (m *Model) statusError(resp *http.Response, model string) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := m.redact(serverMessage(data))
	pe := &chat.ProviderError{
		Provider:   providerName,
		StatusCode: resp.StatusCode,
		Model:      model,
		Message:    msg,
		RetryAfter: retryAfter(resp.Header, time.Now()),
		Err:        httpline.StatusError(resp.StatusCode),
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest && noToolSupport(msg):
		pe.Err = chat.ErrToolsNotSupported
	case resp.StatusCode == http.StatusNotFound && !httpline.NamesModel(msg):
		// Servers say in JSON that a model is missing; any other 404 (a
		// web server's page, {"detail":"Not Found"}) is a wrong URL.
		pe.Err = chat.ErrBadRequest
		pe.Message = "no /responses at " + m.redact(m.base) + m.v1Hint()
	case resp.StatusCode == http.StatusUnauthorized && m.key == "":
		pe.Message = strings.TrimPrefix(msg+"; no API key is set (Config.APIKey or OPENAI_API_KEY)", "; ")
	case msg == "":
		pe.Message = http.StatusText(resp.StatusCode)
	}
	// A 1xx or 3xx the client did not follow is a bad response.
	if pe.Err == nil {
		pe.Err = chat.ErrBadResponse
	}
	return pe
}

// v1Hint is the advice added to a 404 when BaseURL does not end in /v1,
// where servers serve /responses; "" when it does.
func (m *Model) v1Hint() string {
	u, err := url.Parse(m.base)
	if err == nil && strings.HasSuffix(u.Path, "/v1") {
		return ""
	}
	return "; BaseURL usually ends in /v1"
}

// inBandError reports an error received with a 2xx status: in a reply
// body, or as a stream's error event. code is the error's code, if any.
func (m *Model) inBandError(model string, status int, code, msg string) error {
	msg = m.redact(strings.TrimSpace(msg))
	if msg == "" {
		msg = "the server reported an error without a message"
		if code != "" {
			msg += " (code " + code + ")"
		}
	}
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Message: msg, Err: codeError(code, msg)}
}

// failedError reports a response whose status is "failed", with the
// server's message.
func (m *Model) failedError(model string, status int, e *apiError) error {
	if e == nil {
		return m.inBandError(model, status, "", "response failed")
	}
	return m.inBandError(model, status, e.code(), e.Message)
}

// code returns the error's code as text ("" when none).
func (e *apiError) code() string {
	switch c := e.Code.(type) {
	case string:
		return c
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return e.Type
}

// codeError returns the sentinel of an error reported within a reply:
// [chat.ErrRateLimited] for "rate_limit_exceeded", [chat.ErrBadRequest]
// for codes naming an invalid input ("invalid_prompt", "invalid_image",
// ...), [chat.ErrToolsNotSupported] when the message says the model takes
// no tools, [chat.ErrServer] for the rest.
func codeError(code, msg string) error {
	switch {
	case noToolSupport(msg):
		return chat.ErrToolsNotSupported
	case code == "rate_limit_exceeded":
		return chat.ErrRateLimited
	case strings.HasPrefix(code, "invalid_"):
		return chat.ErrBadRequest
	}
	return chat.ErrServer
}

func (m *Model) badResponse(model string, status int, msg string) error {
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Message: m.redact(msg), Err: chat.ErrBadResponse}
}

// readError reports a failure to read the body of a 2xx response, what
// ("response body", "stream"): a reply larger than the limit, or one cut
// off, are malformed responses; the read error stays in the chain. A
// cancelled or expired ctx is reported as ctx.Err().
func (m *Model) readError(ctx context.Context, model string, status int, what string, err error) error {
	var tl *httpline.TooLargeError
	switch {
	case ctx.Err() != nil:
		return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Err: ctx.Err()}
	case errors.As(err, &tl):
		return m.badResponse(model, status, tl.Error())
	}
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model,
		Err: fmt.Errorf("%w: %s cut off: %w", chat.ErrBadResponse, what, m.redactErr(err))}
}

// transportError wraps a failure to send or read. A cancelled or expired
// ctx is reported as ctx.Err(), so errors.Is(err, context.Canceled) holds.
func (m *Model) transportError(ctx context.Context, model string, status int, err error) error {
	pe := &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Err: m.redactErr(err)}
	if ctx.Err() != nil {
		pe.Err = ctx.Err()
		return pe
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		pe.Message = "cannot connect to " + m.redact(m.base) + "; is the server running?"
	}
	return pe
}

// minSecretLen is the shortest key that is redacted. Shorter values are
// placeholders such as "ollama" or "none" that local servers accept, and
// replacing them would garble ordinary words in messages.
const minSecretLen = 8

// redact removes the API key from s: a server may echo the Authorization
// header, or a URL may hold a key, in an error message.
func (m *Model) redact(s string) string {
	if len(m.key) < minSecretLen || !strings.Contains(s, m.key) {
		return s
	}
	return strings.ReplaceAll(s, m.key, "[redacted]")
}

// redactErr returns err with the key removed from its message. A
// *url.Error, which quotes the request URL, is rebuilt with the URL
// redacted, so no error in the chain shows the key and errors.Is and
// errors.As still reach the net error inside. Any other error is wrapped.
func (m *Model) redactErr(err error) error {
	if len(m.key) < minSecretLen || !strings.Contains(err.Error(), m.key) {
		return err
	}
	if ue, ok := err.(*url.Error); ok {
		return &url.Error{Op: ue.Op, URL: m.redact(ue.URL), Err: m.redactErr(ue.Err)}
	}
	return &redactedError{msg: m.redact(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// noToolPhrases are what servers say when a model or server cannot take
// tools (Ollama: "... does not support tools"; llama.cpp's server without
// --jinja).
var noToolPhrases = []string{
	"does not support tools",
	"does not support tool use",
	"does not support tool calling",
	"does not support function calling",
	"tools are not supported",
	"tool calling is not supported",
	"function calling is not supported",
	"requires --jinja",
}

func noToolSupport(msg string) bool {
	msg = strings.ToLower(msg)
	for _, p := range noToolPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// serverMessage returns the message of an error body, or "": OpenAI's
// {"error": {"message": ...}}, and the shapes other servers use:
// {"error": "..."}, a bare {"message": ...}, FastAPI's {"detail": ...}.
func serverMessage(body []byte) string {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &shape) != nil {
		return ""
	}
	if len(shape.Error) > 0 && shape.Error[0] == '{' {
		var e struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(shape.Error, &e) == nil {
			if s := messageText(e.Message); s != "" {
				return s
			}
		}
	}
	for _, raw := range []json.RawMessage{shape.Error, shape.Message, shape.Detail} {
		if s := messageText(raw); s != "" {
			return s
		}
	}
	return ""
}

// messageText returns a JSON string, or a list's first string or "msg",
// or "".
func messageText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return ""
	}
	if json.Unmarshal(list[0], &s) == nil {
		return strings.TrimSpace(s)
	}
	var d struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(list[0], &d) == nil {
		return strings.TrimSpace(d.Msg)
	}
	return ""
}

// decodeProblem describes why what (a response, a stream event) could not
// be decoded, without quoting the payload.
func decodeProblem(what string, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s is not valid JSON: %s (at byte %d)", what, syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s does not fit the Responses API format: field %q is a JSON %s", what, typ.Field, typ.Value)
	}
	return fmt.Sprintf("%s does not fit the Responses API format: %v", what, err)
}

// retryAfter reads how long the server asks to wait: OpenAI's
// retry-after-ms, else the HTTP Retry-After header.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms < 1e12 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return httpline.RetryAfter(h.Get("Retry-After"), now)
}
