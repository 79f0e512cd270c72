// Package limits enforces the bounds on one tool call: the size and
// nesting of its arguments, before they are checked, and the size of its
// result, which is cut to fit.
package limits

import (
	"fmt"

	"github.com/toolcall-go/toolcall/internal/check"
)

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
