package providertest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"
)

// A Flood is a reply whose one array or object is filled with many tiny
// elements, all within the response limit in bytes: the shape that makes
// a JSON decoder allocate many times the bytes it reads.
type Flood struct {
	Name string
	// Stream sends the reply as a stream (ContentType) rather than one
	// JSON body.
	Stream      bool
	ContentType string
	// Members says the elements go in an object ("k":0), not an array.
	Members bool
	// Body returns the reply with elems in place.
	Body func(elems string) string
}

// floodElements are the tiny values a flood is made of.
var floodElements = []string{`{}`, `[]`, `0`, `""`, `null`}

// The limits a flood is sent under: a body fills the limit to the brim; a
// stream's one line is six times the limit, within the line bound.
const (
	floodBodyLimit   = 4 << 20
	floodStreamLimit = 1 << 20
)

// CheckFloods sends each flood, of each tiny element, to the model that
// model returns for the server at url and the response limit, and checks
// that reading it allocated at most four times the limit for a body, and
// twice the line and four times the limit for a stream: every byte read
// counts, and so does what decoding each value takes. The reply must be
// refused as a malformed one (chat.ErrBadResponse) or read. Each flood is
// sent at sizes from the limit (six times it for a stream line) down to
// 1/256 of that, halving, so that one of them is just within what the
// limit lets be decoded.
//
// It measures with runtime.MemStats, so it must not run in parallel with
// other tests (no t.Parallel, here or in the caller).
func CheckFloods(t *testing.T, model func(url string, limit int) chat.StreamingModel, floods []Flood) {
	for _, f := range floods {
		for _, elem := range floodElements {
			if f.Members {
				elem = `"k":` + elem
			}
			t.Run(f.Name+" "+elem, func(t *testing.T) {
				limit, size := floodBodyLimit, floodBodyLimit-len(f.Body(""))
				if f.Stream {
					limit, size = floodStreamLimit, 6*floodStreamLimit
				}
				for ; size > limit/256; size /= 2 {
					checkFlood(t, model, f, limit, []byte(f.Body(repeat(elem, size))))
				}
			})
		}
	}
}

func checkFlood(t *testing.T, model func(url string, limit int) chat.StreamingModel, f Flood, limit int, body []byte) {
	ctype := f.ContentType
	if ctype == "" {
		ctype = "application/json"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}))
	defer srv.Close()
	m := model(srv.URL, limit)
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
	var err error
	// The least of two runs: another test's goroutine that allocates
	// while one runs is not this reply's doing.
	n := uint64(math.MaxUint64)
	for range 2 {
		n = min(n, allocDuring(func() {
			if f.Stream {
				_, err = m.Stream(context.Background(), req, nil)
			} else {
				_, err = m.Chat(context.Background(), req)
			}
		}))
	}
	if err != nil && !errors.Is(err, chat.ErrBadResponse) {
		t.Errorf("err = %v, want nil or one wrapping chat.ErrBadResponse", err)
	}
	what, bound := "body", uint64(4*limit)
	if f.Stream {
		what, bound = "stream", uint64(2*len(body)+4*limit)
	}
	t.Logf("a %s of %d bytes, limit %s: allocated %s (bound %s)", what, len(body), mib(limit), mib(int(n)), mib(int(bound)))
	if n > bound {
		t.Errorf("a %s of %d bytes with MaxResponseBytes %s allocated %s, more than %s (err: %v)",
			what, len(body), mib(limit), mib(int(n)), mib(int(bound)), err)
	}
}

// repeat joins copies of elem with commas into at most size bytes.
func repeat(elem string, size int) string {
	n := (size + 1) / (len(elem) + 1)
	return strings.TrimSuffix(strings.Repeat(elem+",", n), ",")
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// allocDuring returns the bytes the process allocated while f ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
