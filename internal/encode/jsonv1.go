//go:build !goexperiment.jsonv2

// The rules of the classic encoding/json (Go 1.26 and older, or
// GOEXPERIMENT=nojsonv2) that its v1 emulation in encoding/json/v2 changed;
// jsonv2.go has the other side.

package encode

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// jsonv2Rules tells the tests which rules apply.
const jsonv2Rules = false

// invalidUTF8 replaces each byte of invalid UTF-8 in strings.
const invalidUTF8 = `\ufffd`

// implementsMarshalerTo: only encoding/json/v2 calls MarshalJSONTo.
func implementsMarshalerTo(reflect.Type) bool { return false }

// implementsExtra reports whether t has methods encoding/json calls besides
// MarshalJSON and MarshalText: none.
func implementsExtra(reflect.Type) bool { return false }

// newInterfaceEncoder: values of interface types follow the same rules as
// others (newTypeEncoder), then are encoded as their dynamic value.
func newInterfaceEncoder(reflect.Type) encoderFunc { return nil }

// newTextAppenderEncoder: AppendText is not called.
func newTextAppenderEncoder(reflect.Type, bool, bool) encoderFunc { return nil }

// appendRawValue appends the output of a MarshalJSON method compacted, as
// encoding/json does: Compact is its compaction without HTML escaping, and
// it escapes U+2028 and U+2029 too.
func (s *state) appendRawValue(b, raw []byte) ([]byte, error) {
	s.scratch.Reset()
	if err := json.Compact(&s.scratch, raw); err != nil {
		return b, errFallback
	}
	return append(b, s.scratch.Bytes()...), nil
}

// isTextKey reports whether map keys of type t, of a kind other than string
// and integers, are written through MarshalText.
func isTextKey(t reflect.Type) bool { return t.Implements(textMarshalerType) }

// keyText is the name of map key k written through MarshalText, if it has
// the method.
func keyText(k reflect.Value) (string, bool, error) {
	tm, ok := reflect.TypeAssert[encoding.TextMarshaler](k)
	if !ok {
		return "", false, nil
	}
	if k.Kind() == reflect.Pointer && k.IsNil() {
		return "", true, nil
	}
	buf, err := tm.MarshalText()
	return string(buf), true, err
}

// otherKeyMapEncoder encodes maps whose keys are neither strings, integers
// nor text: an unsupported type.
func otherKeyMapEncoder(s *state, b []byte, v reflect.Value) ([]byte, error) {
	return unsupportedEncoder(s, b, v)
}

// parseJSONTag reads a field's json tag as encoding/json's typeFields: a
// name with characters outside letters, digits and some punctuation names
// no member, options are exact words between commas.
func parseJSONTag(tag string) jsonTag {
	name, opts := parseTag(tag)
	if !isValidTag(name) {
		name = ""
	}
	return jsonTag{
		name:      name,
		omitEmpty: opts.contains("omitempty"),
		omitZero:  opts.contains("omitzero"),
		quoted:    opts.contains("string"),
	}
}

// skipField: encoding/json encodes every field typeFields keeps.
func skipField(reflect.StructField, reflect.Type, jsonTag) bool { return false }

func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quote chars are reserved, but
			// otherwise any punctuation chars are allowed
			// in a tag name.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

type tagOptions string

func parseTag(tag string) (string, tagOptions) {
	tag, opt, _ := strings.Cut(tag, ",")
	return tag, tagOptions(opt)
}

func (o tagOptions) contains(name string) bool {
	s := string(o)
	for s != "" {
		var opt string
		opt, s, _ = strings.Cut(s, ",")
		if opt == name {
			return true
		}
	}
	return false
}
