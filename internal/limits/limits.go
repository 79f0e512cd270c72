// Package limits holds the bounds on tool calls: their defaults, how the
// values a program gives are read ([Bounds.With], [Read]), and their
// enforcement on one call: the size and nesting of its arguments, before
// they are checked, and the size of its result, which is cut to fit.
package limits

import (
	"fmt"
	"time"

	"github.com/toolcall-go/toolcall/internal/check"
)

// NoLimit, given as a limit, removes it; it is toolcall.NoLimit.
const NoLimit = -1

// Bounds are the limits of a client's or manager's tool calls, field for
// field toolcall.Limits, which converts to and from it.
type Bounds struct {
	Concurrency      int
	ToolTimeout      time.Duration
	MaxArgumentBytes int
	MaxArgumentDepth int
	MaxResultBytes   int
}

// Defaults are the bounds when none is given. The default nesting limit is
// also the most a program may set.
var Defaults = Bounds{
	Concurrency:      16,
	MaxArgumentBytes: 1 << 20,
	MaxArgumentDepth: check.MaxDepth,
	MaxResultBytes:   1 << 20,
}

// With returns b with the fields of set that are not zero, each read with
// [Read] against its default; a nesting limit below 1 or above the default
// is the default, and a negative timeout none.
func (b Bounds) With(set Bounds) Bounds {
	if set.Concurrency != 0 {
		b.Concurrency = Read(set.Concurrency, Defaults.Concurrency)
	}
	if set.ToolTimeout != 0 {
		b.ToolTimeout = max(set.ToolTimeout, 0)
	}
	if set.MaxArgumentBytes != 0 {
		b.MaxArgumentBytes = Read(set.MaxArgumentBytes, Defaults.MaxArgumentBytes)
	}
	if n := set.MaxArgumentDepth; n != 0 {
		if n < 1 || n > Defaults.MaxArgumentDepth {
			n = Defaults.MaxArgumentDepth
		}
		b.MaxArgumentDepth = n
	}
	if set.MaxResultBytes != 0 {
		b.MaxResultBytes = Read(set.MaxResultBytes, Defaults.MaxResultBytes)
	}
	return b
}

// Read reads a limit n: NoLimit is the largest int, zero (or any other
// negative number) def.
func Read(n, def int) int {
	switch {
	case n == NoLimit:
		return int(^uint(0) >> 1)
	case n <= 0:
		return def
	}
	return n
}

// Arguments returns the rule ("maxLength" or "maxDepth") and a message for
// the model when args are longer than maxBytes or nest deeper than
// maxDepth levels; a limit of zero or less is no limit. The default
// nesting limit, [check.MaxDepth], needs no pass of its own: the validator
// enforces it as it walks.
func Arguments(args []byte, maxBytes, maxDepth int) (rule, message string) {
	switch {
	case maxBytes > 0 && len(args) > maxBytes:
		return "maxLength", fmt.Sprintf("arguments are %d bytes long, the limit is %d", len(args), maxBytes)
	case maxDepth > 0 && maxDepth < check.MaxDepth && check.NestingExceeds(args, maxDepth):
		return "maxDepth", fmt.Sprintf("arrays and objects nest more than %d levels deep, the limit", maxDepth)
	}
	return "", ""
}

// truncationMarker ends a tool result cut to its limit.
const truncationMarker = "\n[truncated: result was %d bytes, limit %d]"

// Truncate cuts s to limit bytes, keeping UTF-8 whole, and ends it with a
// line saying so.
func Truncate(s string, limit int) string {
	cut := limit
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut-- // keep UTF-8 whole
	}
	return s[:cut] + fmt.Sprintf(truncationMarker, len(s), limit)
}
