package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

const providerName = "anthropic"

// apiName names the API in errors about what a server sent.
const apiName = "Messages API"

// errorTypes maps the API's error types to the chat sentinels. The API
// documents that types may be added: an unknown one is judged by the
// HTTP status.
var errorTypes = map[string]error{
	"invalid_request_error": chat.ErrBadRequest,    // 400
	"authentication_error":  chat.ErrUnauthorized,  // 401
	"billing_error":         chat.ErrQuotaExceeded, // 402: no credit left
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
	if e.Message == "" {
		e.Message = httpline.FirstString(shape.Error, shape.Message)
	}
	return e
}

// parseError reads the error body of a failed status into pe (see
// httpline.Endpoint.ParseError): the message, the sentinel of the error's
// type when it is known, and the body's request_id when no header gave
// one.
func (m *Model) parseError(pe *chat.ProviderError, resp *http.Response, body []byte) {
	ae := parseError(body)
	pe.Message = ae.Message
	if err := errorTypes[ae.Type]; err != nil {
		pe.Err = err
	}
	if pe.RequestID == "" {
		pe.RequestID = ae.RequestID
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest && noToolPhrases.In(ae.Message):
		pe.Err = chat.ErrToolsNotSupported
	case noCreditPhrases.In(ae.Message):
		pe.Err = chat.ErrQuotaExceeded
	case errors.Is(pe.Err, chat.ErrModelNotFound) && !httpline.NamesModel(ae.Message):
		// A 404 that names no model ("Not Found", or a web server's page,
		// which is not quoted) is about the path: the URL is wrong.
		pe.Err = chat.ErrBadRequest
		pe.Message = httpline.NoAPIAt("Messages API", m.endpoint.URL, ae.Message, DefaultBaseURL)
	}
}

// inBandError reports an error received with a 2xx status: an error body,
// or a stream's error event. Its type gives the sentinel; an unknown
// type is a server error.
func inBandError(r *httpline.Reply, raw []byte) error {
	ae := parseError(raw)
	msg := ae.Message
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	err := errorTypes[ae.Type]
	switch {
	case noToolPhrases.In(msg):
		err = chat.ErrToolsNotSupported
	case noCreditPhrases.In(msg):
		err = chat.ErrQuotaExceeded
	case err == nil:
		err = chat.ErrServer
	}
	pe := r.Error(err, msg)
	if pe.RequestID == "" {
		pe.RequestID = ae.RequestID
	}
	return pe
}

// noToolPhrases are what servers say when a model cannot take tools
// (Ollama: "... does not support tools").
var noToolPhrases = wire.Phrases{
	"does not support tools",
	"does not support tool use",
	"tool use is not supported",
	"tools are not supported",
}

// noCreditPhrases are what the API says, with a 400
// invalid_request_error, when the account has no credit left.
var noCreditPhrases = wire.Phrases{
	"credit balance is too low",
}
