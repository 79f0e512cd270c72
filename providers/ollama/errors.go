package ollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
)

const providerName = "ollama"

// parseError reads an error body into pe (see httpline.Endpoint.ParseError):
// the server's "error" message, and what a 400 or a 404 means.
func (m *Model) parseError(pe *chat.ProviderError, resp *http.Response, body []byte) {
	msg := serverMessage(body)
	pe.Message = msg
	switch {
	case resp.StatusCode == http.StatusBadRequest && supportsNoTools(msg):
		pe.Err = chat.ErrToolsNotSupported
		if !strings.Contains(msg, pe.Model) {
			pe.Message = fmt.Sprintf("%s: %s", pe.Model, msg)
		}
	case resp.StatusCode == http.StatusNotFound && httpline.NamesModel(msg):
		pe.Message = fmt.Sprintf("%s; download it with `ollama pull %s`", msg, pe.Model)
	case resp.StatusCode == http.StatusNotFound:
		// Ollama always explains a missing model; a bare 404 is a wrong URL.
		pe.Err = chat.ErrBadRequest
		pe.Message = fmt.Sprintf("no /api/chat at %s; is BaseURL an Ollama server?", m.base)
		if strings.HasSuffix(m.base, "/v1") {
			pe.Message += " (for Ollama's OpenAI-compatible /v1, use package providers/openai)"
		}
	}
}

// inBandError reports an {"error": ...} object received with a 2xx status,
// as Ollama sends when generation fails mid-stream.
func inBandError(rep *httpline.Reply, msg string) error {
	err := chat.ErrServer
	if supportsNoTools(msg) {
		err = chat.ErrToolsNotSupported
	}
	return rep.Error(err, msg)
}

func supportsNoTools(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "does not support tools")
}

// serverMessage returns the "error" field of an error body, or "".
func serverMessage(body []byte) string {
	var e struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	switch v := e.Error.(type) {
	case string:
		return strings.TrimSpace(v)
	case map[string]any: // OpenAI-style {"error": {"message": ...}} from a proxy
		if s, ok := v["message"].(string); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// jsonProblem describes a decoding error without quoting the payload.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %q: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value)
	}
	return err.Error()
}
