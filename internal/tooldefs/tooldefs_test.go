package tooldefs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/chat"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestIndexFind finds each name at its position, and -1 for a name not
// added, in a list compared in turn and in one with a map.
func TestIndexFind(t *testing.T) {
	for _, n := range []int{0, 1, indexFrom - 1, indexFrom, 3 * indexFrom} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			x := NewIndex(n)
			assert.Equal(t, n >= indexFrom, x.byName != nil, "map from %d definitions", indexFrom)
			for i := range n {
				x.Add(chat.ToolDefinition{Name: fmt.Sprintf("tool_%d", i)})
			}
			assert.Len(t, x.Defs, n)
			for i := range n {
				assert.Equal(t, i, x.Find(fmt.Sprintf("tool_%d", i)))
			}
			assert.Equal(t, -1, x.Find("missing"))
			var zero Index
			assert.Equal(t, -1, zero.Find("tool_0"))
		})
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "get_weather", "Tool-2", strings.Repeat("x", 64)} {
		assert.NoError(t, CheckName(ok), ok)
	}
	for name, want := range map[string]string{
		"":                      "tool name is empty",
		strings.Repeat("x", 65): "is 65 bytes long, the limit is 64",
		"get weather":           `has ' ' at byte 3`,
		"café":                  `has 'Ã' at byte 3`,
	} {
		err := CheckName(name)
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), want)
		}
	}
}

func TestUnknown(t *testing.T) {
	assert.Equal(t, `tool "x" does not exist; no tools are available`, Unknown("x", nil))
	assert.Equal(t, `tool "x" does not exist; available tools: a, b`, Unknown("x", []string{"a", "b", "a"}))
}

func TestSame(t *testing.T) {
	a, b := new(int), new(int)
	assert.True(t, Same(a, a))
	assert.False(t, Same(a, b))
	assert.False(t, Same(nil, nil), "no tool")
	// Values other than pointers are never the same: == on them may
	// panic, as on a func.
	f := func() {}
	assert.False(t, Same(f, f))
	assert.False(t, Same(1, 1))
	assert.True(t, SameAll([]any{a, b}, []any{a, b}))
	assert.False(t, SameAll([]any{a, b}, []any{b, a}))
	assert.False(t, SameAll([]any{a}, []any{a, a}))
}
