package toolcall

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolcall-go/toolcall/internal/check"
)

func TestArgumentRule(t *testing.T) {
	rule, msg := argumentRule([]byte(`{"a":1}`), 7, 0)
	assert.Empty(t, rule+msg, "at the size limit")
	rule, msg = argumentRule([]byte(`{"a":1}`), 6, 0)
	assert.Equal(t, "maxLength", rule)
	assert.Equal(t, "arguments are 7 bytes long, the limit is 6", msg)
	rule, msg = argumentRule([]byte(`{"a":[[1]]}`), 0, 2)
	assert.Equal(t, "maxDepth", rule)
	assert.Equal(t, "arrays and objects nest more than 2 levels deep, the limit", msg)
	rule, _ = argumentRule([]byte(`{"a":[[1]]}`), 0, 3)
	assert.Empty(t, rule, "at the nesting limit")
	rule, _ = argumentRule([]byte(strings.Repeat("[", 50)+strings.Repeat("]", 50)), 0, 0)
	assert.Empty(t, rule, "no limits")
}

// TestTruncateResult cuts at the limit, never inside a UTF-8 sequence, and says
// so in a line at the end.
func TestTruncateResult(t *testing.T) {
	assert.Equal(t, "abc\n[truncated: result was 6 bytes, limit 3]", truncateResult("abcdef", 3))
	// "é" is two bytes: a cut between them keeps the character out.
	assert.Equal(t, "a\n[truncated: result was 5 bytes, limit 2]", truncateResult("aébc", 2))
	assert.Equal(t, "aé\n[truncated: result was 5 bytes, limit 3]", truncateResult("aébc", 3))
}

// TestLimitsWith changes only the fields that are set, reads NoLimit as no
// limit and zero or another negative number as the default, and keeps the
// nesting limit within the checker's most.
func TestLimitsWith(t *testing.T) {
	b := defaultLimits.with(Limits{Concurrency: 1, MaxResultBytes: 10})
	assert.Equal(t, Limits{Concurrency: 1, MaxArgumentBytes: 1 << 20, MaxArgumentDepth: check.MaxDepth, MaxResultBytes: 10}, b)

	b = b.with(Limits{Concurrency: NoLimit, ToolTimeout: -time.Second, MaxArgumentBytes: -5, MaxArgumentDepth: NoLimit})
	assert.Equal(t, int(^uint(0)>>1), b.Concurrency)
	assert.Zero(t, b.ToolTimeout, "a negative timeout is none")
	assert.Equal(t, defaultLimits.MaxArgumentBytes, b.MaxArgumentBytes, "a negative number other than NoLimit is the default")
	assert.Equal(t, check.MaxDepth, b.MaxArgumentDepth, "no nesting limit is the most the checker allows")
	assert.Equal(t, 10, b.MaxResultBytes, "a field not set is kept")

	assert.Equal(t, check.MaxDepth, defaultLimits.with(Limits{MaxArgumentDepth: check.MaxDepth + 1}).MaxArgumentDepth)
	assert.Equal(t, 3, defaultLimits.with(Limits{MaxArgumentDepth: 3, ToolTimeout: time.Second}).MaxArgumentDepth)
}

func TestReadLimit(t *testing.T) {
	assert.Equal(t, 7, readLimit(0, 7))
	assert.Equal(t, 7, readLimit(-2, 7))
	assert.Equal(t, 3, readLimit(3, 7))
	assert.Equal(t, int(^uint(0)>>1), readLimit(NoLimit, 7))
}
