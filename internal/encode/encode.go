// Package encode writes tool results as compact JSON, byte for byte as
// encoding/json's Encoder with SetEscapeHTML(false) does, but through an
// encoder compiled once per Go type.
//
// The reference is the encoding/json the program is built with, whichever
// that is. Go 1.27 made the encoding/json v2 implementation the default
// (GOEXPERIMENT=jsonv2; GOEXPERIMENT=nojsonv2 restores the classic one, and
// Go 1.25 and 1.26 accept GOEXPERIMENT=jsonv2), and its v1 emulation writes
// some values differently. The rules that differ live in two files selected
// by the goexperiment.jsonv2 build tag: jsonv1.go follows the classic
// encoder, jsonv2.go the v1 emulation of encoding/json/v2.
//
// The compiled encoders mirror encoding/json's encoders rule for rule, using
// the same reflect operations so that addressability, and with it the choice
// between pointer- and value-receiver marshalers, is the same. Whenever a
// value cannot be encoded (unsupported type or value, a failing MarshalJSON
// or MarshalText, invalid output of MarshalJSON), nests deeper than
// encoding/json's cycle detection threshold, or needs a rule the compiled
// encoders do not reproduce (listed in jsonv2.go), the whole value is
// encoded again by encoding/json itself, so errors, their types and cycle
// detection are exactly encoding/json's.
package encode

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// String returns v as compact JSON, exactly as encoding/json's Encoder with
// SetEscapeHTML(false) writes it (without the trailing newline).
// Errors are those encoding/json would return (unsupported type or value, a
// MarshalJSON error...), same messages.
func String(v any) (string, error) {
	if preReleaseV2 {
		return reference(v)
	}
	s := statePool.Get().(*state)
	err := s.encode(v)
	var out string
	if err == nil {
		out = string(s.buf)
	}
	s.release()
	if err != nil {
		// Let encoding/json decide: it returns the error it would have
		// returned anyway, or encodes values we gave up on (deep nesting).
		return reference(v)
	}
	return out, nil
}

// preReleaseV2 is set when encoding/json is a pre-release of the v2
// implementation (GOEXPERIMENT=jsonv2 before Go 1.27), whose rules differ
// from those of jsonv2.go: String then leaves every value to encoding/json.
var preReleaseV2 bool

// errFallback makes String hand the whole value to encoding/json.
var errFallback = errors.New("encode: fall back to encoding/json")

// maxDepth bounds the nesting of pointers, maps, slices, arrays and structs,
// below encoding/json's startDetectingCyclesAfter (pointers, maps and
// slices): beyond it encoding/json starts tracking pointers to detect
// cycles, which we leave to it. Counting arrays and structs too keeps the
// output far below the nesting limit of encoding/json/v2 (10000 levels).
const maxDepth = 1000

// state is the per-call scratch space, pooled.
type state struct {
	buf     []byte
	depth   int
	tmp     []byte
	scratch bytes.Buffer
	entries []mapEntry
}

type mapEntry struct {
	key string
	val reflect.Value
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// encode leaves v's JSON in s.buf.
func (s *state) encode(v any) error {
	s.depth = 0
	if v == nil {
		s.buf = append(s.buf[:0], "null"...)
		return nil
	}
	b, err := topEncoder(reflect.TypeOf(v))(s, s.buf[:0], v)
	s.buf = b
	return err
}

func (s *state) release() {
	if s.reset() {
		statePool.Put(s)
	}
}

// reset readies s for the next encode and reports whether its buffers are
// worth keeping: only modest ones are, so that one huge result does not
// stay pinned; others are dropped.
func (s *state) reset() bool {
	// Map encoders clear their entries, except when giving up midway:
	// drop the references to encoded values.
	clear(s.entries)
	s.entries = s.entries[:0]
	if cap(s.buf) > 64<<10 || cap(s.tmp) > 64<<10 || s.scratch.Cap() > 64<<10 || cap(s.entries) > 1024 {
		*s = state{}
		return false
	}
	return true
}

type refEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var refPool = sync.Pool{New: func() any {
	e := &refEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// reference encodes v with encoding/json, as the fallback.
func reference(v any) (string, error) {
	e := refPool.Get().(*refEncoder)
	defer func() {
		if e.buf.Cap() <= 64<<10 {
			e.buf.Reset()
			refPool.Put(e)
		}
	}()
	if err := e.enc.Encode(v); err != nil {
		e.buf.Reset()
		return "", err
	}
	return string(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))), nil
}

// encoderFunc appends the JSON of v to b. The buffer is passed along
// rather than kept in state: no write barriers, and it stays in registers.
type encoderFunc func(s *state, b []byte, v reflect.Value) ([]byte, error)

var encoderCache sync.Map // map[reflect.Type]encoderFunc

// typeEncoder returns the cached encoder of t, compiling it on first use.
// As in encoding/json, a recursive type first gets an indirect encoder that
// waits for the real one, so compilation terminates.
func typeEncoder(t reflect.Type) encoderFunc {
	if f, ok := encoderCache.Load(t); ok {
		return f.(encoderFunc)
	}
	indirect := sync.OnceValue(func() encoderFunc {
		return newTypeEncoder(t, true, false)
	})
	f, loaded := encoderCache.LoadOrStore(t, encoderFunc(func(s *state, b []byte, v reflect.Value) ([]byte, error) {
		return indirect()(s, b, v)
	}))
	if loaded {
		return f.(encoderFunc)
	}
	real := indirect()
	encoderCache.Store(t, real)
	return real
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
)

// newTypeEncoder follows encoding/json's newTypeEncoder. quoted is the
// ",string" field option; it only ever reaches basic kinds, possibly through
// one pointer, so quoted encoders are built uncached.
func newTypeEncoder(t reflect.Type, allowAddr, quoted bool) encoderFunc {
	if t.Kind() == reflect.Interface {
		if enc := newInterfaceEncoder(t); enc != nil {
			return enc
		}
	}
	if t != numberType && implementsMarshalerTo(t) {
		if t.Kind() == reflect.Pointer {
			// Through the element, whose method it is.
			return newKindEncoder(t, quoted)
		}
		return unsupportedEncoder
	}
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(marshalerType) {
		return condAddrEncoder(addrMarshalerEncoder, newTypeEncoder(t, false, quoted))
	}
	if t.Implements(marshalerType) {
		return marshalerEncoder
	}
	if enc := newTextAppenderEncoder(t, allowAddr, quoted); enc != nil {
		return enc
	}
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(textMarshalerType) {
		return condAddrEncoder(addrTextMarshalerEncoder, newTypeEncoder(t, false, quoted))
	}
	if t.Implements(textMarshalerType) {
		return textMarshalerEncoder
	}
	return newKindEncoder(t, quoted)
}

// newKindEncoder is newTypeEncoder once methods are ruled out.
func newKindEncoder(t reflect.Type, quoted bool) encoderFunc {
	switch t.Kind() {
	case reflect.Bool:
		if quoted {
			return quotedBoolEncoder
		}
		return boolEncoder
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if quoted {
			return quotedIntEncoder
		}
		return intEncoder
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if quoted {
			return quotedUintEncoder
		}
		return uintEncoder
	case reflect.Float32:
		return floatEncoder(32, quoted)
	case reflect.Float64:
		return floatEncoder(64, quoted)
	case reflect.String:
		if t == numberType {
			return numberEncoder(quoted)
		}
		if quoted {
			return quotedStringEncoder
		}
		return stringEncoder
	case reflect.Interface:
		return interfaceEncoder
	case reflect.Struct:
		return newStructEncoder(t)
	case reflect.Map:
		return newMapEncoder(t)
	case reflect.Slice:
		return newSliceEncoder(t)
	case reflect.Array:
		return newArrayEncoder(t)
	case reflect.Pointer:
		if quoted {
			return newPtrEncoder(newAddrEncoder(t.Elem(), true))
		}
		return newPtrEncoder(addrEncoder(t.Elem()))
	default:
		return unsupportedEncoder
	}
}

func unsupportedEncoder(_ *state, b []byte, _ reflect.Value) ([]byte, error) { return b, errFallback }

func condAddrEncoder(canAddr, other encoderFunc) encoderFunc {
	return func(s *state, b []byte, v reflect.Value) ([]byte, error) {
		if v.CanAddr() {
			return canAddr(s, b, v)
		}
		return other(s, b, v)
	}
}

func marshalerEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		b = append(b, "null"...)
		return b, nil
	}
	m, ok := reflect.TypeAssert[json.Marshaler](v)
	if !ok {
		b = append(b, "null"...)
		return b, nil
	}
	return s.marshalJSON(b, m)
}

func addrMarshalerEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	m, _ := reflect.TypeAssert[json.Marshaler](v.Addr())
	return s.marshalJSON(b, m)
}

// marshalJSON appends m's output as encoding/json does (see appendRawValue).
func (s *state) marshalJSON(b []byte, m json.Marshaler) ([]byte, error) {
	out, err := m.MarshalJSON()
	if err != nil {
		return b, errFallback
	}
	return s.appendRawValue(b, out)
}

func textMarshalerEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		b = append(b, "null"...)
		return b, nil
	}
	m, ok := reflect.TypeAssert[encoding.TextMarshaler](v)
	if !ok {
		b = append(b, "null"...)
		return b, nil
	}
	return s.marshalText(b, m)
}

func addrTextMarshalerEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	m, _ := reflect.TypeAssert[encoding.TextMarshaler](v.Addr())
	return s.marshalText(b, m)
}

func (s *state) marshalText(b []byte, m encoding.TextMarshaler) ([]byte, error) {
	text, err := m.MarshalText()
	if err != nil {
		return b, errFallback
	}
	return appendString(b, text), nil
}

func boolEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = strconv.AppendBool(b, v.Bool())
	return b, nil
}

func appendInt(b []byte, i int64) []byte { return strconv.AppendInt(b, i, 10) }

func appendUint(b []byte, u uint64) []byte { return strconv.AppendUint(b, u, 10) }

func quotedBoolEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = append(strconv.AppendBool(append(b, '"'), v.Bool()), '"')
	return b, nil
}

func intEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = strconv.AppendInt(b, v.Int(), 10)
	return b, nil
}

func quotedIntEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = append(strconv.AppendInt(append(b, '"'), v.Int(), 10), '"')
	return b, nil
}

func uintEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = strconv.AppendUint(b, v.Uint(), 10)
	return b, nil
}

func quotedUintEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = append(strconv.AppendUint(append(b, '"'), v.Uint(), 10), '"')
	return b, nil
}

func floatEncoder(bits int, quoted bool) encoderFunc {
	return func(s *state, b []byte, v reflect.Value) ([]byte, error) {
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return b, errFallback
		}
		if quoted {
			b = append(appendFloat(append(b, '"'), f, bits), '"')
		} else {
			b = appendFloat(b, f, bits)
		}
		return b, nil
	}
}

// appendFloat is encoding/json's floatEncoder: ES6 number formatting, 'e'
// only for very small or large magnitudes, with e-07 cleaned up to e-7.
func appendFloat(b []byte, f float64, bits int) []byte {
	abs := math.Abs(f)
	// Fast paths for the common 'f' range, exact as argued below.
	if bits == 64 && abs >= 1e-6 && abs < 1<<50 {
		// An integer below 2^53 is its own shortest representation.
		if f == float64(int64(f)) {
			return appendInt(b, int64(f))
		}
		if out, ok := appendShortDecimal(b, f); ok {
			return out
		}
	} else if bits == 32 && abs >= 1 && abs < 1<<24 && f == float64(int64(f)) {
		return appendInt(b, int64(f))
	}
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// Clean up e-09 to e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// pow10 holds the exactly representable powers of ten used below.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// appendShortDecimal writes the shortest 'f' form of a float64 with at most
// 8 fractional digits, such as 10.25, without the general float formatter.
//
// For k = 1, 2, ... it tries m = round(f·10^k) and accepts m/10^k when that
// parses back to f (m and 10^k are exact, so float64 division is the
// correctly rounded parse). This is the shortest form because, while
// |m| < 2^50: the rounding interval of f is narrower than 10^-k, so it holds
// at most one multiple of 10^-k, the nearest one, which the rounded product
// finds (its error is below 1/4); no coarser multiple (fewer digits, or an
// integer, which would be a float of its own) parses to f, or an earlier k
// would have been accepted; and no short decimal lies exactly halfway
// between two floats (its odd part is too small), so the tie rules agree.
func appendShortDecimal(b []byte, f float64) ([]byte, bool) {
	for k := 1; k < len(pow10); k++ {
		p := f * pow10[k]
		if math.Abs(p) >= 1<<50 {
			return b, false
		}
		// Nearest integer; exact, as |p| < 2^50 has no bits below 1/8.
		var m float64
		if p < 0 {
			m = float64(int64(p - 0.5))
		} else {
			m = float64(int64(p + 0.5))
		}
		// A match has |p-m| within a few ulps of p: skip the division
		// for the many k that are far off.
		if math.Abs(p-m) > math.Abs(p)*0x1p-48 || m/pow10[k] != f {
			continue
		}
		u := uint64(math.Abs(m))
		if u%10 == 0 {
			// Would have been found at k-1; leave the odd case to strconv.
			return b, false
		}
		// Digits right to left: k fractional ones, the point, the rest.
		var buf [24]byte
		i := len(buf)
		for range k {
			i--
			buf[i] = byte('0' + u%10)
			u /= 10
		}
		i--
		buf[i] = '.'
		for {
			i--
			buf[i] = byte('0' + u%10)
			u /= 10
			if u == 0 {
				break
			}
		}
		if f < 0 {
			i--
			buf[i] = '-'
		}
		return append(b, buf[i:]...), true
	}
	return b, false
}

func stringEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	b = appendString(b, v.String())
	return b, nil
}

func quotedStringEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	// The quoted string is the JSON string encoded again as a string.
	s.tmp = appendString(s.tmp[:0], v.String())
	b = appendString(b, s.tmp)
	return b, nil
}

func numberEncoder(quoted bool) encoderFunc {
	return func(s *state, b []byte, v reflect.Value) ([]byte, error) {
		num := v.String()
		if num == "" {
			num = "0" // Number's zero value
		}
		if !jsonnode.ValidNumber(num) {
			return b, errFallback
		}
		if quoted {
			b = append(append(append(b, '"'), num...), '"')
		} else {
			b = append(b, num...)
		}
		return b, nil
	}
}

func interfaceEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		b = append(b, "null"...)
		return b, nil
	}
	e := v.Elem()
	return typeEncoder(e.Type())(s, b, e)
}

// ptrEncoder continues with the addressed encoder of the element.
type ptrEncoder struct{ elem addrEncoderFunc }

func newPtrEncoder(elem addrEncoderFunc) encoderFunc { return ptrEncoder{elem}.encode }

func (pe ptrEncoder) encode(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		b = append(b, "null"...)
		return b, nil
	}
	if s.depth++; s.depth > maxDepth {
		return b, errFallback
	}
	b, err := pe.elem(s, b, v.UnsafePointer())
	if err != nil {
		return b, err
	}
	s.depth--
	return b, nil
}

func newSliceEncoder(t reflect.Type) encoderFunc {
	if t.Elem().Kind() == reflect.Uint8 && !hasMarshaler(t.Elem()) {
		return byteSliceEncoder
	}
	// Slice elements are addressable: continue with addressed encoders.
	se := sliceElems{addrEncoder(t.Elem()), t.Elem().Size()}
	return func(s *state, b []byte, v reflect.Value) ([]byte, error) {
		return se.encode(s, b, v.UnsafePointer(), v.Len())
	}
}

func byteSliceEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		b = append(b, "null"...)
		return b, nil
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v.Bytes())
	b = append(b, '"')
	return b, nil
}

type arrayEncoder struct{ elem encoderFunc }

func newArrayEncoder(t reflect.Type) encoderFunc {
	return arrayEncoder{typeEncoder(t.Elem())}.encode
}

func (ae arrayEncoder) encode(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if s.depth++; s.depth > maxDepth {
		return b, errFallback
	}
	b = append(b, '[')
	n := v.Len()
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = ae.elem(s, b, v.Index(i)); err != nil {
			return b, err
		}
	}
	b = append(b, ']')
	s.depth--
	return b, nil
}

// appendString is encoding/json's appendString with escapeHTML false; the
// replacement of invalid UTF-8 (invalidUTF8) depends on the implementation.
func appendString[Bytes []byte | string](dst []byte, src Bytes) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if b := src[i]; b < utf8.RuneSelf {
			if safeSet[b] {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		n := min(len(src)-i, utf8.UTFMax)
		c, size := utf8.DecodeRuneInString(string(src[i : i+n]))
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, invalidUTF8...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript parsers.
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

const hex = "0123456789abcdef"

// safeSet holds the ASCII bytes written as is inside a JSON string.
var safeSet = func() (set [utf8.RuneSelf]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		set[b] = b != '"' && b != '\\'
	}
	return set
}()
