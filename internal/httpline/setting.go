package httpline

import (
	"os"
	"strings"
)

// Setting returns a Config field as a provider's New reads it: configured,
// trimmed of white space, else the trimmed value of the environment
// variable env, else def. A field of blanks counts as unset, so that a key
// pasted with its newline is not sent as it is.
func Setting(configured, env, def string) string {
	if s := strings.TrimSpace(configured); s != "" {
		return s
	}
	if s := strings.TrimSpace(os.Getenv(env)); s != "" {
		return s
	}
	return def
}
