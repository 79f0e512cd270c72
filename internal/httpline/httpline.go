// Package httpline is the HTTP side of the providers, written once: an
// [Endpoint] posts a model's request ([Endpoint.Call], [Endpoint.Stream]
// for a streamed one, which also takes a whole reply a server sent
// instead), retries it, and turns a failed status into a
// *chat.ProviderError with the server's message, Retry-After and request
// id, the API key removed; the [Reply] it hands the provider reads the
// body within the response limit ([Reply.ReadAll], [Reply.Lines] for
// streams) and builds the errors of what the provider decodes from it.
// Also here: the HTTP client the providers share ([DefaultClient]), the
// response limit's helpers ([ResponseLimit], [AppendText] for a stream's
// text), the fields of a server-sent event stream's lines ([SSELine]),
// what a 404 says ([NamesModel]) and the sentinel an HTTP status means
// ([StatusError]).
//
// A provider keeps one Endpoint in its model, built by New:
//
//	m.ep = httpline.Endpoint{Provider: "openai", URL: base + "/chat/completions",
//		Header: http.Header{"Authorization": {"Bearer " + key}}, Secret: key,
//		Client: cfg.HTTPClient, Retry: retry.Policy{MaxRetries: cfg.MaxRetries},
//		Limit: httpline.ResponseLimit(cfg.MaxResponseBytes), ParseError: m.parseError}
//
// and sends each call through it, decoding the reply in a function:
//
//	return m.ep.Call(ctx, model, "application/json", body, decode)
//
//	func decode(ctx context.Context, rep *httpline.Reply) (*chat.Response, error) {
//		data, err := rep.ReadAll(ctx)
//		if err != nil {
//			return nil, err
//		}
//		...
//		return nil, rep.BadResponse("response has no choices")
//	}
//
// A stream goes through [Endpoint.Stream] with the function that reads
// its lines, and the decode of Chat for a server that answers whole:
//
//	return m.ep.Stream(ctx, model, "text/event-stream", body, yield, read, decode)
//
// Every error is then a *chat.ProviderError with the provider, status,
// model, request id and number of attempts, and the key in none of them.
//
// # Response limit
//
// A reply is read into memory, so it is bounded: Config.MaxResponseBytes,
// which each provider has, goes through [ResponseLimit] (0: 32 MiB,
// negative: no limit, as toolcall.NoLimit elsewhere) into Endpoint.Limit.
// [Reply.ReadAll] bounds a body; a stream bounds what it assembles (text,
// reasoning, arguments), not its bytes, whose framing can be several times
// larger, and ends with [Reply.TooLarge] past the limit. Buffers double up
// to the limit and no further, never in proportion to what the server
// sends.
//
// Decoding JSON takes more memory than its text: a slice element for each
// value of an array, a map entry for each member of an object, three
// bytes (U+FFFD) for each byte that is not UTF-8. So a body, and each
// line of a stream as it is read, is refused before it is decoded when
// its values would take more than [ValueLimit] (the limit, at least
// 1 MiB); a line is at most [LineLimit] long (eight times the limit, at
// least 1 MiB, at most 16 MiB), and a line of a JSON reply to a stream at
// most the limit, as a body; an error body is read up to 64 KiB and not
// parsed when it is made of tiny values; a provider counts each call,
// block or item it keeps (about 256 bytes) besides its bytes, at their
// decoded size where it keeps them decoded; and a reply's metadata, which
// a provider keeps besides what it counts (its model, finish reason,
// role), is at most [MaxMetadata] (1 KiB) long, else the reply is
// malformed. A limit past [MaxResponseLimit] is taken as it.
//
// A reply of many tiny values, invalid UTF-8 or very long lines cannot
// make reading it take many times the limit: measured with hostile
// replies of every shape (providertest.CheckFloods), and with ordinary
// ones filling the limit, reading a reply allocates at most about ten
// times the larger of the limit and 1 MiB, besides about twice the bytes
// of a stream, whose lines are decoded one by one. What a reply keeps is
// a small multiple of the limit: at most about seven times it, when
// Anthropic's or Gemini's ProviderData writes the text again as JSON, in
// which a control character takes six bytes (\u0001); writing that much
// JSON allocates a few times it more.
package httpline

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolcall-go/toolcall/chat"
)

// MaxLine bounds one line of a stream, so a broken server cannot exhaust
// memory; under a response limit of less than 2 MiB, a line is bounded to
// eight times the limit, and at least 1 MiB (see [LineLimit]).
const MaxLine = 16 << 20

// LineLimit is how long a line of a stream may be under the response
// limit limit: eight times it (JSON's escapes make a line up to six times
// the text it carries), at least 1 MiB and at most [MaxLine].
func LineLimit(limit int64) int {
	if limit < 0 || limit > MaxLine/8 { // 8*limit may overflow
		return MaxLine
	}
	return int(max(minValueLimit, 8*limit))
}

// ErrTooLong is returned for a line longer than MaxLine.
var ErrTooLong = errors.New("line too long")

// A LineReader reads the lines of a streamed body. A line longer than its
// read buffer is put together in one buffer it keeps for the next, so a
// stream of long lines does not allocate one per line.
type LineReader struct {
	br      *bufio.Reader
	long    []byte
	limit   int64 // what a line's JSON values may cost; negative: no bound
	maxLine int
	tooLong error // of a line longer than maxLine: ErrTooLong, or a *TooLargeError for a body
}

// NewLineReader returns a LineReader of body with bufio's default read
// buffer (4 KiB) and no bound on what a line's values cost. Most lines of
// a stream are far shorter; a longer one goes through the reader's own
// buffer, which grows once and is kept. A 64 KiB buffer was most of the
// bytes a short streamed round allocated.
func NewLineReader(body io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReader(body), limit: -1, maxLine: MaxLine, tooLong: ErrTooLong}
}

// Next returns the next line, newline included; it is valid until the
// next call. At the end of the body it returns the unterminated rest with
// io.EOF; after any other read error the partial line is dropped, so a cut
// connection is not mistaken for a malformed line. A line longer than
// the reader's bound ([MaxLine], or [LineLimit] for [Reply.Lines]) is
// [ErrTooLong]; one whose JSON values cost more than the reader's limit
// (bytes that are not UTF-8 included, as [ValueCost] counts them) is a
// *[ValuesError], returned as soon as the part read does, so that neither
// is read whole.
func (r *LineReader) Next() ([]byte, error) {
	var cost costCounter
	var badUTF8 int64      // what the line's bytes that are not UTF-8 cost
	counted, valid := 0, 0 // how much of the line cost and badUTF8 have counted
	tooLarge := func(line []byte) bool {
		// A line too short to pass the limit, were every byte an element,
		// is not counted: most lines of a stream.
		if r.limit < 0 || int64(len(line))*elementCost <= r.limit {
			return false
		}
		cost.add(line[counted:])
		counted = len(line)
		c, n := notUTF8Cost(line[valid:])
		badUTF8, valid = badUTF8+c, valid+n
		return cost.cost+badUTF8 > r.limit
	}
	chunk, err := r.br.ReadSlice('\n')
	switch {
	case len(chunk) > r.maxLine:
		return nil, r.tooLong
	case tooLarge(chunk):
		return nil, r.tooLarge()
	case err == nil || err == io.EOF:
		return chunk, err
	case err != bufio.ErrBufferFull:
		return nil, err
	}
	line := append(r.long[:0], chunk...)
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(line)+len(chunk) > r.maxLine {
			return nil, r.tooLong
		}
		if len(line)+len(chunk) > cap(line) {
			// Doubling: append grows a large slice by a quarter, and the
			// buffers of a 16 MiB line added up to six times its size;
			// doubled, they come to four times at most.
			line = append(make([]byte, 0, max(2*cap(line), len(line)+len(chunk))), line...)
		}
		line = append(line, chunk...)
		r.long = line
		if tooLarge(line) {
			return nil, r.tooLarge()
		}
		switch err {
		case nil, io.EOF:
			return line, err
		case bufio.ErrBufferFull:
		default:
			return nil, err
		}
	}
}

func (r *LineReader) tooLarge() error {
	return &ValuesError{What: "stream line", Limit: r.limit}
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

// Quote quotes what a server said, cut to 64 bytes, for a message of ours.
func Quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strconv.Quote(s)
}

// NoAPIAt is the message of a 404 that names no model: no api answers at
// where (a URL, the key redacted), and said, when not empty, is what the
// server said instead; the BaseURL should be the server's root, like root.
func NoAPIAt(api, where, said, root string) string {
	msg := "no " + api + " at " + where
	if said != "" {
		msg += " (the server said " + Quote(said) + ")"
	}
	return msg + "; Config.BaseURL is the server's root, such as " + root
}

// FirstString returns the first of raws that is a JSON string not blank,
// trimmed, or "": where an error body's message may be.
func FirstString(raws ...json.RawMessage) string {
	for _, raw := range raws {
		var s string
		if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
			if s = strings.TrimSpace(s); s != "" {
				return s
			}
		}
	}
	return ""
}
