package jsonnode_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// TestCloneEqualsParse pins that a clone is the tree Parse gives for the
// same bytes, empty objects and arrays included, and shares nothing with
// the original.
func TestCloneEqualsParse(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"a":{},"b":[],"c":{"d":[{"e":1.5},"x",true,null]}}`)
	orig, err := jsonnode.Parse(raw)
	require.NoError(t, err)
	c := jsonnode.Clone(orig)
	want, err := jsonnode.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, want, c)

	cd, _ := c.(*jsonnode.Object).Get("c")
	d, _ := cd.(*jsonnode.Object).Get("d")
	d.([]any)[0].(*jsonnode.Object).Set("e", "changed")
	c.(*jsonnode.Object).Set("a", "changed")
	assert.Equal(t, want, orig, "changing the clone changed the original")
	assert.Equal(t, string(raw), string(jsonnode.Marshal(orig)))
}

func TestKind(t *testing.T) {
	for in, want := range map[string]string{`{}`: "object", `[1]`: "array", `"s"`: "string", `true`: "boolean", `false`: "boolean", `null`: "null", `-1.5`: "number", `7`: "number"} {
		assert.Equal(t, want, jsonnode.Kind(in[0]), in)
	}
}
