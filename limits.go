package toolcall

import (
	"fmt"
	"time"

	"github.com/toolcall-go/toolcall/internal/check"
)

// NoLimit, given to an option that takes a limit, removes the limit. Zero
// means the default everywhere.
const NoLimit = -1

// Limits bound the tool calls of a [Client] or [Manager]. A zero field means
// the default and [NoLimit] removes the limit; given again, [WithLimits]
// changes only the fields that are set (to go back to a default, give its
// value).
type Limits struct {
	// Concurrency bounds how many tool calls of one reply run at once, 16
	// by default. 1 runs them one after another, in call order; NoLimit
	// runs them all at once.
	Concurrency int
	// ToolTimeout bounds each tool call; a tool past it gets its context
	// cancelled and the model is told it timed out. A tool's own
	// [WithTimeout] wins. Tools must honour their context: a round ends
	// only when each of its tools has returned, so one that ignores its
	// context holds up the call. There is no timeout by default.
	ToolTimeout time.Duration
	// MaxArgumentBytes bounds the size of one call's arguments, 1 MiB by
	// default; larger arguments are refused and the model is told the
	// limit.
	MaxArgumentBytes int
	// MaxArgumentDepth bounds how deeply arrays and objects may nest in
	// one call's arguments; deeper arguments are refused and the model is
	// told the limit. The default, 10,000 levels, is also the most: NoLimit
	// and larger numbers mean the default.
	MaxArgumentDepth int
	// MaxResultBytes bounds the size of one tool result, 1 MiB by default;
	// a longer result is cut and ends with a line saying so ("[truncated:
	// result was N bytes, limit L]").
	MaxResultBytes int
	// MaxAnswerRepairs bounds how many times a typed answer
	// ([Prompt.Answer]) that broke its schema is sent back to the model,
	// 2 by default; past it the call ends with an [*AnswerError].
	MaxAnswerRepairs int
}

// WithLimits sets the fields of l that are not zero.
func WithLimits(l Limits) ManagerOption {
	return execOption(func(c *config) { c.limits = c.limits.with(l) })
}

// defaultLimits are the limits when none is given. The default nesting
// limit is also the most a program may set.
var defaultLimits = Limits{
	Concurrency:      16,
	MaxArgumentBytes: 1 << 20,
	MaxArgumentDepth: check.MaxDepth,
	MaxResultBytes:   1 << 20,
}

// with returns b with the fields of set that are not zero, each read with
// readLimit against its default; a nesting limit below 1 or above the
// default is the default, and a negative timeout none.
func (b Limits) with(set Limits) Limits {
	if set.Concurrency != 0 {
		b.Concurrency = readLimit(set.Concurrency, defaultLimits.Concurrency)
	}
	if set.ToolTimeout != 0 {
		b.ToolTimeout = max(set.ToolTimeout, 0)
	}
	if set.MaxArgumentBytes != 0 {
		b.MaxArgumentBytes = readLimit(set.MaxArgumentBytes, defaultLimits.MaxArgumentBytes)
	}
	if n := set.MaxArgumentDepth; n != 0 {
		if n < 1 || n > defaultLimits.MaxArgumentDepth {
			n = defaultLimits.MaxArgumentDepth
		}
		b.MaxArgumentDepth = n
	}
	if set.MaxAnswerRepairs != 0 {
		b.MaxAnswerRepairs = set.MaxAnswerRepairs // read where it is used, against its default
	}
	if set.MaxResultBytes != 0 {
		b.MaxResultBytes = readLimit(set.MaxResultBytes, defaultLimits.MaxResultBytes)
	}
	return b
}

// readLimit reads a limit n: NoLimit is the largest int, zero (or any other
// negative number) def.
func readLimit(n, def int) int {
	switch {
	case n == NoLimit:
		return int(^uint(0) >> 1)
	case n <= 0:
		return def
	}
	return n
}

// argumentRule returns the rule ("maxLength" or "maxDepth") and a message for
// the model when args are longer than maxBytes or nest deeper than
// maxDepth levels; a limit of zero or less is no limit. The default
// nesting limit, [check.MaxDepth], needs no pass of its own: the validator
// enforces it as it walks.
func argumentRule(args []byte, maxBytes, maxDepth int) (rule, message string) {
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

// truncateResult cuts s to limit bytes, keeping UTF-8 whole, and ends it with a
// line saying so.
func truncateResult(s string, limit int) string {
	cut := limit
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut-- // keep UTF-8 whole
	}
	return s[:cut] + fmt.Sprintf(truncationMarker, len(s), limit)
}
