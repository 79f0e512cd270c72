package openairesponses

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

const providerName = "openairesponses"

// apiName names the API in errors about what a server sent.
const apiName = "Responses API"

// parseError reads an error body into pe (see httpline.Endpoint.ParseError):
// the server's message, and what its code, a 400 or a 404 means.
func (m *Model) parseError(pe *chat.ProviderError, resp *http.Response, body []byte) {
	msg := serverMessage(body)
	pe.Message = msg
	switch code := bodyCode(body); {
	case code == "model_not_found" && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound):
		// OpenAI answers an unknown model with 400 here, not 404; a 403
		// with this code is a project without access, which stays
		// ErrUnauthorized.
		pe.Err = chat.ErrModelNotFound
	case code == "insufficient_quota":
		// A 429 that waiting does not cure: the account has no credit.
		pe.Err = chat.ErrQuotaExceeded
	case resp.StatusCode == http.StatusBadRequest && noToolPhrases.In(msg):
		pe.Err = chat.ErrToolsNotSupported
	case resp.StatusCode == http.StatusNotFound && !httpline.NamesModel(msg):
		// Servers say in JSON that a model is missing; any other 404 (a
		// web server's page, {"detail":"Not Found"}) is a wrong URL.
		pe.Err = chat.ErrBadRequest
		pe.Message = "no /responses at " + m.base + m.v1Hint()
	}
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
func inBandError(rep *httpline.Reply, code, msg string) error {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		msg = "the server reported an error without a message"
		if code != "" {
			msg += " (code " + code + ")"
		}
	}
	return rep.Error(codeError(code, msg), msg)
}

// failedError reports a response whose status is "failed", with the
// server's message.
func failedError(rep *httpline.Reply, e *apiError) error {
	if e == nil {
		return inBandError(rep, "", "response failed")
	}
	return inBandError(rep, e.code(), e.Message)
}

// bodyCode returns the code of an error body, {"error": {"code": ...}}, else
// its type; "" when it has neither.
func bodyCode(body []byte) string {
	var shape struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &shape) != nil {
		return ""
	}
	if e := errorOf(shape.Error); e != nil {
		return e.code()
	}
	return ""
}

// code returns the error's code as text, else its type ("" when none).
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
// [chat.ErrRateLimited] for "rate_limit_exceeded", [chat.ErrQuotaExceeded]
// for "insufficient_quota", [chat.ErrModelNotFound] for
// "model_not_found", [chat.ErrBadRequest] for codes naming an invalid
// input ("invalid_prompt", "invalid_image", ...),
// [chat.ErrToolsNotSupported] when the message says the model takes no
// tools, [chat.ErrServer] for the rest.
func codeError(code, msg string) error {
	switch {
	case noToolPhrases.In(msg):
		return chat.ErrToolsNotSupported
	case code == "rate_limit_exceeded":
		return chat.ErrRateLimited
	case code == "insufficient_quota":
		return chat.ErrQuotaExceeded
	case code == "model_not_found":
		return chat.ErrModelNotFound
	case strings.HasPrefix(code, "invalid_"):
		return chat.ErrBadRequest
	}
	return chat.ErrServer
}

// noToolPhrases are what servers say when a model or server cannot take
// tools (Ollama: "... does not support tools"; llama.cpp's server without
// --jinja).
var noToolPhrases = wire.Phrases{
	"does not support tools",
	"does not support tool use",
	"does not support tool calling",
	"does not support function calling",
	"tools are not supported",
	"tool calling is not supported",
	"function calling is not supported",
	"requires --jinja",
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
