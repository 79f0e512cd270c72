package check

import (
	"reflect"
	"testing"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// TestLeaf pins the nodes shared by the schemas that only name a type:
// each has the type's bits and nothing else.
func TestLeaf(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"object", "array", "string", "integer", "number", "boolean", "null"} {
		n := leaf(&jsonnode.Object{Members: []jsonnode.Member{{Key: "type", Value: name}}})
		want := newNode()
		want.types = typeBit(name)
		if n == nil || !reflect.DeepEqual(n, want) {
			t.Errorf("leaf of type %s = %+v, want %+v", name, n, want)
		}
	}
	if n := leaf(&jsonnode.Object{}); n == nil || !reflect.DeepEqual(n, newNode()) {
		t.Errorf("leaf of {} = %+v", n)
	}
	for _, raw := range []string{`{"type":"bogus"}`, `{"type":["string"]}`, `{"type":"string","minLength":1}`, `{"enum":[1]}`} {
		v, _ := jsonnode.Parse([]byte(raw))
		if n := leaf(v.(*jsonnode.Object)); n != nil {
			t.Errorf("leaf of %s = %+v, want nil", raw, n)
		}
	}
}

// TestUnsupportedKeywords pins what keyword looks for before it looks a
// keyword up in unsupported.
func TestUnsupportedKeywords(t *testing.T) {
	t.Parallel()
	for key := range unsupported {
		if key[0] != '$' && key[0] != 'u' {
			t.Errorf("unsupported keyword %q starts with neither $ nor u", key)
		}
	}
}
