package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

const providerName = "openai"

// apiName names the API in errors about what a server sent.
const apiName = "Chat Completions"

// parseError reads an error body into pe (see httpline.Endpoint.ParseError):
// the server's message, and what a 400 or a 404 means.
func (m *Model) parseError(pe *chat.ProviderError, resp *http.Response, body []byte) {
	msg := serverMessage(body)
	pe.Message = msg
	code := errorCode(body)
	switch {
	case (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound) && code == "model_not_found":
		// OpenAI says so in the code, with 404 on Chat Completions and
		// 400 on the Responses API; a proxy may pass either on.
		pe.Err = chat.ErrModelNotFound
	case resp.StatusCode == http.StatusTooManyRequests && code == "insufficient_quota":
		// No credit left: waiting does not help, so it is no rate limit
		// and is not retried.
		pe.Err = chat.ErrQuotaExceeded
	case resp.StatusCode == http.StatusBadRequest && noToolPhrases.In(msg):
		pe.Err = chat.ErrToolsNotSupported
	case resp.StatusCode == http.StatusNotFound && len(bytes.TrimSpace(body)) == 0:
		// An empty 404 says neither what is missing nor why: it may be the
		// URL or the model, so it wraps no sentinel.
		pe.Err = nil
		pe.Message = "endpoint or model not found at " + endpointPath(m.ep.URL) + m.v1Hint()
	case resp.StatusCode == http.StatusNotFound && !httpline.NamesModel(msg):
		// Servers explain a missing model in JSON; a 404 page, or a
		// message that is not about a model, is a wrong URL.
		pe.Err = chat.ErrBadRequest
		pe.Message = "no /chat/completions at " + m.base + m.v1Hint()
	}
}

// v1Hint is the advice added to a 404 when BaseURL does not end in /v1,
// where OpenAI-compatible servers serve /chat/completions; "" when it does.
func (m *Model) v1Hint() string {
	if strings.HasSuffix(endpointPath(m.base), "/v1") {
		return ""
	}
	return "; BaseURL usually ends in /v1"
}

// endpointPath returns the path of a URL, e.g. "/v1/chat/completions",
// or the whole URL when it does not parse or has no path.
func endpointPath(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Path == "" {
		return rawURL
	}
	return u.Path
}

// inBandError reports an "error" object received with a 2xx status: in a
// reply body, or as an event in a stream.
func inBandError(rep *httpline.Reply, raw []byte) error {
	msg := serverMessage(raw)
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	err := chat.ErrServer
	if noToolPhrases.In(msg) {
		err = chat.ErrToolsNotSupported
	}
	return rep.Error(err, msg)
}

// noToolPhrases are what servers say when a model or server cannot take
// tools: Ollama's /v1 ("... does not support tools"), OpenAI's older
// models, vLLM started without a tool parser, llama.cpp's server without
// --jinja.
var noToolPhrases = wire.Phrases{
	"does not support tools",
	"does not support tool use",
	"does not support tool calling",
	"does not support function calling",
	"'tools' is not supported",
	"tools are not supported",
	"tool calling is not supported",
	"tool use is not supported",
	"function calling is not supported",
	"--enable-auto-tool-choice",
	"requires --jinja",
}

// serverMessage returns the message of an error body, or "". It reads
// OpenAI's {"error": {"message": ...}} with go-openai's APIError (which
// also takes a list of messages), and the shapes compatible servers use
// instead: {"error": "..."}, a bare {"message": ...} (also the payload of
// a stream's error event), and FastAPI's {"detail": ...}.
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
		var ae goopenai.APIError
		if json.Unmarshal(shape.Error, &ae) == nil && strings.TrimSpace(ae.Message) != "" {
			return strings.TrimSpace(ae.Message)
		}
	}
	for _, raw := range []json.RawMessage{shape.Error, shape.Message, shape.Detail} {
		if s := messageText(raw); s != "" {
			return s
		}
	}
	return ""
}

// errorCode returns the code of an OpenAI error body,
// {"error": {"code": "...", "type": "..."}}: the code when it is a string,
// else the type ("insufficient_quota" is both), else "".
func errorCode(body []byte) string {
	var shape struct {
		Error struct {
			Code json.RawMessage `json:"code"`
			Type json.RawMessage `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &shape) != nil {
		return ""
	}
	for _, raw := range []json.RawMessage{shape.Error.Code, shape.Error.Type} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// messageText returns a JSON string, or a detail list's first "msg", or "".
func messageText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var list []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return strings.TrimSpace(list[0].Msg)
	}
	return ""
}
