package httpline

import (
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// DefaultMaxResponseBytes bounds a reply when a provider's
// Config.MaxResponseBytes is 0. A reply's text is a few bytes a token, so
// 32 MiB is millions of tokens, far more than any model writes at once.
const DefaultMaxResponseBytes = 32 << 20

// ResponseLimit returns the limit a Config.MaxResponseBytes of n stands
// for: [DefaultMaxResponseBytes] for 0, and -1, no limit, for any negative
// n (as toolcall.NoLimit removes the library's other limits). A limit
// past [MaxResponseLimit] is taken as it, so that no sum or multiple of
// the limit overflows.
func ResponseLimit(n int) int64 {
	switch {
	case n < 0:
		return -1
	case n == 0:
		return DefaultMaxResponseBytes
	}
	return min(int64(n), MaxResponseLimit)
}

// MaxResponseLimit is the largest limit [ResponseLimit] returns: a
// petabyte, more than any machine holds, and far enough from
// math.MaxInt64 that the limit's sums and multiples cannot overflow.
const MaxResponseLimit = 1 << 50

// A TooLargeError reports a reply larger than the response limit.
type TooLargeError struct {
	What  string // what was too large: "response body", "streamed reply"
	Limit int64
}

// Error names what was too large and the limit, and where to raise it.
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
	tooLarge := func() error { return &TooLargeError{What: "response body", Limit: limit} }
	size := int64(512)
	switch {
	case limit >= 0 && resp.ContentLength > limit:
		return nil, tooLarge()
	case resp.ContentLength >= 0:
		// Room to see the end; without a limit, the length is trusted up
		// to the default one (and ContentLength+1 may overflow).
		size = min(resp.ContentLength, DefaultMaxResponseBytes) + 1
	case limit >= 0 && limit < size:
		// Not min(size, limit+1): limit+1 overflows for math.MaxInt64.
		size = limit + 1
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
			return nil, tooLarge()
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
	// At least 64 bytes: a reply of many tiny texts keeps no more than it
	// counts for each.
	grown := make([]byte, len(text), max(c, len(text)+len(s), 64))
	copy(grown, text)
	return append(grown, s...)
}

// Decoding JSON takes more memory than its text: a slice element for each
// value of an array (a struct, a json.RawMessage), a map entry or a field
// for each member of an object. A body, and each line of a stream, is
// refused before it is decoded when its elements and members, at these
// costs, come to more than [ValueLimit]: one made of many tiny values
// ({},{},... at 3 bytes each) cannot make decoding take many times the
// limit. Ordinary replies, mostly text, cost a fraction of their bytes.
const (
	elementCost = 256
	memberCost  = 32
)

// ItemCost is what each call, block, part or item a provider keeps from
// a reply counts against the limit besides its bytes: about the memory it
// takes, with its indexes. So a reply of many empty ones is bounded like
// one long text.
const ItemCost = 256

// minValueLimit is the least [ValueLimit]: what decoding one body or line
// may take whatever the response limit, so that a small limit bounds what
// a reply keeps without refusing the metadata of ordinary replies.
const minValueLimit = 1 << 20

// ValueLimit is what the JSON values of one body or stream line may cost
// under the response limit limit: the limit, or 1 MiB if that is more;
// negative for no limit.
func ValueLimit(limit int64) int64 {
	if limit < 0 {
		return -1
	}
	return max(limit, minValueLimit)
}

// ValueCost is what decoding data takes beyond its bytes: its elements
// and members at their costs, and two bytes for each byte that is not
// UTF-8, which encoding/json decodes to the three of U+FFFD. A provider
// counts it for JSON it keeps to decode later, as it counts the bytes.
func ValueCost(data []byte) int64 {
	cost := decodeCost(data)
	if !utf8.Valid(data) {
		for len(data) > 0 {
			r, n := utf8.DecodeRune(data)
			if r == utf8.RuneError && n == 1 {
				cost += 2
			}
			data = data[n:]
		}
	}
	return cost
}

// notUTF8Cost is what data's bytes that are not UTF-8 cost, two each, as
// [ValueCost] counts them, over text read in pieces: it returns the cost
// and how much of data it read, all of it but a rune cut at its end,
// which is read again with what follows.
func notUTF8Cost(data []byte) (cost int64, n int) {
	if utf8.Valid(data) {
		return 0, len(data)
	}
	for n < len(data) {
		if !utf8.FullRune(data[n:]) {
			break
		}
		r, size := utf8.DecodeRune(data[n:])
		if r == utf8.RuneError && size == 1 {
			cost += 2
		}
		n += size
	}
	return cost, n
}

// decodeCost is what data costs beyond its bytes, as a [costCounter]
// counts it.
func decodeCost(data []byte) int64 {
	var c costCounter
	return c.add(data)
}

// A costCounter counts what decoding JSON text costs beyond its bytes,
// over text read in pieces: elementCost for each value in an array,
// memberCost for each member of an object. It reads the text once and
// allocates nothing.
type costCounter struct {
	cost int64
	// depth is how deep the text is in arrays and objects; bit d of
	// arrays says the container at depth d+1 is an array. Deeper
	// containers than it holds count as arrays, the dearer.
	depth             int
	arrays            [4]uint64
	inString, escaped bool
}

// add counts data, the text that follows what was counted so far, and
// returns the cost of all of it. An array's first element is counted at
// its '[', an object's first member at its '{', the others at their ','.
func (c *costCounter) add(data []byte) int64 {
	for _, b := range data {
		if c.inString {
			switch {
			case c.escaped:
				c.escaped = false
			case b == '\\':
				c.escaped = true
			case b == '"':
				c.inString = false
			}
			continue
		}
		switch b {
		case '"':
			c.inString = true
		case '[':
			c.push(true)
			c.cost += elementCost
		case '{':
			c.push(false)
			c.cost += memberCost
		case ']', '}':
			if c.depth > 0 {
				c.depth--
			}
		case ',':
			if c.inArray() {
				c.cost += elementCost
			} else {
				c.cost += memberCost
			}
		}
	}
	return c.cost
}

func (c *costCounter) push(array bool) {
	if d := c.depth; d < 64*len(c.arrays) {
		if array {
			c.arrays[d/64] |= 1 << (d % 64)
		} else {
			c.arrays[d/64] &^= 1 << (d % 64)
		}
	}
	c.depth++
}

func (c *costCounter) inArray() bool {
	d := c.depth - 1
	return d < 0 || d >= 64*len(c.arrays) || c.arrays[d/64]&(1<<(d%64)) != 0
}

// A ValuesError reports a body or a stream line whose JSON values would
// take more than [ValueLimit] to decode.
type ValuesError struct {
	What  string // "response body", "stream line"
	Limit int64  // the ValueLimit
}

// Error says what had too many values and the limit.
func (e *ValuesError) Error() string {
	return e.What + " has too many JSON values: decoding them would take more than " + limitSize(e.Limit) +
		" (Config.MaxResponseBytes, or 1 MiB if that is more)"
}
