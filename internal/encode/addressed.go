package encode

import (
	"encoding/base64"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Addressed encoders read values in place through a pointer, without
// reflect.Value: values reached through a pointer, a slice element, or any
// part of one. Those are exactly the addressable values of encoding/json's
// walk, so where an addressed encoder hands a value back to the reflect
// encoders (marshalers, maps, interfaces...) it does so with
// reflect.NewAt(t, p).Elem(), addressable too, and encoding/json's choice of
// pointer-receiver methods is preserved.
//
// The unsafe reads are checked by FuzzString, which encodes slices of and
// pointers to structs of every scalar kind.

// topEncoderFunc encodes the value String was given.
type topEncoderFunc func(s *state, b []byte, v any) ([]byte, error)

var topEncoderCache sync.Map // map[reflect.Type]*typedTop

// topEncoder returns the encoder for values of type t passed to String.
//
// A value in an interface is not addressable, so it goes to the reflect
// encoders, unless its type is larger than a pointer (then the interface
// holds a pointer to an immutable copy of it) and nothing in it is sensitive
// to addressability: then the addressed encoders read that copy in place.
func topEncoder(t reflect.Type) topEncoderFunc {
	// A tool returns the same type call after call: remember the last one.
	if last := lastTop.Load(); last != nil && last.t == t {
		return last.f
	}
	if e, ok := topEncoderCache.Load(t); ok {
		lastTop.Store(e.(*typedTop))
		return e.(*typedTop).f
	}
	var f topEncoderFunc
	if t.Size() > unsafe.Sizeof(uintptr(0)) && !addrSensitive(t) {
		enc := addrEncoder(t)
		f = func(s *state, b []byte, v any) ([]byte, error) {
			return enc(s, b, (*eface)(unsafe.Pointer(&v)).data)
		}
	} else {
		enc := typeEncoder(t)
		f = func(s *state, b []byte, v any) ([]byte, error) {
			return enc(s, b, reflect.ValueOf(v))
		}
	}
	topEncoderCache.Store(t, &typedTop{t, f})
	return f
}

type typedTop struct {
	t reflect.Type
	f topEncoderFunc
}

var lastTop atomic.Pointer[typedTop]

// eface is the layout of an interface{} value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// addrEncoderFunc appends the JSON of the value of its type stored at p.
type addrEncoderFunc func(s *state, b []byte, p unsafe.Pointer) ([]byte, error)

var addrEncoderCache sync.Map // map[reflect.Type]addrEncoderFunc

// addrEncoder is typeEncoder for addressed encoders.
func addrEncoder(t reflect.Type) addrEncoderFunc {
	if f, ok := addrEncoderCache.Load(t); ok {
		return f.(addrEncoderFunc)
	}
	indirect := sync.OnceValue(func() addrEncoderFunc {
		return newAddrEncoder(t, false)
	})
	f, loaded := addrEncoderCache.LoadOrStore(t, addrEncoderFunc(func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		return indirect()(s, b, p)
	}))
	if loaded {
		return f.(addrEncoderFunc)
	}
	real := indirect()
	addrEncoderCache.Store(t, real)
	return real
}

// hasMarshaler reports whether encoding/json would use a method of t or *t.
func hasMarshaler(t reflect.Type) bool {
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) || implementsExtra(t) {
		return true
	}
	if t.Kind() == reflect.Pointer {
		return false
	}
	p := reflect.PointerTo(t)
	return p.Implements(marshalerType) || p.Implements(textMarshalerType) || implementsExtra(p)
}

func newAddrEncoder(t reflect.Type, quoted bool) addrEncoderFunc {
	if hasMarshaler(t) || t == numberType {
		return bridge(t, newTypeEncoder(t, true, quoted))
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			v := *(*bool)(p)
			if quoted {
				if v {
					return append(b, `"true"`...), nil
				}
				return append(b, `"false"`...), nil
			}
			if v {
				return append(b, "true"...), nil
			}
			return append(b, "false"...), nil
		}
	case reflect.Int:
		return addrInt[int](quoted)
	case reflect.Int8:
		return addrInt[int8](quoted)
	case reflect.Int16:
		return addrInt[int16](quoted)
	case reflect.Int32:
		return addrInt[int32](quoted)
	case reflect.Int64:
		return addrInt[int64](quoted)
	case reflect.Uint:
		return addrUint[uint](quoted)
	case reflect.Uint8:
		return addrUint[uint8](quoted)
	case reflect.Uint16:
		return addrUint[uint16](quoted)
	case reflect.Uint32:
		return addrUint[uint32](quoted)
	case reflect.Uint64:
		return addrUint[uint64](quoted)
	case reflect.Uintptr:
		return addrUint[uintptr](quoted)
	case reflect.Float32:
		return addrFloat[float32](32, quoted)
	case reflect.Float64:
		return addrFloat[float64](64, quoted)
	case reflect.String:
		if quoted {
			return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
				s.tmp = appendString(s.tmp[:0], *(*string)(p))
				return appendString(b, s.tmp), nil
			}
		}
		return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			return appendString(b, *(*string)(p)), nil
		}
	case reflect.Struct:
		if enc := newAddrStructEncoder(t); enc != nil {
			return enc
		}
	case reflect.Slice:
		return newAddrSliceEncoder(t)
	case reflect.Array:
		elems, n := sliceElems{addrEncoder(t.Elem()), t.Elem().Size()}, t.Len()
		return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			return elems.encode(s, b, p, n) // p, an array's address, is never nil
		}
	case reflect.Pointer:
		var elem addrEncoderFunc
		if quoted {
			elem = newAddrEncoder(t.Elem(), true)
		} else {
			elem = addrEncoder(t.Elem())
		}
		return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			ptr := *(*unsafe.Pointer)(p)
			if ptr == nil {
				return append(b, "null"...), nil
			}
			if s.depth++; s.depth > maxDepth {
				return b, errFallback
			}
			b, err := elem(s, b, ptr)
			s.depth--
			return b, err
		}
	}
	return bridge(t, newTypeEncoder(t, true, quoted))
}

// bridge hands the value at p to a reflect encoder, addressable.
func bridge(t reflect.Type, enc encoderFunc) addrEncoderFunc {
	return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		return enc(s, b, reflect.NewAt(t, p).Elem())
	}
}

func addrInt[T int | int8 | int16 | int32 | int64](quoted bool) addrEncoderFunc {
	if quoted {
		return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			return append(appendInt(append(b, '"'), int64(*(*T)(p))), '"'), nil
		}
	}
	return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		return appendInt(b, int64(*(*T)(p))), nil
	}
}

func addrUint[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](quoted bool) addrEncoderFunc {
	if quoted {
		return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			return append(appendUint(append(b, '"'), uint64(*(*T)(p))), '"'), nil
		}
	}
	return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		return appendUint(b, uint64(*(*T)(p))), nil
	}
}

func addrFloat[T float32 | float64](bits int, quoted bool) addrEncoderFunc {
	return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		f := float64(*(*T)(p))
		if f-f != 0 { // NaN or ±Inf
			return b, errFallback
		}
		if quoted {
			return append(appendFloat(append(b, '"'), f, bits), '"'), nil
		}
		return appendFloat(b, f, bits), nil
	}
}

// sliceHeader is the layout of a slice (see reflect.SliceHeader).
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

func newAddrSliceEncoder(t reflect.Type) addrEncoderFunc {
	if t.Elem().Kind() == reflect.Uint8 && !hasMarshaler(t.Elem()) {
		return func(_ *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			h := (*sliceHeader)(p)
			if h.data == nil {
				return append(b, "null"...), nil
			}
			b = append(b, '"')
			b = base64.StdEncoding.AppendEncode(b, unsafe.Slice((*byte)(h.data), h.len))
			return append(b, '"'), nil
		}
	}
	se := sliceElems{addrEncoder(t.Elem()), t.Elem().Size()}
	return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		h := (*sliceHeader)(p)
		return se.encode(s, b, h.data, h.len)
	}
}

// sliceElems encodes a slice from its data pointer and length: nil data
// is a nil slice.
type sliceElems struct {
	elem addrEncoderFunc
	size uintptr
}

func (se sliceElems) encode(s *state, b []byte, data unsafe.Pointer, n int) ([]byte, error) {
	if data == nil {
		return append(b, "null"...), nil
	}
	if s.depth++; s.depth > maxDepth {
		return b, errFallback
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = se.elem(s, b, unsafe.Add(data, uintptr(i)*se.size)); err != nil {
			return b, err
		}
	}
	s.depth--
	return append(b, ']'), nil
}

type addrField struct {
	prefix    string // `,"name":`; the comma becomes '{' for the first member
	offset    uintptr
	kind      scalarKind
	enc       addrEncoderFunc
	omitEmpty bool
	omitZero  bool
	typ       reflect.Type
	isZero    func(reflect.Value) bool
}

// newAddrStructEncoder compiles t's fields to offsets, or returns nil when a
// field is promoted through an embedded pointer, which may be nil, or when
// typeFields leaves t to encoding/json.
func newAddrStructEncoder(t reflect.Type) addrEncoderFunc {
	resolved, ok := typeFields(t)
	if !ok {
		return nil
	}
	fields := make([]addrField, len(resolved))
	omits := false
	for i, f := range resolved {
		var offset uintptr
		ft := t
		for _, x := range f.index {
			if ft.Kind() == reflect.Pointer {
				return nil
			}
			sf := ft.Field(x)
			offset += sf.Offset
			ft = sf.Type
		}
		af := addrField{
			prefix:    "," + f.prefix,
			offset:    offset,
			omitEmpty: f.omitEmpty,
			omitZero:  f.omitZero,
			typ:       ft,
			isZero:    f.isZero,
		}
		if f.quoted {
			af.enc = newAddrEncoder(ft, true)
		} else {
			af.enc = addrEncoder(ft)
			af.kind = scalarKindOf(ft)
		}
		omits = omits || f.omitEmpty || f.omitZero
		fields[i] = af
	}
	if len(fields) == 0 {
		return func(_ *state, b []byte, _ unsafe.Pointer) ([]byte, error) {
			return append(b, "{}"...), nil
		}
	}
	if !omits {
		// Every member is written: no bookkeeping of the first one.
		return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
			if s.depth++; s.depth > maxDepth {
				return b, errFallback
			}
			start := len(b)
			for i := range fields {
				f := &fields[i]
				b = append(b, f.prefix...)
				var err error
				if b, err = f.encode(s, b, unsafe.Add(p, f.offset)); err != nil {
					return b, err
				}
			}
			s.depth--
			b[start] = '{'
			return append(b, '}'), nil
		}
	}
	return func(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
		if s.depth++; s.depth > maxDepth {
			return b, errFallback
		}
		start := len(b)
		for i := range fields {
			f := &fields[i]
			fp := unsafe.Add(p, f.offset)
			if (f.omitEmpty || f.omitZero) && f.omitted(fp) {
				continue
			}
			b = append(b, f.prefix...)
			var err error
			if b, err = f.encode(s, b, fp); err != nil {
				return b, err
			}
		}
		s.depth--
		if len(b) == start {
			return append(b, "{}"...), nil
		}
		b[start] = '{'
		return append(b, '}'), nil
	}
}

// scalarKind names the field types a struct encoder writes inline, saving
// a call per field on the common kinds.
type scalarKind uint8

const (
	otherKind scalarKind = iota
	stringKind
	float64Kind
	intKind
	boolKind
)

func scalarKindOf(t reflect.Type) scalarKind {
	if hasMarshaler(t) || t == numberType {
		return otherKind
	}
	switch t.Kind() {
	case reflect.String:
		return stringKind
	case reflect.Float64:
		return float64Kind
	case reflect.Int:
		return intKind
	case reflect.Bool:
		return boolKind
	}
	return otherKind
}

func (f *addrField) encode(s *state, b []byte, p unsafe.Pointer) ([]byte, error) {
	switch f.kind {
	case stringKind:
		return appendString(b, *(*string)(p)), nil
	case float64Kind:
		v := *(*float64)(p)
		if v-v != 0 { // NaN or ±Inf
			return b, errFallback
		}
		return appendFloat(b, v, 64), nil
	case intKind:
		return appendInt(b, int64(*(*int)(p))), nil
	case boolKind:
		if *(*bool)(p) {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	}
	return f.enc(s, b, p)
}

// omitted applies omitempty and omitzero through reflect: rare enough.
func (f *addrField) omitted(p unsafe.Pointer) bool {
	fv := reflect.NewAt(f.typ, p).Elem()
	return (f.omitEmpty && isEmptyValue(fv)) ||
		(f.omitZero && (f.isZero == nil && fv.IsZero() || (f.isZero != nil && f.isZero(fv))))
}
