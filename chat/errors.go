package chat

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors that providers return, wrapped in a [*ProviderError].
var (
	ErrUnauthorized  = errors.New("chat: unauthorized")
	ErrModelNotFound = errors.New("chat: model not found")
	ErrRateLimited   = errors.New("chat: rate limited")
	// ErrQuotaExceeded: the account's quota or credit is used up
	// (OpenAI's insufficient_quota, Anthropic's billing_error). Waiting
	// does not help, so it is not retried; it is not ErrRateLimited.
	ErrQuotaExceeded     = errors.New("chat: quota exceeded")
	ErrServer            = errors.New("chat: server error")
	ErrBadRequest        = errors.New("chat: bad request")
	ErrToolsNotSupported = errors.New("chat: model does not support tools")
	ErrBadResponse       = errors.New("chat: malformed response")
)

// ErrStreamStopped: the consumer of a stream stopped reading.
var ErrStreamStopped = errors.New("chat: stream stopped by consumer")

// A ProviderError is an error a model server returned or a failure to reach
// it. It wraps one of [ErrUnauthorized], [ErrModelNotFound],
// [ErrRateLimited], [ErrQuotaExceeded], [ErrServer], [ErrBadRequest], [ErrToolsNotSupported] or
// [ErrBadResponse] when one applies, and the transport error otherwise.
// It never contains the API key.
type ProviderError struct {
	Provider   string // "openai", "ollama"
	StatusCode int    // HTTP status; 0 when no response was received
	Message    string // the server's message, without the raw body
	Model      string
	// RetryAfter is the wait the server asked for (HTTP Retry-After), or 0.
	RetryAfter time.Duration
	// Attempts is how many requests were made, retries included; the
	// other fields describe the last one. It is 0 when no request was
	// sent, as for a request that cannot be built.
	Attempts int
	// RequestID is the id the server gave the request (a request-id or
	// x-request-id header), for its support; empty when it gave none.
	RequestID string
	Err       error
}

// Error reads "provider: HTTP status: model: cause: message (retry after d,
// n attempts)", leaving out the parts that are unknown; the number of
// attempts shows when there was more than one.
func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.StatusCode)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, ": model %q", e.Model)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "chat: "))
	}
	if e.Message != "" && (e.Err == nil || !strings.Contains(e.Err.Error(), e.Message)) {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	switch {
	case e.RetryAfter > 0 && e.Attempts > 1:
		fmt.Fprintf(&b, " (retry after %s, %d attempts)", e.RetryAfter, e.Attempts)
	case e.RetryAfter > 0:
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	case e.Attempts > 1:
		fmt.Fprintf(&b, " (%d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the sentinel or the transport error.
func (e *ProviderError) Unwrap() error { return e.Err }
