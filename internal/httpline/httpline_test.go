package httpline

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// `go test ./... -update` passes -update to every package; this one has no
// golden files.
var _ = flag.Bool("update", false, "no golden files in this package")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	assert.Equal(t, time.Duration(0), RetryAfter("", now))
	assert.Equal(t, 30*time.Second, RetryAfter("30", now))
	assert.Equal(t, 1500*time.Millisecond, RetryAfter("1.5", now))
	assert.Equal(t, time.Duration(0), RetryAfter("-5", now))
	assert.Equal(t, time.Duration(0), RetryAfter("1e300", now))
	assert.Equal(t, time.Duration(0), RetryAfter("NaN", now))
	assert.Equal(t, 90*time.Second, RetryAfter("Sun, 22 Nov 2026 12:01:30 GMT", now))
	assert.Equal(t, time.Duration(0), RetryAfter("Sun, 22 Nov 2026 11:00:00 GMT", now))
	assert.Equal(t, time.Duration(0), RetryAfter("soon", now))
}

func TestLineReader(t *testing.T) {
	// A small buffer makes long lines span several reads.
	r := &LineReader{br: bufio.NewReaderSize(strings.NewReader("a\n"+strings.Repeat("b", 40)+"\ntail"), 16), limit: -1, maxLine: MaxLine}
	var lines []string
	for {
		line, err := r.Next()
		lines = append(lines, string(line))
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"a\n", strings.Repeat("b", 40) + "\n", "tail"}, lines)

	_, err := NewLineReader(strings.NewReader(strings.Repeat("x", MaxLine+1))).Next()
	assert.ErrorIs(t, err, ErrTooLong)

	cut := errors.New("connection reset")
	line, err := NewLineReader(io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(cut))).Next()
	assert.ErrorIs(t, err, cut)
	assert.Nil(t, line, "a cut line is dropped")
}

func TestLineReaderReusesItsBuffer(t *testing.T) {
	long := strings.Repeat("x", 100<<10) + "\n" // longer than the 64 KiB read buffer
	r := NewLineReader(strings.NewReader(long + "short\n" + long + "tail"))
	var lines []string
	for {
		line, err := r.Next()
		lines = append(lines, string(line))
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, []string{long, "short\n", long, "tail"}, lines)

	r = NewLineReader(strings.NewReader(long + long + long))
	_, err := r.Next()
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1, func() { _, _ = r.Next() })
	assert.Zero(t, allocs, "a second long line is put together in the first one's buffer")

	_, err = NewLineReader(strings.NewReader(strings.Repeat("x", MaxLine+1))).Next()
	assert.ErrorIs(t, err, ErrTooLong)
}

func TestResponseLimit(t *testing.T) {
	assert.Equal(t, int64(32<<20), ResponseLimit(0))
	assert.Equal(t, int64(1000), ResponseLimit(1000))
	assert.Equal(t, int64(-1), ResponseLimit(-1))
	assert.Equal(t, int64(-1), ResponseLimit(-7))
}

func TestReadBody(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    string
		length  int64 // the Content-Length; -1: unknown
		limit   int64
		want    string
		wantErr string
	}{
		{name: "within", body: "12345", length: -1, limit: 5, want: "12345"},
		{name: "beyond", body: "123456", length: -1, limit: 5, wantErr: "response body is larger than the 5-byte limit (Config.MaxResponseBytes)"},
		{name: "declared beyond", body: "", length: 6 << 20, limit: 4 << 20, wantErr: "response body is larger than the 4 MiB limit (Config.MaxResponseBytes)"},
		{name: "no limit", body: "123456", length: -1, limit: -1, want: "123456"},
		{name: "KiB", body: strings.Repeat("x", 3<<10), length: -1, limit: 2 << 10, wantErr: "response body is larger than the 2 KiB limit (Config.MaxResponseBytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{Body: io.NopCloser(strings.NewReader(tc.body)), ContentLength: tc.length}
			got, err := ReadBody(resp, tc.limit)
			if tc.wantErr != "" {
				var tl *TooLargeError
				require.ErrorAs(t, err, &tl)
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func TestAppendText(t *testing.T) {
	var text []byte
	var caps []int
	for range 10 {
		text = AppendText(text, strings.Repeat("x", 300), 2000)
		if len(caps) == 0 || cap(text) != caps[len(caps)-1] {
			caps = append(caps, cap(text))
		}
	}
	assert.Equal(t, strings.Repeat("x", 3000), string(text))
	// Doubling from the first piece, then no more than the limit, then
	// only what the text needs past it.
	assert.Equal(t, []int{300, 600, 1200, 2000, 2100, 2400, 2700, 3000}, caps)
	assert.Equal(t, 64, cap(AppendText(nil, "a", -1)), "a tiny text keeps 64 bytes")
	assert.Equal(t, "ab", string(AppendText(AppendText(nil, "a", -1), "b", -1)))
}

func TestNamesModel(t *testing.T) {
	assert.True(t, NamesModel("The model `gpt-9` does not exist or you do not have access to it."))
	assert.True(t, NamesModel(`model "x" not found, try pulling it first`))
	assert.True(t, NamesModel("Model not found"))
	assert.False(t, NamesModel(""))
	assert.False(t, NamesModel("Not Found"))
	assert.False(t, NamesModel("Invalid URL (POST /v1/chat/completion)"))
}

func TestFirstString(t *testing.T) {
	assert.Equal(t, "b", FirstString(json.RawMessage(`{"x":1}`), json.RawMessage(`"  "`), json.RawMessage(` "b" `[1:]), json.RawMessage(`"c"`)))
	assert.Equal(t, "", FirstString(nil, json.RawMessage(`12`), json.RawMessage(`"\u0020"`)))
}
