package seal

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"reflect"
	"runtime"
	"sync"
	"weak"
)

// SameJSON reports whether a and b are the same JSON value: numbers
// compared exactly, object keys in any order.
func SameJSON(a, b []byte) bool {
	va, okA := decodeExact(a)
	vb, okB := decodeExact(b)
	return okA && okB && equalJSON(va, vb)
}

func decodeExact(b []byte) (any, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF { // one value, nothing after it
		return nil, false
	}
	return v, true
}

func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, okX := new(big.Rat).SetString(string(a))
		y, okY := new(big.Rat).SetString(string(b))
		return okX && okY && x.Cmp(y) == 0
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equalJSON(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// claimed holds the values claimed with Once, by address; an entry goes
// when its value is collected.
var claimed sync.Map // weak.Pointer[T] -> struct{}

// Once claims the value p points to for this process, and reports false
// when it was claimed before; undo takes the claim back.
func Once[T any](p *T) (undo func(), ok bool) {
	wp := weak.Make(p)
	if _, loaded := claimed.LoadOrStore(wp, struct{}{}); loaded {
		return nil, false
	}
	runtime.AddCleanup(p, func(wp weak.Pointer[T]) { claimed.Delete(wp) }, wp)
	return func() { claimed.Delete(wp) }, true
}
