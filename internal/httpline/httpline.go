// Package httpline holds what both providers need to read an HTTP reply:
// bounded line reading for streams, the Retry-After header, and the error
// an HTTP status means.
package httpline

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
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
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			return nil, ErrTooLong
		}
		switch err {
		case nil:
			if line == nil {
				return chunk, nil
			}
			return append(line, chunk...), nil
		case bufio.ErrBufferFull:
			line = append(line, chunk...)
		case io.EOF:
			return append(line, chunk...), io.EOF
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
