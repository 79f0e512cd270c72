// Package tooldefs holds what is checked and looked up of the definitions
// of the tools a request offers: the rule for a tool's name, and an index
// of the definitions by name.
package tooldefs

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/toolcall-go/toolcall/chat"
)

// CheckName checks a tool name: 1 to 64 ASCII letters, digits, '_' or '-',
// as OpenAI and most providers require.
func CheckName(name string) error {
	if name == "" {
		return errors.New("tool name is empty")
	}
	if len(name) > 64 {
		return fmt.Errorf("%q is %d bytes long, the limit is 64", name, len(name))
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !NameRune(rune(c)) {
			return fmt.Errorf("%q has %q at byte %d; names must match ^[a-zA-Z0-9_-]{1,64}$", name, rune(c), i)
		}
	}
	return nil
}

// NameRune reports whether r may stand in a tool name: an ASCII letter,
// digit, '_' or '-'.
func NameRune(r rune) bool {
	return r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
}

// indexFrom is the size from which an Index finds names with a map; a
// smaller one compares the names in turn, which costs less.
const indexFrom = 9

// An Index is a list of definitions, one per name, in order, that finds a
// definition by its name.
type Index struct {
	Defs   []chat.ToolDefinition
	byName map[string]int // name -> index in Defs, for large lists
}

// NewIndex returns an empty Index with room for n definitions.
func NewIndex(n int) Index {
	x := Index{Defs: make([]chat.ToolDefinition, 0, n)}
	if n >= indexFrom {
		x.byName = make(map[string]int, n)
	}
	return x
}

// Add appends d, whose name is not in x yet.
func (x *Index) Add(d chat.ToolDefinition) {
	if x.byName != nil {
		x.byName[d.Name] = len(x.Defs)
	}
	x.Defs = append(x.Defs, d)
}

// Find returns the index in Defs of the definition called name, or -1.
func (x *Index) Find(name string) int {
	if x.byName != nil {
		if i, ok := x.byName[name]; ok {
			return i
		}
		return -1
	}
	return slices.IndexFunc(x.Defs, func(d chat.ToolDefinition) bool { return d.Name == name })
}

// Unknown is the message, for the model, of a call to a tool called name
// that was not offered: it lists the names of the tools that were, each
// once.
func Unknown(name string, offered []string) string {
	names := make([]string, 0, len(offered))
	for _, n := range offered {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("tool %q does not exist; no tools are available", name)
	}
	return fmt.Sprintf("tool %q does not exist; available tools: %s", name, strings.Join(names, ", "))
}

// Same reports whether a and b are the same tool value. Only pointers are
// compared: == on other dynamic types may panic.
func Same(a, b any) bool {
	t := reflect.TypeOf(a)
	return t != nil && t.Kind() == reflect.Pointer && t == reflect.TypeOf(b) && a == b
}

// SameAll reports whether a and b hold the same tool values, in order
// (see [Same]).
func SameAll[T any](a, b []T) bool {
	return slices.EqualFunc(a, b, func(x, y T) bool { return Same(x, y) })
}
