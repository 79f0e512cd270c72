//go:build goexperiment.jsonv2

// The rules of encoding/json when it is the v1 emulation of encoding/json/v2
// (the default from Go 1.27; see jsonv2_prerelease.go for earlier ones) that differ from
// the classic encoder's (jsonv1.go), as its Encoder with SetEscapeHTML(false)
// applies them:
//
//   - invalid UTF-8 in strings becomes U+FFFD written as is, not \ufffd;
//   - MarshalJSON output is compacted with strings kept as written, except
//     that U+2028 and U+2029 are escaped (json.Compact no longer escapes
//     them), and it fails beyond 10000 levels of nesting counted from the
//     top of the whole value;
//   - AppendText (encoding.TextAppender) is preferred to MarshalText, and
//     MarshalJSONTo (encoding/json/v2's MarshalerTo) to MarshalJSON;
//   - a value of interface type is encoded as its dynamic value;
//   - json tags are read by encoding/json/v2's parser: a name is everything
//     up to a comma, quote or backslash, or else the leading identifier
//     (`json:"a\"b"` names the member "a"); options are identifiers;
//     `json:",embed"` inlines the field; `format:` makes the struct fail;
//     an unexported embedded struct given a name is skipped when it has
//     marshaling methods;
//   - maps with keys other than strings, integers and text marshalers are
//     written when nil (null) or empty ({}), and may be with floats,
//     pointers or interfaces as keys.
//
// The compiled encoders reproduce all of it, except that some rare values
// are left to encoding/json itself, which encodes the whole value (falling
// back is always exact, only slower): types with a MarshalJSONTo method
// other than json.Number's, non-empty maps of those other key types, structs
// with a `format:` option or an `embed` option on a non-struct field, a
// non-nil interface holding a nil pointer when the interface type has a
// marshaling method, and MarshalJSON output too deeply nested for its place.

package encode

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// jsonv2Rules tells the tests which rules apply.
const jsonv2Rules = true

// invalidUTF8 replaces each byte of invalid UTF-8 in strings.
const invalidUTF8 = "\ufffd"

var textAppenderType = reflect.TypeFor[encoding.TextAppender]()

// The methods of encoding/json/v2's MarshalerTo and UnmarshalerFrom, found
// on json.Number: the interfaces themselves are API of Go 1.27, which a
// go 1.26 module cannot name even when GOEXPERIMENT=jsonv2 provides them.
var (
	marshalJSONTo     = numberMethod(reflect.TypeFor[json.Number](), "MarshalJSONTo")
	unmarshalJSONFrom = numberMethod(reflect.TypeFor[*json.Number](), "UnmarshalJSONFrom")
)

// method is a method func(arg) error.
type method struct {
	name string
	arg  reflect.Type
}

func numberMethod(t reflect.Type, name string) method {
	m, ok := t.MethodByName(name)
	if !ok {
		panic("encode: " + t.String() + " has no method " + name)
	}
	return method{name, m.Type.In(1)}
}

var errorType = reflect.TypeFor[error]()

// implementedBy reports whether t's method set has m.
func (m method) implementedBy(t reflect.Type) bool {
	mt, ok := t.MethodByName(m.name)
	if !ok {
		return false
	}
	recv := 1 // the receiver comes first, except for interface types
	if t.Kind() == reflect.Interface {
		recv = 0
	}
	return mt.Type.NumIn() == recv+1 && mt.Type.In(recv) == m.arg &&
		mt.Type.NumOut() == 1 && mt.Type.Out(0) == errorType
}

// implementsMarshaler reports whether t implements one of encoding/json/v2's
// marshaler interfaces (allMarshalerTypes).
func implementsMarshaler(t reflect.Type) bool {
	return marshalJSONTo.implementedBy(t) || t.Implements(marshalerType) ||
		t.Implements(textAppenderType) || t.Implements(textMarshalerType)
}

// implementsMethods reports whether t or *t has a method of encoding/json/v2's
// marshaler or unmarshaler interfaces (implementsAny(t, allMethodTypes...)).
func implementsMethods(t reflect.Type) bool {
	for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
		if implementsMarshaler(t) || unmarshalJSONFrom.implementedBy(t) ||
			t.Implements(reflect.TypeFor[json.Unmarshaler]()) || t.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			return true
		}
	}
	return false
}

// implementsMarshalerTo reports whether encoding/json calls MarshalJSONTo
// on values of t (or their address), or, for a pointer type, on its
// element: encoding/json/v2 reaches the methods of pointer and interface
// types through their element or dynamic value only.
func implementsMarshalerTo(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return false
	case reflect.Pointer:
		return marshalJSONTo.implementedBy(t)
	}
	return marshalJSONTo.implementedBy(reflect.PointerTo(t))
}

// implementsExtra reports whether t has methods encoding/json calls besides
// MarshalJSON and MarshalText.
func implementsExtra(t reflect.Type) bool {
	return marshalJSONTo.implementedBy(t) || t.Implements(textAppenderType)
}

// newTextAppenderEncoder returns the encoder of types with AppendText,
// which takes precedence over MarshalText, or nil.
func newTextAppenderEncoder(t reflect.Type, allowAddr, quoted bool) encoderFunc {
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(textAppenderType) {
		return condAddrEncoder(addrTextAppenderEncoder, newTypeEncoder(t, false, quoted))
	}
	if t.Implements(textAppenderType) {
		return textAppenderEncoder
	}
	return nil
}

// newInterfaceEncoder encodes the dynamic value, as encoding/json/v2 does
// for every interface type, whatever its methods. For a nil pointer in an
// interface type that has a marshaling method, the v1 emulation calls that
// method in its own way: left to encoding/json.
func newInterfaceEncoder(t reflect.Type) encoderFunc {
	methods := implementsMarshaler(t)
	return func(s *state, b []byte, v reflect.Value) ([]byte, error) {
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		e := v.Elem()
		if methods && e.Kind() == reflect.Pointer && e.IsNil() {
			return b, errFallback
		}
		return typeEncoder(e.Type())(s, b, e)
	}
}

func textAppenderEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return append(b, "null"...), nil
	}
	a, ok := reflect.TypeAssert[encoding.TextAppender](v)
	if !ok {
		return append(b, "null"...), nil
	}
	return s.appendText(b, a)
}

func addrTextAppenderEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	a, _ := reflect.TypeAssert[encoding.TextAppender](v.Addr())
	return s.appendText(b, a)
}

func (s *state) appendText(b []byte, a encoding.TextAppender) ([]byte, error) {
	text, err := a.AppendText(s.tmp[:0])
	if err != nil {
		return b, errFallback
	}
	s.tmp = text
	return appendString(b, text), nil
}

// maxNesting is encoding/json/v2's limit on the nesting of the output.
const maxNesting = 10000

// appendRawValue appends the output of a MarshalJSON method as the Encoder
// writes it: compacted, strings as written but for U+2028 and U+2029, which
// the Encoder escapes and json.Compact no longer does.
func (s *state) appendRawValue(b, raw []byte) ([]byte, error) {
	s.scratch.Reset()
	if err := json.Compact(&s.scratch, raw); err != nil {
		return b, errFallback
	}
	out := s.scratch.Bytes()
	// The Encoder counts the nesting of the whole output, Compact only
	// that of raw; s.depth is at least the nesting around raw. A value
	// nested d deep is at least 2d bytes long.
	if room := maxNesting - s.depth - 1; len(out) >= 2*room && rawNesting(out) >= room {
		return b, errFallback
	}
	// In compact JSON these bytes can only be inside strings.
	for {
		i := strings.Index(string(out), "\u2028")
		j := strings.Index(string(out), "\u2029")
		if i < 0 || (j >= 0 && j < i) {
			i = j
		}
		if i < 0 {
			break
		}
		b = append(b, out[:i]...)
		b = append(b, '\\', 'u', '2', '0', '2', hex[out[i+2]&0xF])
		out = out[i+len("\u2028"):]
	}
	return append(b, out...), nil
}

// rawNesting is the deepest nesting of arrays and objects in valid JSON.
func rawNesting(v []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range v {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// isTextKey reports whether map keys of type t, of a kind other than string
// and integers, are written through AppendText or MarshalText. The keys of
// pointer and interface types follow other rules: left to encoding/json.
func isTextKey(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		return false
	}
	return t.Implements(textAppenderType) || t.Implements(textMarshalerType)
}

// keyText is the name of map key k written through AppendText or
// MarshalText, if it has either.
func keyText(k reflect.Value) (string, bool, error) {
	if a, ok := reflect.TypeAssert[encoding.TextAppender](k); ok {
		text, err := a.AppendText(nil)
		return string(text), true, err
	}
	if tm, ok := reflect.TypeAssert[encoding.TextMarshaler](k); ok {
		text, err := tm.MarshalText()
		return string(text), true, err
	}
	return "", false, nil
}

// otherKeyMapEncoder encodes maps whose keys are neither strings, integers
// nor text: null or {} when nil or empty; encoding/json writes others
// (floats, pointers...) or fails (bools, structs...) member by member.
func otherKeyMapEncoder(_ *state, b []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		return append(b, "null"...), nil
	}
	if v.Len() == 0 {
		return append(b, "{}"...), nil
	}
	return b, errFallback
}

// parseJSONTag reads a field's json tag as encoding/json/v2's
// parseFieldOptions does (its errors are ignored by the v1 emulation).
func parseJSONTag(tag string) (jt jsonTag) {
	if len(tag) > 0 && !strings.HasPrefix(tag, ",") {
		// Almost any unescaped name: up to a comma, quote or backslash.
		n := len(tag) - len(strings.TrimLeftFunc(tag, func(r rune) bool {
			return !strings.ContainsRune(",\\'\"`", r)
		}))
		name := tag[:n]
		ok := true
		// Not followed by a comma: malformed, the leading identifier if any.
		if !strings.HasPrefix(tag[n:], ",") && len(name) != len(tag) {
			name, n, ok = consumeTagOption(tag, false)
		}
		if !utf8.ValidString(name) {
			name = string([]rune(name))
		}
		if ok {
			jt.name = name
		}
		tag = tag[n:]
	}
	for len(tag) > 0 {
		if tag[0] == ',' {
			tag = tag[len(","):]
			if len(tag) == 0 {
				break
			}
		}
		opt, n, _ := consumeTagOption(tag, false)
		tag = tag[n:]
		switch opt {
		case "case":
			if !strings.HasPrefix(tag, ":") {
				break
			}
			tag = tag[len(":"):]
			_, n, ok := consumeTagOption(tag, false)
			if !ok {
				break
			}
			tag = tag[n:]
		case "embed":
			jt.embed = true
		case "omitzero":
			jt.omitZero = true
		case "omitempty":
			jt.omitEmpty = true
		case "string":
			jt.quoted = true
		case "format":
			if !strings.HasPrefix(tag, ":") {
				break
			}
			tag = tag[len(":"):]
			opt, n, ok := consumeTagOption(tag, true)
			if !ok || opt == "" {
				break
			}
			tag = tag[n:]
			// Marshaling the struct fails: unsupported `format` tag option.
			jt.fallback = true
		}
	}
	return jt
}

// consumeTagOption is encoding/json/v2's: a Go identifier, or a single-quoted
// string if allowed; otherwise everything up to the next comma and false.
func consumeTagOption(in string, allowQuoted bool) (string, int, bool) {
	i := strings.IndexByte(in, ',')
	if i < 0 {
		i = len(in)
	}
	switch r, _ := utf8.DecodeRuneInString(in); {
	case r == '_' || unicode.IsLetter(r):
		n := len(in) - len(strings.TrimLeftFunc(in, isLetterOrDigit))
		return in[:n], n, true
	case r == '\'' && allowQuoted:
		var inEscape bool
		b := []byte{'"'}
		n := len(`'`)
		for len(in) > n {
			r, rn := utf8.DecodeRuneInString(in[n:])
			switch {
			case inEscape:
				if r == '\'' {
					b = b[:len(b)-1]
				}
				inEscape = false
			case r == '\\':
				inEscape = true
			case r == '"':
				b = append(b, '\\')
			case r == '\'':
				b = append(b, '"')
				n += len(`'`)
				out, err := strconv.Unquote(string(b))
				if err != nil {
					return in[:i], i, false
				}
				return out, n, true
			}
			b = append(b, in[n:][:rn]...)
			n += rn
		}
		return in[:i], i, false
	default:
		return in[:i], i, false
	}
}

func isLetterOrDigit(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// skipField reports whether encoding/json/v2 leaves out a field typeFields
// keeps: an unexported embedded struct given a name, whose methods cannot
// be called.
func skipField(sf reflect.StructField, ft reflect.Type, jt jsonTag) bool {
	if sf.IsExported() {
		return false
	}
	return implementsMethods(ft) ||
		jt.omitZero && (ft.Implements(isZeroerType) || reflect.PointerTo(ft).Implements(isZeroerType))
}
