package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
)

const providerName = "ollama"

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// statusError turns a non-2xx response into a ProviderError carrying the
// server's "error" message, never the raw body.
func (m *Model) statusError(resp *http.Response, model string) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := serverMessage(data)
	pe := &chat.ProviderError{
		Provider:   providerName,
		StatusCode: resp.StatusCode,
		Model:      model,
		Message:    msg,
		RetryAfter: httpline.RetryAfter(resp.Header.Get("Retry-After"), time.Now()),
		Err:        httpline.StatusError(resp.StatusCode),
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest && supportsNoTools(msg):
		pe.Err = chat.ErrToolsNotSupported
		if !strings.Contains(msg, model) {
			pe.Message = fmt.Sprintf("%s: %s", model, msg)
		}
	case resp.StatusCode == http.StatusNotFound && httpline.NamesModel(msg):
		pe.Message = fmt.Sprintf("%s; download it with `ollama pull %s`", msg, model)
	case resp.StatusCode == http.StatusNotFound:
		// Ollama always explains a missing model; a bare 404 is a wrong URL.
		pe.Err = chat.ErrBadRequest
		pe.Message = fmt.Sprintf("no /api/chat at %s; is BaseURL an Ollama server?", m.base)
		if strings.HasSuffix(m.base, "/v1") {
			pe.Message += " (for Ollama's OpenAI-compatible /v1, use package providers/openai)"
		}
	case msg == "":
		pe.Message = http.StatusText(resp.StatusCode)
	}
	if pe.Err == nil { // a 1xx or 3xx that the client did not follow
		pe.Err = chat.ErrBadResponse
	}
	return pe
}

// inBandError reports an {"error": ...} object received with a 2xx status,
// as Ollama sends when generation fails mid-stream.
func inBandError(model string, status int, msg string) error {
	err := chat.ErrServer
	if supportsNoTools(msg) {
		err = chat.ErrToolsNotSupported
	}
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Message: msg, Err: err}
}

func badResponse(model string, status int, msg string) error {
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Message: msg, Err: chat.ErrBadResponse}
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
		return badResponse(model, status, tl.Error())
	}
	return &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model,
		Err: fmt.Errorf("%w: %s cut off: %w", chat.ErrBadResponse, what, err)}
}

// transportError wraps a failure to send or read. A cancelled or expired
// ctx is reported as ctx.Err(), so errors.Is(err, context.Canceled) holds.
func (m *Model) transportError(ctx context.Context, model string, status int, err error) error {
	pe := &chat.ProviderError{Provider: providerName, StatusCode: status, Model: model, Err: err}
	if ctx != nil && ctx.Err() != nil {
		pe.Err = ctx.Err()
		return pe
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		pe.Message = fmt.Sprintf("cannot connect to Ollama at %s; is it running (ollama serve)?", m.base)
	}
	return pe
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
