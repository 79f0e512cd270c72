package limits

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestArguments(t *testing.T) {
	rule, msg := Arguments([]byte(`{"a":1}`), 7, 0)
	assert.Empty(t, rule+msg, "at the size limit")
	rule, msg = Arguments([]byte(`{"a":1}`), 6, 0)
	assert.Equal(t, "maxLength", rule)
	assert.Equal(t, "arguments are 7 bytes long, the limit is 6", msg)
	rule, msg = Arguments([]byte(`{"a":[[1]]}`), 0, 2)
	assert.Equal(t, "maxDepth", rule)
	assert.Equal(t, "arrays and objects nest more than 2 levels deep, the limit", msg)
	rule, _ = Arguments([]byte(`{"a":[[1]]}`), 0, 3)
	assert.Empty(t, rule, "at the nesting limit")
	rule, _ = Arguments([]byte(strings.Repeat("[", 50)+strings.Repeat("]", 50)), 0, 0)
	assert.Empty(t, rule, "no limits")
}

// TestTruncate cuts at the limit, never inside a UTF-8 sequence, and says
// so in a line at the end.
func TestTruncate(t *testing.T) {
	assert.Equal(t, "abc\n[truncated: result was 6 bytes, limit 3]", Truncate("abcdef", 3))
	// "é" is two bytes: a cut between them keeps the character out.
	assert.Equal(t, "a\n[truncated: result was 5 bytes, limit 2]", Truncate("aébc", 2))
	assert.Equal(t, "aé\n[truncated: result was 5 bytes, limit 3]", Truncate("aébc", 3))
}
