package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/wire"
)

const providerName = "gemini"

// apiName names the API in errors about what a server sent.
const apiName = "Gemini API"

// statusErrors maps the status of a google.rpc error body to the chat
// sentinels. A status not here is judged by the HTTP status.
var statusErrors = map[string]error{
	"INVALID_ARGUMENT":    chat.ErrBadRequest,    // 400
	"FAILED_PRECONDITION": chat.ErrBadRequest,    // 400: e.g. no free tier in the caller's country
	"OUT_OF_RANGE":        chat.ErrBadRequest,    // 400
	"UNAUTHENTICATED":     chat.ErrUnauthorized,  // 401
	"PERMISSION_DENIED":   chat.ErrUnauthorized,  // 403
	"NOT_FOUND":           chat.ErrModelNotFound, // 404
	"RESOURCE_EXHAUSTED":  chat.ErrRateLimited,   // 429
	"INTERNAL":            chat.ErrServer,        // 500
	"UNKNOWN":             chat.ErrServer,        // 500
	"DATA_LOSS":           chat.ErrServer,        // 500
	"UNAVAILABLE":         chat.ErrServer,        // 503
	"DEADLINE_EXCEEDED":   chat.ErrServer,        // 504
}

// apiError is the error of a google.rpc status body,
// {"error":{"code":...,"message":...,"status":...,"details":[...]}}, with
// what its details say: the ErrorInfo's reason, the RetryInfo's
// retryDelay, and whether a QuotaFailure names a daily quota.
type apiError struct {
	Status, Message, Reason string
	RetryDelay              time.Duration
	DailyQuota              bool
}

// errorBody returns the error object of a body that is a list of errors,
// as some of the API's replies are ([{"error":{...}}]).
func errorBody(data []byte) ([]byte, bool) {
	var list []json.RawMessage
	if json.Unmarshal(data, &list) != nil || len(list) == 0 {
		return nil, false
	}
	var g generateResponse
	if json.Unmarshal(list[0], &g) != nil || !g.hasError() {
		return nil, false
	}
	return list[0], true
}

func parseError(body []byte) apiError {
	if e, ok := errorBody(body); ok {
		body = e
	}
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &shape) != nil {
		return apiError{}
	}
	var e apiError
	if t := bytes.TrimSpace(shape.Error); len(t) > 0 && t[0] == '{' {
		var inner struct {
			Message string            `json:"message"`
			Status  string            `json:"status"`
			Details []json.RawMessage `json:"details"`
		}
		if json.Unmarshal(t, &inner) == nil {
			e.Status, e.Message = inner.Status, strings.TrimSpace(inner.Message)
			for _, d := range inner.Details {
				e.detail(d)
			}
		}
	}
	if e.Message == "" {
		e.Message = httpline.FirstString(shape.Error, shape.Message)
	}
	return e
}

// detail reads one of an error's details.
func (e *apiError) detail(raw json.RawMessage) {
	var d struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
		Violations []struct {
			QuotaID string `json:"quotaId"`
		} `json:"violations"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return
	}
	switch {
	case strings.HasSuffix(d.Type, "google.rpc.ErrorInfo"):
		e.Reason = d.Reason
	case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
		e.RetryDelay = duration(d.RetryDelay)
	case strings.HasSuffix(d.Type, "google.rpc.QuotaFailure"):
		for _, v := range d.Violations {
			if strings.Contains(v.QuotaID, "PerDay") {
				e.DailyQuota = true
			}
		}
	}
}

// duration reads a google.protobuf.Duration as JSON writes it: seconds
// with an "s", such as "37s" or "0.5s". Anything else, negative or absurd
// is 0.
func duration(s string) time.Duration {
	secs, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "s"), 64)
	if err != nil || !strings.HasSuffix(s, "s") || secs <= 0 || secs > 1e9 {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

// sentinel returns the chat sentinel of e, or nil when its status is not
// known: an invalid key is a 400 INVALID_ARGUMENT whose ErrorInfo says
// API_KEY_INVALID, and a daily quota used up does not come back within a
// retry's wait.
func (e *apiError) sentinel() error {
	switch {
	case e.Reason == "API_KEY_INVALID":
		return chat.ErrUnauthorized
	case noToolPhrases.In(e.Message):
		return chat.ErrToolsNotSupported
	case e.Status == "RESOURCE_EXHAUSTED" && e.DailyQuota:
		return chat.ErrQuotaExceeded
	}
	return statusErrors[e.Status]
}

// parseStatusError reads the error body of a failed status into pe (see
// httpline.Endpoint.ParseError): the message, the sentinel of the error's
// status and details when they are known, and the RetryInfo's delay when
// no header gave one.
func parseStatusError(pe *chat.ProviderError, resp *http.Response, body []byte) {
	ae := parseError(body)
	pe.Message = ae.Message
	if err := ae.sentinel(); err != nil {
		pe.Err = err
	}
	if pe.RetryAfter == 0 {
		pe.RetryAfter = ae.RetryDelay
	}
	if errors.Is(pe.Err, chat.ErrModelNotFound) && !httpline.NamesModel(ae.Message) {
		// A 404 that names no model (a web server's page, a bare "Not
		// Found") is about the path: the URL is wrong.
		pe.Err = chat.ErrBadRequest
		where := "the BaseURL"
		if resp.Request != nil && resp.Request.URL != nil {
			where = resp.Request.URL.Redacted()
		}
		pe.Message = httpline.NoAPIAt("Gemini API", where, ae.Message, DefaultBaseURL)
	}
}

// inBandError reports an error received with a 2xx status: an error body,
// or a stream's chunk that is one. Its status gives the sentinel; an
// unknown status is a server error.
func inBandError(r *httpline.Reply, raw []byte) error {
	ae := parseError(raw)
	msg := ae.Message
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	err := ae.sentinel()
	if err == nil {
		err = chat.ErrServer
	}
	pe := r.Error(err, msg)
	pe.RetryAfter = ae.RetryDelay
	return pe
}

// noToolPhrases are what the API says when a model cannot take tools
// (Gemma models: "Function calling is not enabled for models/gemma-3-27b-it").
var noToolPhrases = wire.Phrases{
	"function calling is not enabled",
	"does not support function calling",
	"tool use is not supported",
}
