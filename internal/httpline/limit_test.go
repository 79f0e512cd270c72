package httpline

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeCost(t *testing.T) {
	for _, c := range []struct {
		json string
		want int64
	}{
		{`"text, with [brackets] and {braces}"`, 0},
		{`{"a":1}`, memberCost},
		{`{"a":[1,2],"b":3}`, 2*memberCost + 2*elementCost},
		{`[{},{}]`, 2*memberCost + 2*elementCost},
		{`[[1,2],{"a":1,"b":2},3]`, 5*elementCost + 2*memberCost},
		{`"an escaped \" quote, [still text]"`, 0},
		{`"a backslash \\",[`, 2 * elementCost},
		{strings.Repeat("[", 300) + "1,2", 301 * elementCost},
	} {
		assert.Equal(t, c.want, decodeCost([]byte(c.json)), c.json)
	}
	// Pieces split inside a string and inside an escape count as the whole.
	whole := `{"a":"x\",[y","b":[1,2]}`
	for i := range whole {
		var c costCounter
		c.add([]byte(whole[:i]))
		assert.Equal(t, decodeCost([]byte(whole)), c.add([]byte(whole[i:])), "split at %d", i)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestLineReaderBoundsValues(t *testing.T) {
	// A 3 MiB line of empty objects is refused after the first few KiB.
	line := strings.Repeat(`{},`, 1<<20) + "\n"
	body := &countingReader{r: strings.NewReader(line)}
	r := NewLineReader(body)
	r.limit = 64 << 10
	_, err := r.Next()
	var ve *ValuesError
	require.True(t, errors.As(err, &ve), "err = %v", err)
	assert.Equal(t, "stream line has too many JSON values: decoding them would take more than 64 KiB (Config.MaxResponseBytes, or 1 MiB if that is more)", err.Error())
	assert.Less(t, body.n, 64<<10, "bytes read before the line was refused")

	// Text within the limit is not: a line of prose counts nothing.
	prose := `{"text":"` + strings.Repeat("words, [and] {more}, ", 1<<12) + `"}` + "\n"
	r = NewLineReader(strings.NewReader(prose))
	r.limit = 1 << 10
	got, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, prose, string(got))
}

func TestValueLimit(t *testing.T) {
	assert.Equal(t, int64(-1), ValueLimit(-1))
	assert.Equal(t, int64(1<<20), ValueLimit(8<<10), "a small limit lets ordinary metadata be decoded")
	assert.Equal(t, int64(32<<20), ValueLimit(32<<20))
}

func TestValueCostCountsBytesNotUTF8(t *testing.T) {
	// Each byte that is not UTF-8 decodes to the three of U+FFFD.
	assert.Equal(t, int64(0), ValueCost([]byte(`"héllo, 世界"`)))
	assert.Equal(t, int64(6), ValueCost([]byte("\"\xff\xfe\xfd\"")))
	assert.Equal(t, int64(memberCost+4), ValueCost([]byte("{\"a\":\"\xff\xff\"}")))
}

func TestLineLimit(t *testing.T) {
	assert.Equal(t, MaxLine, LineLimit(-1))
	assert.Equal(t, 1<<20, LineLimit(1<<10), "at least 1 MiB")
	assert.Equal(t, 8<<20, LineLimit(1<<20), "eight times the limit")
	assert.Equal(t, MaxLine, LineLimit(32<<20), "at most MaxLine")
	// Eight times these overflows.
	assert.Equal(t, MaxLine, LineLimit(math.MaxInt64/8+1))
	assert.Equal(t, MaxLine, LineLimit(math.MaxInt64))
}

// TestHugeLimits: a limit of math.MaxInt (MaxResponseBytes) is taken as
// 1 PiB, and ReadBody reads a chunked body under math.MaxInt64, or one
// whose Content-Length says math.MaxInt64 under no limit, without
// overflowing the size of its first buffer (make panicked).
func TestHugeLimits(t *testing.T) {
	assert.Equal(t, int64(1<<50), ResponseLimit(math.MaxInt))
	assert.Equal(t, int64(1<<50), ResponseLimit(1<<50))
	assert.Equal(t, int64(32<<20), ResponseLimit(32<<20))
	for _, tc := range []struct {
		name   string
		length int64
		limit  int64
	}{
		{name: "chunked, limit math.MaxInt64", length: -1, limit: math.MaxInt64},
		{name: "Content-Length math.MaxInt64, no limit", length: math.MaxInt64, limit: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{ContentLength: tc.length, Body: io.NopCloser(strings.NewReader(`{"a":1}`))}
			require.NotPanics(t, func() {
				data, err := ReadBody(resp, tc.limit)
				require.NoError(t, err)
				assert.Equal(t, `{"a":1}`, string(data))
			})
		})
	}
}

// TestLineReaderCountsBytesNotUTF8: a line's bytes that are not UTF-8,
// which decode to the three of U+FFFD, count as ValueCost counts them: an
// 8 MiB line of them under a 1 MiB limit is refused after about half a
// MiB, where it was decoded into 24 MiB of text.
func TestLineReaderCountsBytesNotUTF8(t *testing.T) {
	line := `{"text":"` + strings.Repeat("\xff", 8<<20) + `"}` + "\n"
	body := &countingReader{r: strings.NewReader(line)}
	r := NewLineReader(body)
	r.limit = 1 << 20
	_, err := r.Next()
	var ve *ValuesError
	require.True(t, errors.As(err, &ve), "err = %v", err)
	assert.Less(t, body.n, 1<<20, "bytes read before the line was refused")

	// Text in UTF-8, its runes cut between reads, counts nothing.
	text := `{"text":"` + strings.Repeat("é, 世界 ", 1<<17) + `"}` + "\n"
	r = NewLineReader(strings.NewReader(text))
	r.limit = 1 << 10
	got, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, text, string(got))
}

// TestJSONReplyLinesBoundedAsBody: a JSON reply to a stream, read as its
// lines, is bounded by the limit as a body is, not by the line bound
// (eight times it).
func TestJSONReplyLinesBoundedAsBody(t *testing.T) {
	read := func(body string) error {
		srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		})
		e := endpoint(srv)
		e.Limit = 64 << 10
		_, err := e.Call(context.Background(), "m", "text/event-stream", []byte(`{}`), func(ctx context.Context, r *Reply) (*chat.Response, error) {
			lines := r.Lines()
			for {
				_, err := lines.Next()
				if err == io.EOF {
					return nil, nil
				}
				if err != nil {
					return nil, r.ReadError(ctx, "stream", err)
				}
			}
		})
		return err
	}
	err := read(`{"text":"` + strings.Repeat("x", 100<<10) + `"}`)
	require.ErrorIs(t, err, chat.ErrBadResponse)
	assert.Contains(t, err.Error(), "response body is larger than the 64 KiB limit (Config.MaxResponseBytes)")
	require.NoError(t, read(`{"text":"`+strings.Repeat("x", 60<<10)+`"}`))
}

// TestLongLineGrowsByDoubling: the buffers a long line is put together in
// add up to four times it at worst (a line just past a power of two), not
// the six times append's growth made.
func TestLongLineGrowsByDoubling(t *testing.T) {
	line := strings.Repeat("x", 8<<20) + "\n"
	r := NewLineReader(strings.NewReader(line))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := r.Next()
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Len(t, got, len(line))
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4*len(line)+64<<10))
}

// TestErrorBodyOfTinyValuesNotParsed: an error body is read up to 64 KiB
// whatever the limit, and one made of tiny values is not given to
// ParseError, whose decoding would take hundreds of times its size.
func TestErrorBodyOfTinyValuesNotParsed(t *testing.T) {
	body := `{"error":{"details":[` + strings.Repeat(`{},`, 20000) + `{}]}}`
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, body)
	})
	e := endpoint(srv)
	e.ParseError = func(*chat.ProviderError, *http.Response, []byte) { t.Error("ParseError was called") }
	_, err := e.Call(context.Background(), "m", "application/json", []byte(`{}`), noRead(t))
	assert.ErrorIs(t, err, chat.ErrBadRequest)
	assert.Contains(t, err.Error(), "the error body has too many JSON values to be read")
}

// TestReadAllCountsValues: a body within the limit in bytes is refused
// when its values, or its bytes that are not UTF-8 (decoded to three
// bytes each), would take more than the value limit to decode.
func TestReadAllCountsValues(t *testing.T) {
	for name, body := range map[string]string{
		"tiny values": `[` + strings.Repeat(`{},`, 1<<20) + `{}]`,
		"not UTF-8":   `{"text":"` + strings.Repeat("\xff", 3<<20) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, body) })
			e := endpoint(srv)
			e.Limit = 4 << 20
			_, err := e.Call(context.Background(), "m", "application/json", []byte(`{}`), func(ctx context.Context, r *Reply) (*chat.Response, error) {
				_, err := r.ReadAll(ctx)
				return nil, err
			})
			assert.ErrorIs(t, err, chat.ErrBadResponse)
			assert.Contains(t, err.Error(), "response body has too many JSON values: decoding them would take more than 4 MiB")
		})
	}
}
