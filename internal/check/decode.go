package check

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	json2 "github.com/go-json-experiment/json"
	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// Decode checks args and decodes them into target, a non-nil pointer to
// a value of the plan's type. It returns the violations, as Validate
// would; the value is only meaningful when there are none. The value
// shares no memory with args: its strings are copied, most into one
// allocation for the pass (see newString). Any other target is a bug of
// the caller, and panics.
func (p *Plan) Decode(args []byte, target any, durations bool) []Violation {
	v := reflect.ValueOf(target)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Type().Elem() != p.typ {
		panic(fmt.Sprintf("check: Plan.Decode into %T, want a non-nil *%v", target, p.typ))
	}
	return p.decode(args, v.UnsafePointer(), durations)
}

// decode is Decode into ptr, which reflect said points to a value of the
// plan's type.
func (p *Plan) decode(args []byte, ptr unsafe.Pointer, durations bool) []Violation {
	st := getState(args)
	defer putState(st)
	st.durations = durations
	return st.finish(st.decode(p, ptr, 0))
}

// decode reads the next value into ptr. On a violation it records it and
// skips the value; an error means malformed JSON.
func (st *state) decode(p *Plan, ptr unsafe.Pointer, depth int) error {
	if depth > MaxDepth {
		return st.syntax("nesting deeper than %d levels", MaxDepth)
	}
	st.ws()
	if st.pos >= len(st.data) {
		return st.syntax("unexpected end of input")
	}
	c := st.data[st.pos]
	switch p.kind {
	case dFallback:
		return st.fallback(p, ptr, depth)
	case dPtr:
		if c == 'n' {
			before := len(st.violations)
			if err := st.value(p.check, depth); err != nil || len(st.violations) > before {
				return err
			}
			reflect.NewAt(p.typ, ptr).Elem().SetZero()
			return nil
		}
		elem := reflect.New(p.typ.Elem())
		reflect.NewAt(p.typ, ptr).Elem().Set(elem)
		return st.decode(p.elem, elem.UnsafePointer(), depth)
	case dStruct, dSlice, dMap:
		open, bit := byte('{'), tObject
		if p.kind == dSlice {
			open, bit = '[', tArray
		}
		if c != open {
			return st.mismatch(p, ptr, c, depth)
		}
		if p.check != nil && p.check.never {
			return st.value(p.check, depth)
		}
		if p.check != nil && !st.typeOK(p.check, bit, c) {
			return st.value1(nil, depth)
		}
		switch p.kind {
		case dStruct:
			return st.decodeStruct(p, ptr, depth)
		case dSlice:
			return st.decodeSlice(p, ptr, depth)
		}
		return st.decodeMap(p, ptr, depth)
	}
	if p.simple {
		switch {
		case p.kind == dString && c == '"':
			return st.decodeString(p, ptr)
		case p.kind >= dInt && p.kind <= dFloat && (c == '-' || '0' <= c && c <= '9'):
			return st.decodeNumber(p, ptr)
		case p.kind == dBool && (c == 't' || c == 'f'):
			return st.decodeBool(p, ptr, c)
		}
	}
	// Scalars: check with the schema, then store.
	start := st.pos
	before := len(st.violations)
	if err := st.value(p.check, depth); err != nil || len(st.violations) > before {
		return err
	}
	raw := st.data[start:st.pos]
	if c == 'n' {
		reflect.NewAt(p.typ, ptr).Elem().SetZero()
		return nil
	}
	// Rule: (*T)(p) to the bool or string type reflect says is there.
	switch p.kind {
	case dBool:
		if c != 't' && c != 'f' {
			st.fail("type", "expected boolean, got "+jsonnode.Kind(c))
			return nil
		}
		*(*bool)(ptr) = c == 't'
	case dString:
		if c != '"' {
			st.fail("type", "expected string, got "+jsonnode.Kind(c))
			return nil
		}
		s := raw[1 : len(raw)-1]
		switch {
		case st.escaped:
			*(*string)(ptr) = st.unescapeString(s)
		case p.check != nil && p.check.enum != nil:
			*(*string)(ptr) = enumString(p.check, s)
		default:
			*(*string)(ptr) = st.newString(s)
		}
	case dInt, dUint, dFloat:
		if c != '-' && (c < '0' || c > '9') {
			st.fail("type", "expected "+jsonTypeName(p.typ)+", got "+jsonnode.Kind(c))
			return nil
		}
		st.storeNumber(p, ptr, raw)
	}
	return nil
}

// decodeString is decode for a string where the plan wants one, with a
// schema without subschemas: value1's checks of strings, then the store.
func (st *state) decodeString(p *Plan, ptr unsafe.Pointer) error {
	start := st.pos
	escaped, err := st.str()
	if err != nil {
		return err
	}
	s := st.data[start+1 : st.pos-1]
	var v string
	if escaped {
		v = st.unescapeString(s)
	}
	if n := p.check; n != nil {
		if !st.typeOK(n, tString, '"') {
			return nil
		}
		if n.enum != nil || n.pattern != nil || n.minLen >= 0 || n.maxLen >= 0 || n.format != fmtNone {
			before := len(st.violations)
			if escaped {
				st.checkString(n, v)
			} else {
				st.checkString(n, st.strValue(start, false))
			}
			if len(st.violations) > before {
				return nil
			}
		}
	}
	switch {
	case escaped:
	case p.check != nil && p.check.enum != nil:
		v = enumString(p.check, s)
	default:
		v = st.newString(s)
	}
	*(*string)(ptr) = v // Rule: (*T)(p) to the string type reflect says is there.
	return nil
}

// decodeBool is decode for true or false where the plan wants a boolean,
// with a schema without subschemas: value1's checks, then the store.
func (st *state) decodeBool(p *Plan, ptr unsafe.Pointer, c byte) error {
	word := "true"
	if c == 'f' {
		word = "false"
	}
	if !bytes.HasPrefix(st.data[st.pos:], []byte(word)) {
		return st.syntax("invalid literal at byte %d", st.pos)
	}
	st.pos += len(word)
	if n := p.check; n != nil {
		if !st.typeOK(n, tBoolean, c) {
			return nil
		}
		if n.enum != nil {
			before := len(st.violations)
			st.checkEnum(n, c, "", decimal{}, nil)
			if len(st.violations) > before {
				return nil
			}
		}
	}
	*(*bool)(ptr) = c == 't' // Rule: (*T)(p) to the bool type reflect says is there.
	return nil
}

// mismatch handles a value whose JSON kind does not fit the Go kind: null
// where the schema allows it sets the zero value; anything else is a type
// violation.
func (st *state) mismatch(p *Plan, ptr unsafe.Pointer, c byte, depth int) error {
	before := len(st.violations)
	if err := st.value(p.check, depth); err != nil || len(st.violations) > before {
		return err
	}
	if c == 'n' {
		reflect.NewAt(p.typ, ptr).Elem().SetZero()
		return nil
	}
	st.fail("type", "expected "+jsonTypeName(p.typ)+", got "+jsonnode.Kind(c))
	return nil
}

// fallback checks a subtree with the schema and decodes it with the codec.
func (st *state) fallback(p *Plan, ptr unsafe.Pointer, depth int) error {
	start := st.pos
	before := len(st.violations)
	if err := st.value(p.check, depth); err != nil || len(st.violations) > before {
		return err
	}
	opts := decodeOptions
	if st.durations {
		opts = decodeDurationOptions
	}
	raw := st.data[start:st.pos]
	target := reflect.NewAt(p.typ, ptr).Interface()
	err := json2.Unmarshal(raw, target, opts)
	if err != nil && isIntegerError(err) {
		if fixed, ok := integralNumbers(raw); ok {
			err = json2.Unmarshal(fixed, target, opts)
		}
	}
	if err != nil {
		v := violationOf(err)
		prefix := st.pathString()
		switch {
		case prefix == "":
		case v.Path == "":
			v.Path = prefix
		case strings.HasPrefix(v.Path, "["):
			v.Path = prefix + v.Path
		default:
			v.Path = prefix + "." + v.Path
		}
		st.add(v)
	}
	return nil
}

// enumString returns the enum's own copy of s, which passed the enum check,
// saving an allocation per value.
func enumString(n *node, s []byte) string {
	for i := range n.enum {
		if e := &n.enum[i]; e.kind == '"' && e.str == string(s) {
			return e.str
		}
	}
	return string(s)
}
