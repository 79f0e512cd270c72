package httpline

import (
	"bufio"
	"errors"
	"flag"
	"io"
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

func TestRead(t *testing.T) {
	// A small buffer makes long lines span several reads.
	br := bufio.NewReaderSize(strings.NewReader("a\n"+strings.Repeat("b", 40)+"\ntail"), 16)
	var lines []string
	for {
		line, err := Read(br)
		lines = append(lines, string(line))
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"a\n", strings.Repeat("b", 40) + "\n", "tail"}, lines)

	_, err := Read(bufio.NewReader(strings.NewReader(strings.Repeat("x", MaxLine+1))))
	assert.ErrorIs(t, err, ErrTooLong)

	cut := errors.New("connection reset")
	line, err := Read(bufio.NewReader(io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(cut))))
	assert.ErrorIs(t, err, cut)
	assert.Nil(t, line, "a cut line is dropped")
}
