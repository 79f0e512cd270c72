// Package retry sends a request to a model server again when it failed in a
// way that may pass: every provider uses it, through httpline.Endpoint, so
// they retry the same failures with the same waits.
//
// # What is retried
//
// A response with status 408 (request timeout), 409 (conflict), 429 (rate
// limited) or any 5xx, and a connection error before any response byte:
// the server could not be reached (connection refused, or any other failure
// to dial), or closed or reset the connection before the status line came.
// Nothing else: other 4xx will fail the same way again, and so will a 429
// that says the account's quota is used up (chat.ErrQuotaExceeded); a timeout after
// the request was sent (the http.Client's Timeout, a response header
// timeout) is not retried, since the server may be generating the answer;
// a certificate error or a host that does not exist will not heal; and a
// cancelled or expired context ends the call.
//
// A server can overrule these rules for one response: OpenAI and Anthropic
// send x-should-retry: true or false, and their official SDKs follow it
// before anything else. The provider's send step reports such a response
// as a [ServerSaid], and Do follows it, still within MaxRetries.
//
// # Where the retry sits
//
// A provider retries its send step, which httpline.Endpoint runs for all
// of them: building the HTTP request, sending it with the configured
// http.Client and, for a status other than 2xx, reading the error body
// into a *chat.ProviderError. The step ends with a 2xx
// response whose body nothing has read yet, so no byte of an answer, and
// no streamed delta, has reached the caller when the decision to retry is
// made; once the step succeeded, nothing is retried, whatever happens to
// the body (a stream cut after its first delta ends in an error after one
// attempt). The provider's own errors carry the status, the server's
// message and Retry-After, which are what the decision needs.
//
// Package providers/openai sends its requests with net/http and decodes
// them itself rather than through go-openai's Client (see its package
// documentation), so the same step is retried there. Retrying in an
// http.RoundTripper instead would have kept the same guarantee, since a
// round trip also ends with the headers, but it would need to wrap the
// user's Config.HTTPClient, replay request bodies itself, parse statuses
// twice, and it could not tell the error how many attempts were made.
//
// # Waits
//
// The wait before retry n is BaseDelay·2^(n-1), at most MaxDelay, less a
// random jitter of up to a quarter, so that clients that failed together do
// not come back together: 0.5 s, 1 s, 2 s, 4 s, then 8 s. A server's
// Retry-After (or OpenAI's retry-after-ms), as the provider read it into
// ProviderError.RetryAfter, replaces that wait, up to MaxRetryAfter. When
// the context's deadline comes before the wait is over, the call ends at
// once with the last error instead of waiting in vain. Cancelling the
// context ends a wait at once: the error then wraps both ctx.Err() and the
// last attempt's cause.
package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/toolcall-go/toolcall/chat"
)

// The defaults of a [Policy].
const (
	// DefaultMaxRetries is how many times a request is retried when a
	// provider's Config.MaxRetries is 0: three attempts in all.
	DefaultMaxRetries = 2
	// BaseDelay is the wait before the first retry, without Retry-After.
	BaseDelay = 500 * time.Millisecond
	// MaxDelay bounds the exponential wait.
	MaxDelay = 8 * time.Second
	// MaxRetryAfter bounds the wait a server asks for: a longer
	// Retry-After is waited for this long.
	MaxRetryAfter = 30 * time.Second
)

// A Policy retries a provider's send step. The zero value retries
// DefaultMaxRetries times with real waits.
type Policy struct {
	// MaxRetries is as in the providers' Config: 0 means
	// DefaultMaxRetries, a negative value turns retries off.
	MaxRetries int
	// Sleep waits d, or until ctx is done, when it returns ctx.Err().
	// Nil means a timer. Tests replace it so that they never wait.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1) that takes up to a quarter off an
	// exponential wait. Nil means math/rand/v2's Float64.
	Jitter func() float64
}

// Retries is how many retries p allows after the first attempt.
func (p *Policy) Retries() int {
	switch {
	case p.MaxRetries < 0:
		return 0
	case p.MaxRetries == 0:
		return DefaultMaxRetries
	}
	return p.MaxRetries
}

// Do calls attempt until it returns nil or an error that is not retried, or
// the retries run out. attempt returns nil or the provider's
// *chat.ProviderError; any other error ends the call. Do returns the number
// of calls made and the last error, or, when ctx is done during a wait, a
// *chat.ProviderError like the last one whose Err wraps ctx.Err() and the
// last cause.
func (p *Policy) Do(ctx context.Context, attempt func() error) (int, error) {
	retries := p.Retries()
	for n := 1; ; n++ {
		err := attempt()
		if err == nil {
			return n, nil
		}
		again := false
		var said *ServerSaid
		var pe *chat.ProviderError
		switch {
		case errors.As(err, &said):
			// A used-up quota is final, whatever the header says.
			pe, again = said.Err, said.Retry && !errors.Is(said.Err.Err, chat.ErrQuotaExceeded)
			err = pe
		case errors.As(err, &pe):
			again = Retryable(pe)
		}
		if !again || n > retries || ctx.Err() != nil {
			return n, err
		}
		wait := p.delay(n, pe.RetryAfter)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return n, err // the deadline would end the wait: report the failure itself
		}
		if werr := p.sleep(ctx, wait); werr != nil {
			cut := *pe
			cut.Err = &waitError{ctx: werr, last: pe.Err}
			return n, &cut
		}
	}
}

// A ServerSaid is the error of an attempt whose response said whether to
// send the request again (the x-should-retry header). Do follows Retry
// instead of [Retryable], and returns Err, never the ServerSaid.
type ServerSaid struct {
	Err   *chat.ProviderError
	Retry bool
}

// Error returns the message of the attempt's error.
func (s *ServerSaid) Error() string { return s.Err.Error() }

// Unwrap returns the attempt's error.
func (s *ServerSaid) Unwrap() error { return s.Err }

// Retryable reports whether a request that failed with pe may be sent
// again: a status of 408, 409, 429 or 5xx, or, with no status, a
// connection error before any response byte; never a used-up quota.
func Retryable(pe *chat.ProviderError) bool {
	switch s := pe.StatusCode; {
	case errors.Is(pe.Err, chat.ErrQuotaExceeded):
		return false
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests:
		return true
	case s >= 500 && s <= 599:
		return true
	case s != 0:
		return false
	}
	return connectionError(pe.Err)
}

// connectionError reports whether err, returned by http.Client.Do, is a
// failure to reach the server or a connection closed before the response.
func connectionError(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	// A *url.Error is a net.Error whatever its cause: look inside.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var (
		certErr *tls.CertificateVerificationError
		authErr x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invalid x509.CertificateInvalidError
		dnsErr  *net.DNSError
		opErr   *net.OpError
		netErr  net.Error
		badCert = errors.As(err, &certErr) || errors.As(err, &authErr) || errors.As(err, &hostErr) || errors.As(err, &invalid)
	)
	switch {
	case badCert:
		return false
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return true // the request never left: retrying is always safe
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &netErr):
		return !netErr.Timeout()
	}
	// net/http reports a connection the server closed as the request went
	// out with an error value it does not export.
	return strings.Contains(err.Error(), "server closed idle connection")
}

// delay is the wait before retry n (from 1): the server's Retry-After
// when it gave one, up to MaxRetryAfter, else the exponential wait with
// jitter.
func (p *Policy) delay(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, MaxRetryAfter)
	}
	d := BaseDelay
	for i := 1; i < n && d < MaxDelay; i++ {
		d *= 2
	}
	d = min(d, MaxDelay)
	j := rand.Float64
	if p.Jitter != nil {
		j = p.Jitter
	}
	return d - time.Duration(j()*float64(d)/4)
}

func (p *Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx is done, when it returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// A waitError is a context that ended during the wait before a retry. It
// wraps both the context's error and the last attempt's cause.
type waitError struct {
	ctx, last error
}

func (e *waitError) Error() string {
	if e.last == nil {
		return e.ctx.Error() + " while waiting to retry"
	}
	return e.ctx.Error() + " while waiting to retry after " + strings.TrimPrefix(e.last.Error(), "chat: ")
}

func (e *waitError) Unwrap() []error {
	if e.last == nil {
		return []error{e.ctx}
	}
	return []error{e.ctx, e.last}
}

// Count records how many requests a call made: in the reply's Attempts, or
// in the error's when it is a *chat.ProviderError that does not say yet.
// It returns resp and err.
func Count(resp *chat.Response, err error, attempts int) (*chat.Response, error) {
	if resp != nil {
		resp.Attempts = attempts
	}
	var pe *chat.ProviderError
	if err != nil && errors.As(err, &pe) && pe.Attempts == 0 {
		pe.Attempts = attempts
	}
	return resp, err
}
