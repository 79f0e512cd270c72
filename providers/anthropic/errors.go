package anthropic

import (
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

const providerName = "anthropic"

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// errorTypes maps the API's error types to the chat sentinels. The API
// documents that types may be added: an unknown one is judged by the
// HTTP status.
var errorTypes = map[string]error{
	"invalid_request_error": chat.ErrBadRequest,    // 400
	"authentication_error":  chat.ErrUnauthorized,  // 401
	"billing_error":         chat.ErrUnauthorized,  // 402: the account may not use the API
	"permission_error":      chat.ErrUnauthorized,  // 403
	"not_found_error":       chat.ErrModelNotFound, // 404
	"request_too_large":     chat.ErrBadRequest,    // 413
	"rate_limit_error":      chat.ErrRateLimited,   // 429
	"api_error":             chat.ErrServer,        // 500
	"timeout_error":         chat.ErrServer,        // 504
	"overloaded_error":      chat.ErrServer,        // 529
}

// apiError is the error of an error body,
// {"type":"error","error":{"type":...,"message":...},"request_id":...}.
// Compatible servers send some of it: {"error":{"message":...}},
// {"error":"..."} or {"message":...}.
type apiError struct {
	Type      string
	Message   string
	RequestID string
}

func parseError(body []byte) apiError {
	var shape struct {
		Error     json.RawMessage `json:"error"`
		Message   json.RawMessage `json:"message"`
		RequestID string          `json:"request_id"`
	}
	if json.Unmarshal(body, &shape) != nil {
		return apiError{}
	}
	e := apiError{RequestID: shape.RequestID}
	if len(shape.Error) > 0 && shape.Error[0] == '{' {
		var inner struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(shape.Error, &inner) == nil {
			e.Type, e.Message = inner.Type, strings.TrimSpace(inner.Message)
		}
	}
	for _, raw := range []json.RawMessage{shape.Error, shape.Message} {
		var s string
		if e.Message == "" && len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
			e.Message = strings.TrimSpace(s)
		}
	}
	return e
}

// requestID returns the id the server gave the request.
func requestID(h http.Header) string {
	if id := h.Get("Request-Id"); id != "" {
		return id
	}
	return h.Get("X-Request-Id")
}

// withRequestID sets the request id of err, when it is a
// *chat.ProviderError, to id from the response's header, which wins over
// an id in the body; it returns err.
func withRequestID(err error, id string) error {
	var pe *chat.ProviderError
	if id != "" && errors.As(err, &pe) {
		pe.RequestID = id
	}
	return err
}

// statusError turns a non-2xx response into a ProviderError carrying the
// server's message, never the raw body.
func (m *Model) statusError(resp *http.Response, model string) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	ae := parseError(data)
	msg := m.redact(ae.Message)
	pe := &chat.ProviderError{
		Provider:   providerName,
		StatusCode: resp.StatusCode,
		Model:      model,
		Message:    msg,
		RetryAfter: httpline.RetryAfter(resp.Header.Get("Retry-After"), time.Now()),
		RequestID:  requestID(resp.Header),
		Err:        errorTypes[ae.Type],
	}
	if pe.RequestID == "" {
		pe.RequestID = ae.RequestID
	}
	if pe.Err == nil {
		pe.Err = httpline.StatusError(resp.StatusCode)
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest && noToolSupport(msg):
		pe.Err = chat.ErrToolsNotSupported
	case resp.StatusCode == http.StatusNotFound && ae.Type != "not_found_error" && msg == "":
		// A web server's page, not the API's word on a model: the URL
		// is wrong. The page is not quoted.
		pe.Err = chat.ErrBadRequest
		pe.Message = "no /v1/messages at " + m.redact(m.base)
	case resp.StatusCode == http.StatusUnauthorized && m.key == "":
		pe.Message = strings.TrimPrefix(msg+"; no API key is set (Config.APIKey or ANTHROPIC_API_KEY)", "; ")
	case msg == "":
		pe.Message = http.StatusText(resp.StatusCode)
	}
	// A 1xx or 3xx the client did not follow is a bad response.
	if pe.Err == nil {
		pe.Err = chat.ErrBadResponse
	}
	return pe
}

// inBandError reports an error received with a 2xx status: an error body,
// or a stream's error event. Its type gives the sentinel; an unknown
// type is a server error.
func (m *Model) inBandError(model string, status int, raw []byte) error {
	ae := parseError(raw)
	msg := m.redact(ae.Message)
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	err := errorTypes[ae.Type]
	switch {
	case noToolSupport(msg):
		err = chat.ErrToolsNotSupported
	case err == nil:
		err = chat.ErrServer
	}
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Message: msg, RequestID: ae.RequestID, Err: err}
}

func (m *Model) badRequest(model, msg string) error {
	return &chat.ProviderError{Provider: providerName, Model: model, Err: chat.ErrBadRequest, Message: m.redact(msg)}
}

func (m *Model) badResponse(model string, status int, msg string) error {
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Message: m.redact(msg), Err: chat.ErrBadResponse}
}

// cutOff reports a body or stream that ended early: a malformed response
// whose cause is the read error.
func (m *Model) cutOff(model string, status int, what string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
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
// placeholders such as "ollama" that local servers accept, and replacing
// them would garble ordinary words in messages.
const minSecretLen = 8

// redact removes the API key from s: a server may echo the x-api-key
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

// noToolPhrases are what servers say when a model cannot take tools
// (Ollama: "... does not support tools").
var noToolPhrases = []string{
	"does not support tools",
	"does not support tool use",
	"tool use is not supported",
	"tools are not supported",
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

// decodeProblem describes why what (a response, a stream event) could not
// be decoded, without quoting the payload.
func decodeProblem(what string, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s is not valid JSON: %s (at byte %d)", what, syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s does not fit the Messages API format: field %q is a JSON %s", what, typ.Field, typ.Value)
	}
	return fmt.Sprintf("%s does not fit the Messages API format: %v", what, err)
}

// quote quotes a server's word for an error message, cut to 64 bytes.
func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strconv.Quote(s)
}
