//go:build goexperiment.jsonv2 && go1.27

package encode

import (
	"encoding/json"
	"encoding/json/jsontext"
	"testing"
)

// marshalerTo has both methods: encoding/json/v2 calls MarshalJSONTo.
type marshalerTo struct{ N int }

func (m marshalerTo) MarshalJSONTo(enc *jsontext.Encoder) error {
	return enc.WriteToken(jsontext.Int(int64(m.N) * 10))
}

func (m marshalerTo) MarshalJSON() ([]byte, error) { return []byte(`"MarshalJSON"`), nil }

// TestStringMarshalerTo checks that values with a MarshalJSONTo method are
// left to encoding/json (the interface is API of Go 1.27, hence the build
// constraint on this file).
func TestStringMarshalerTo(t *testing.T) {
	for _, c := range []struct {
		name      string
		v         any
		fallsBack bool
	}{
		{"value", marshalerTo{1}, true},
		{"slice", []marshalerTo{{2}}, true},
		{"pointer", &marshalerTo{3}, true},
		{"map", map[string]marshalerTo{"a": {4}}, true},
		{"nil pointer field", struct{ M *marshalerTo }{}, false},
		{"json.Number", []json.Number{"1.5", ""}, false},
	} {
		t.Run(c.name, func(t *testing.T) { assertSame(t, c.v, c.fallsBack) })
	}
}
