// Package httpline holds what both providers need to send a request and
// read an HTTP reply: the default HTTP client, bounded line reading for
// streams, the Retry-After header, and the error an HTTP status means.
package httpline

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolcall-go/toolcall/chat"
)

// MaxLine bounds one line of a stream, so a broken server cannot exhaust
// memory.
const MaxLine = 16 << 20

// ErrTooLong is returned for a line longer than MaxLine.
var ErrTooLong = errors.New("line too long")

// Read returns the next line, newline included; it is valid until the next
// read. At the end of the body it returns the unterminated rest with
// io.EOF; after any other read error the partial line is dropped, so a cut
// connection is not mistaken for a malformed line.
func Read(br *bufio.Reader) ([]byte, error) {
	var long []byte
	return readLine(br, &long)
}

// A LineReader reads the lines of a streamed body as [Read] does. A line
// longer than its read buffer is put together in one buffer it keeps for
// the next, so a stream of long lines does not allocate one per line.
type LineReader struct {
	br   *bufio.Reader
	long []byte
}

// NewLineReader returns a LineReader of body with a 64 KiB read buffer.
func NewLineReader(body io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(body, 64<<10)}
}

// Next returns the next line, as [Read] does; it is valid until the next
// call.
func (r *LineReader) Next() ([]byte, error) {
	return readLine(r.br, &r.long)
}

// readLine is Read. A line longer than br's buffer is put together in
// *long, which keeps the room it grew to.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	switch {
	case len(chunk) > MaxLine:
		return nil, ErrTooLong
	case err == nil || err == io.EOF:
		return chunk, err
	case err != bufio.ErrBufferFull:
		return nil, err
	}
	line := append((*long)[:0], chunk...)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			return nil, ErrTooLong
		}
		line = append(line, chunk...)
		*long = line
		switch err {
		case nil, io.EOF:
			return line, err
		case bufio.ErrBufferFull:
		default:
			return nil, err
		}
	}
}

// RetryAfter parses an HTTP Retry-After value: seconds (fractions allowed)
// or an HTTP date. Anything else, negative or absurd is 0.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e9 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// StatusError returns the sentinel that matches an HTTP status, or nil.
func StatusError(status int) error {
	switch {
	case status == 401 || status == 403:
		return chat.ErrUnauthorized
	case status == 404:
		return chat.ErrModelNotFound
	case status == 429:
		return chat.ErrRateLimited
	case status >= 500:
		return chat.ErrServer
	case status >= 400:
		return chat.ErrBadRequest
	}
	return nil
}

// NamesModel reports whether msg, the message of a 404, says that a model
// is missing rather than the path: servers that report a missing model say
// so ("The model `gpt-9` does not exist", `model "x" not found, try pulling
// it first`, "model: claude-x"); a wrong path gets a web server's page or
// a bare "Not Found". A 404 is a missing model only when it says so.
func NamesModel(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "model")
}

// MaxIdleConnsPerHost is how many idle connections [DefaultClient] keeps
// open to one server for the next requests. Go's default transport keeps 2,
// so that beyond 2 calls at a time most calls open a new connection (4,000
// calls 32 at a time opened 1,599 TCP connections to a loopback server).
const MaxIdleConnsPerHost = 100

// maxIdleConns bounds the idle connections to all servers together.
const maxIdleConns = 4 * MaxIdleConnsPerHost

// DefaultClient returns the client the providers use when Config.HTTPClient
// is nil, one for all models so that they share connections. Its transport
// is a clone of [http.DefaultTransport] (proxy from the environment, dial
// and TLS handshake timeouts) with ForceAttemptHTTP2, so that HTTP/2 is
// used where a TLS server offers it, and [MaxIdleConnsPerHost] idle
// connections kept per host. It sets no MaxConnsPerHost and no Timeout:
// any number of requests may be in flight, and contexts bound calls.
//
// A program that replaced http.DefaultTransport (a recorder or a mock)
// before or after the first call is served by its transport, as it was
// when the providers used http.DefaultClient.
var DefaultClient = sync.OnceValue(func() *http.Client {
	orig := http.DefaultTransport
	dt := &defaultTransport{orig: orig}
	if t, ok := orig.(*http.Transport); ok {
		dt.tuned = tune(t.Clone())
	}
	return &http.Client{Transport: dt}
})

// tune sets on t what DefaultClient's transport has and returns t:
// ForceAttemptHTTP2, MaxIdleConnsPerHost, and room for at least
// 4·MaxIdleConnsPerHost idle connections in all.
func tune(t *http.Transport) *http.Transport {
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	if t.MaxIdleConns != 0 { // 0 is no limit
		t.MaxIdleConns = max(t.MaxIdleConns, maxIdleConns)
	}
	return t
}

// A defaultTransport sends with the tuned clone of http.DefaultTransport,
// unless the program has replaced http.DefaultTransport since.
type defaultTransport struct {
	orig  http.RoundTripper
	tuned *http.Transport // nil when http.DefaultTransport was no *http.Transport
}

func (d *defaultTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if cur := http.DefaultTransport; d.tuned == nil || cur != d.orig {
		return cur.RoundTrip(r)
	}
	return d.tuned.RoundTrip(r)
}

// CloseIdleConnections closes the idle connections of the tuned transport
// (http.Client.CloseIdleConnections calls it).
func (d *defaultTransport) CloseIdleConnections() {
	if d.tuned != nil {
		d.tuned.CloseIdleConnections()
	}
}

// DefaultMaxResponseBytes bounds a reply when a provider's
// Config.MaxResponseBytes is 0. A reply's text is a few bytes a token, so
// 32 MiB is millions of tokens, far more than any model writes at once.
const DefaultMaxResponseBytes = 32 << 20

// ResponseLimit returns the limit a Config.MaxResponseBytes of n stands
// for: [DefaultMaxResponseBytes] for 0, and -1, no limit, for any negative
// n (as toolcall.NoLimit removes the library's other limits).
func ResponseLimit(n int) int64 {
	switch {
	case n < 0:
		return -1
	case n == 0:
		return DefaultMaxResponseBytes
	}
	return int64(n)
}

// A TooLargeError reports a reply larger than the response limit.
type TooLargeError struct {
	What  string // what was too large: "response body", "streamed reply"
	Limit int64
}

func (e *TooLargeError) Error() string {
	return e.What + " is larger than the " + limitSize(e.Limit) + " limit (Config.MaxResponseBytes)"
}

// limitSize writes a limit of n bytes as people read it: "32 MiB" for a
// whole number of MiB or KiB, "100000-byte" otherwise.
func limitSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + "-byte"
}

// ReadBody reads a response body whole, up to limit bytes (no limit when
// limit is negative). A body longer than limit is a *[TooLargeError],
// returned without reading past limit+1 bytes, or without reading at all
// when the Content-Length says so. The buffer doubles as it grows, up to
// limit+1 bytes, so reading takes at most about twice the limit.
func ReadBody(resp *http.Response, limit int64) ([]byte, error) {
	tooLarge := &TooLargeError{What: "response body", Limit: limit}
	size := int64(512)
	switch {
	case limit >= 0 && resp.ContentLength > limit:
		return nil, tooLarge
	case resp.ContentLength >= 0:
		// Room to see the end; without a limit, the length is trusted up
		// to the default one.
		size = min(resp.ContentLength+1, DefaultMaxResponseBytes)
	case limit >= 0:
		size = min(size, limit+1)
	}
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			c := 2 * int64(cap(data))
			if limit >= 0 && c >= limit {
				c = limit + 1
			}
			data = append(make([]byte, 0, c), data...)
		}
		n, err := resp.Body.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		switch {
		case limit >= 0 && int64(len(data)) > limit:
			return nil, tooLarge
		case err == io.EOF:
			return data, nil
		case err != nil:
			return data, err
		}
	}
}

// AppendText appends s to text, a streamed reply's text, which the caller
// bounds to limit bytes (negative: no bound). When text must grow, its
// capacity doubles, as append's would for a small slice, but not past the
// limit: a reply near the limit is not held in a buffer twice its size,
// and the buffers a long reply went through add up to twice the limit at
// most, where append's smaller steps add up to five times.
func AppendText(text []byte, s string, limit int64) []byte {
	if len(s) <= cap(text)-len(text) {
		return append(text, s...)
	}
	c := 2 * cap(text)
	if limit >= 0 {
		c = int(min(int64(c), limit))
	}
	grown := make([]byte, len(text), max(c, len(text)+len(s), 512))
	copy(grown, text)
	return append(grown, s...)
}
