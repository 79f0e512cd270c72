package limits

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/internal/check"
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

// TestBoundsWith changes only the fields that are set, reads NoLimit as no
// limit and zero or another negative number as the default, and keeps the
// nesting limit within the checker's most.
func TestBoundsWith(t *testing.T) {
	b := Defaults.With(Bounds{Concurrency: 1, MaxResultBytes: 10})
	assert.Equal(t, Bounds{Concurrency: 1, MaxArgumentBytes: 1 << 20, MaxArgumentDepth: check.MaxDepth, MaxResultBytes: 10}, b)

	b = b.With(Bounds{Concurrency: NoLimit, ToolTimeout: -time.Second, MaxArgumentBytes: -5, MaxArgumentDepth: NoLimit})
	assert.Equal(t, int(^uint(0)>>1), b.Concurrency)
	assert.Zero(t, b.ToolTimeout, "a negative timeout is none")
	assert.Equal(t, Defaults.MaxArgumentBytes, b.MaxArgumentBytes, "a negative number other than NoLimit is the default")
	assert.Equal(t, check.MaxDepth, b.MaxArgumentDepth, "no nesting limit is the most the checker allows")
	assert.Equal(t, 10, b.MaxResultBytes, "a field not set is kept")

	assert.Equal(t, check.MaxDepth, Defaults.With(Bounds{MaxArgumentDepth: check.MaxDepth + 1}).MaxArgumentDepth)
	assert.Equal(t, 3, Defaults.With(Bounds{MaxArgumentDepth: 3, ToolTimeout: time.Second}).MaxArgumentDepth)
}

func TestRead(t *testing.T) {
	assert.Equal(t, 7, Read(0, 7))
	assert.Equal(t, 7, Read(-2, 7))
	assert.Equal(t, 3, Read(3, 7))
	assert.Equal(t, int(^uint(0)>>1), Read(NoLimit, 7))
}
