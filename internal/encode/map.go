package encode

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

type mapEncoder struct {
	keyType   reflect.Type
	stringKey bool
	// valsType is []Elem when the values can be copied into one slice
	// instead of one allocation per value; nil when the element type is
	// sensitive to addressability (slice elements are addressable, map
	// values are not).
	valsType reflect.Type
	elem     encoderFunc
}

func newMapEncoder(t reflect.Type) encoderFunc {
	switch t.Key().Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		if !isTextKey(t.Key()) {
			return otherKeyMapEncoder
		}
	}
	me := &mapEncoder{
		keyType:   t.Key(),
		stringKey: t.Key().Kind() == reflect.String,
		elem:      typeEncoder(t.Elem()),
	}
	if !addrSensitive(t.Elem()) {
		me.valsType = reflect.SliceOf(t.Elem())
	}
	return me.encode
}

func (me *mapEncoder) encode(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		b = append(b, "null"...)
		return b, nil
	}
	if s.depth++; s.depth > maxDepth {
		return b, errFallback
	}
	n := v.Len()
	start := len(s.entries)
	var key, vals reflect.Value
	if me.stringKey {
		key = reflect.New(me.keyType).Elem()
	}
	if me.valsType != nil {
		vals = reflect.MakeSlice(me.valsType, n, n)
	}
	it := v.MapRange()
	for i := 0; it.Next(); i++ {
		var e mapEntry
		if me.stringKey {
			key.SetIterKey(it)
			e.key = key.String()
		} else {
			k, err := resolveKeyName(it.Key())
			if err != nil {
				return b, errFallback
			}
			e.key = k
		}
		if vals.IsValid() {
			e.val = vals.Index(i)
			e.val.SetIterValue(it)
		} else {
			e.val = it.Value()
		}
		s.entries = append(s.entries, e)
	}
	slices.SortFunc(s.entries[start:], func(a, b mapEntry) int {
		return strings.Compare(a.key, b.key)
	})
	b = append(b, '{')
	// Index s.entries afresh each time: nested maps may grow it.
	for i := start; i < start+n; i++ {
		if i > start {
			b = append(b, ',')
		}
		b = appendString(b, s.entries[i].key)
		b = append(b, ':')
		var err error
		if b, err = me.elem(s, b, s.entries[i].val); err != nil {
			return b, err
		}
	}
	b = append(b, '}')
	clear(s.entries[start:])
	s.entries = s.entries[:start]
	s.depth--
	return b, nil
}

// resolveKeyName is encoding/json's: strings as is, then the text methods
// (keyText), then integers in decimal.
func resolveKeyName(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if text, ok, err := keyText(k); ok {
		return text, err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	panic("unexpected map key type")
}

// addrSensitive reports whether encoding a value of type t can depend on
// its addressability: a pointer-receiver MarshalJSON, MarshalText or IsZero
// on t or on anything stored inline in it (struct fields, array elements).
// Pointers, slices, maps and interfaces end the walk: what they refer to is
// addressable, or not, regardless of t's value.
func addrSensitive(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		p := reflect.PointerTo(t)
		if p.Implements(marshalerType) || p.Implements(textMarshalerType) || p.Implements(isZeroerType) || implementsExtra(p) {
			return true
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if addrSensitive(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return addrSensitive(t.Elem())
	}
	return false
}
