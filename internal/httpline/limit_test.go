package httpline

import (
	"errors"
	"io"
	"strings"
	"testing"

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
	var tl *TooLargeError
	require.True(t, errors.As(err, &tl), "err = %v", err)
	assert.Equal(t, "stream line, counting its JSON values, is larger than the 64 KiB limit (Config.MaxResponseBytes)", err.Error())
	assert.Less(t, body.n, 64<<10, "bytes read before the line was refused")

	// Text within the limit is not: a line of prose counts nothing.
	prose := `{"text":"` + strings.Repeat("words, [and] {more}, ", 1<<12) + `"}` + "\n"
	r = NewLineReader(strings.NewReader(prose))
	r.limit = 1 << 10
	got, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, prose, string(got))
}
