package retry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRetries(t *testing.T) {
	for max, want := range map[int]int{0: DefaultMaxRetries, -1: 0, -5: 0, 1: 1, 7: 7} {
		p := Policy{MaxRetries: max}
		assert.Equal(t, want, p.Retries(), "MaxRetries %d", max)
	}
}

// postErr is what http.Client.Do returns for a failed POST.
func postErr(err error) error {
	return &url.Error{Op: "Post", URL: "http://x/v1/chat/completions", Err: err}
}

func TestRetryable(t *testing.T) {
	for _, status := range []int{408, 409, 429, 500, 501, 502, 503, 504, 529, 599} {
		assert.True(t, Retryable(&chat.ProviderError{StatusCode: status}), "status %d", status)
	}
	for _, status := range []int{200, 302, 400, 401, 403, 404, 413, 422} {
		assert.False(t, Retryable(&chat.ProviderError{StatusCode: status}), "status %d", status)
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"refused", postErr(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true},
		{"dial timeout", postErr(&net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}), true},
		{"temporary DNS failure", postErr(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "server misbehaving", Name: "x", IsTemporary: true}}), true},
		{"no such host", postErr(&net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}), false},
		{"closed before the response", postErr(io.EOF), true},
		{"cut in the headers", postErr(io.ErrUnexpectedEOF), true},
		{"reset", postErr(fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", &net.OpError{Op: "read", Err: syscall.ECONNRESET})), true},
		{"server closed idle connection", postErr(errors.New("http: server closed idle connection")), true},
		{"read timeout", postErr(&net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}), false},
		{"client timeout", postErr(timeout{}), false},
		{"unknown authority", postErr(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), false},
		{"wrong host", postErr(x509.HostnameError{Host: "x"}), false},
		{"bad scheme", postErr(errors.New(`unsupported protocol scheme "ftp"`)), false},
		{"canceled", postErr(context.Canceled), false},
		{"deadline", context.DeadlineExceeded, false},
		{"invalid request", chat.ErrBadRequest, false},
		{"none", nil, false},
	} {
		assert.Equal(t, tc.want, Retryable(&chat.ProviderError{Err: tc.err}), tc.name)
	}
}

// timeout is http.Client's timeout error: a net.Error with Timeout true.
type timeout struct{}

func (timeout) Error() string {
	return "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
}
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return true }

func TestDelay(t *testing.T) {
	none := Policy{Jitter: func() float64 { return 0 }}
	var got []time.Duration
	for n := 1; n <= 7; n++ {
		got = append(got, none.delay(n, 0))
	}
	s := time.Second
	assert.Equal(t, []time.Duration{s / 2, s, 2 * s, 4 * s, 8 * s, 8 * s, 8 * s}, got)
	assert.Equal(t, MaxDelay, none.delay(1000, 0), "no overflow")

	half := Policy{Jitter: func() float64 { return 0.5 }}
	assert.Equal(t, 437500*time.Microsecond, half.delay(1, 0), "an eighth off")
	assert.Equal(t, 7*time.Second, half.delay(5, 0))

	// Random jitter stays within a quarter.
	var p Policy
	for n := 1; n <= 5; n++ {
		full := none.delay(n, 0)
		for range 100 {
			d := p.delay(n, 0)
			assert.True(t, d > full*3/4 && d <= full, "retry %d waits %s", n, d)
		}
	}

	// Retry-After, without jitter, up to MaxRetryAfter.
	assert.Equal(t, 3*time.Second, half.delay(1, 3*time.Second))
	assert.Equal(t, 100*time.Millisecond, half.delay(4, 100*time.Millisecond))
	assert.Equal(t, MaxRetryAfter, half.delay(1, time.Hour))
}

// attempts returns an attempt func that returns errs in turn, then nil.
func attempts(errs ...error) (func() error, *int) {
	n := 0
	return func() error {
		n++
		if n <= len(errs) {
			return errs[n-1]
		}
		return nil
	}, &n
}

func TestDo(t *testing.T) {
	unavailable := &chat.ProviderError{Provider: "p", StatusCode: 503, Err: chat.ErrServer}
	limited := &chat.ProviderError{Provider: "p", StatusCode: 429, RetryAfter: 2 * time.Second, Err: chat.ErrRateLimited}
	bad := &chat.ProviderError{Provider: "p", StatusCode: 400, Err: chat.ErrBadRequest}
	for _, tc := range []struct {
		name       string
		maxRetries int
		errs       []error
		wantN      int
		wantErr    error
		waits      []time.Duration
	}{
		{name: "success", wantN: 1},
		{name: "retried", errs: []error{unavailable, limited}, wantN: 3, waits: []time.Duration{time.Second / 2, 2 * time.Second}},
		{name: "exhausted", errs: []error{unavailable, unavailable, limited}, wantN: 3, wantErr: limited, waits: []time.Duration{time.Second / 2, time.Second}},
		{name: "not retried", errs: []error{bad}, wantN: 1, wantErr: bad},
		{name: "retried, then not", errs: []error{unavailable, bad}, wantN: 2, wantErr: bad, waits: []time.Duration{time.Second / 2}},
		{name: "other error", errs: []error{io.EOF}, wantN: 1, wantErr: io.EOF},
		{name: "off", maxRetries: -1, errs: []error{unavailable}, wantN: 1, wantErr: unavailable},
		{name: "wrapped", errs: []error{fmt.Errorf("x: %w", unavailable)}, wantN: 2, waits: []time.Duration{time.Second / 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var waits []time.Duration
			p := Policy{MaxRetries: tc.maxRetries, Jitter: func() float64 { return 0 },
				Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			attempt, calls := attempts(tc.errs...)
			n, err := p.Do(context.Background(), attempt)
			assert.Equal(t, tc.wantN, n)
			assert.Equal(t, tc.wantN, *calls)
			assert.Equal(t, tc.wantErr, err)
			assert.Equal(t, tc.waits, waits)
		})
	}
}

func TestDoDeadline(t *testing.T) {
	limited := &chat.ProviderError{StatusCode: 429, RetryAfter: 20 * time.Second, Err: chat.ErrRateLimited}
	p := Policy{Sleep: func(context.Context, time.Duration) error { t.Fatal("waited"); return nil }}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	attempt, _ := attempts(limited)
	n, err := p.Do(ctx, attempt)
	assert.Equal(t, 1, n)
	assert.Same(t, limited, err, "the failure itself, not the deadline")
}

func TestDoCancelledDuringWait(t *testing.T) {
	unavailable := &chat.ProviderError{Provider: "p", StatusCode: 503, Message: "busy", Err: chat.ErrServer}
	ctx, cancel := context.WithCancel(context.Background())
	p := Policy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}}
	attempt, calls := attempts(unavailable)
	n, err := p.Do(ctx, attempt)
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, *calls)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, chat.ErrServer)
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 503, pe.StatusCode)
	assert.Equal(t, "busy", pe.Message)
	assert.EqualError(t, err, "p: HTTP 503: context canceled while waiting to retry after server error: busy")
	assert.Equal(t, chat.ErrServer, unavailable.Err, "the attempt's error is not changed")

	// A context that ended during the attempt: no wait.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	p = Policy{Sleep: func(context.Context, time.Duration) error { t.Fatal("waited"); return nil }}
	attempt, _ = attempts(unavailable)
	n, err = p.Do(ctx, attempt)
	assert.Equal(t, 1, n)
	assert.Same(t, unavailable, err)
}

func TestSleep(t *testing.T) {
	assert.NoError(t, Sleep(context.Background(), 0))
	assert.NoError(t, Sleep(context.Background(), time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled, "returns when the context ends, not after the hour")
	ctx, cancel = context.WithCancel(context.Background())
	go cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled)
}

func TestCount(t *testing.T) {
	resp, err := Count(&chat.Response{}, nil, 2)
	assert.NoError(t, err)
	assert.Equal(t, 2, resp.Attempts)

	pe := &chat.ProviderError{StatusCode: 500}
	_, err = Count(nil, fmt.Errorf("wrapped: %w", pe), 3)
	assert.Equal(t, 3, pe.Attempts)
	assert.Error(t, err)

	set := &chat.ProviderError{Attempts: 1}
	_, _ = Count(nil, set, 3)
	assert.Equal(t, 1, set.Attempts, "an error that says is left alone")

	_, err = Count(nil, chat.ErrStreamStopped, 1)
	assert.Equal(t, chat.ErrStreamStopped, err)
}

// TestQuotaIsFinalWhateverTheServerSays: x-should-retry: true does not
// retry a used-up quota.
func TestQuotaIsFinalWhateverTheServerSays(t *testing.T) {
	p := Policy{Sleep: func(context.Context, time.Duration) error { return nil }}
	calls := 0
	n, err := p.Do(context.Background(), func() error {
		calls++
		return &ServerSaid{Err: &chat.ProviderError{StatusCode: 429, Err: chat.ErrQuotaExceeded}, Retry: true}
	})
	if n != 1 || calls != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
	if !errors.Is(err, chat.ErrQuotaExceeded) {
		t.Fatalf("error %v", err)
	}
}
