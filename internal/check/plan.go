package check

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/toolcall-go/toolcall/internal/schema"

	json2 "github.com/go-json-experiment/json"
)

// A Plan checks the arguments and decodes them into a Go struct in one
// pass over the JSON text. It is built once per type from the type and
// the schema. Values it does not drive itself (time.Time, custom
// unmarshalers, interfaces, json.RawMessage, subschemas with keywords
// about the whole value...) are checked as a subtree and handed to the
// codec, so its verdict is always Validate's.
type Plan struct {
	kind   dkind
	typ    reflect.Type
	check  *node // constraints; nil means none
	fields []dfield
	index  map[string]int // field by name, for structs with many fields
	elem   *Plan
}

type dkind uint8

const (
	dFallback dkind = iota
	dBool
	dString
	dInt
	dUint
	dFloat
	dStruct
	dSlice
	dPtr
	dMap
)

type dfield struct {
	name    string
	offset  uintptr
	plan    *Plan
	track   int  // index in the schema node's track, or -1
	inProps bool // named in the node's properties
}

// manyFields is where a map beats a scan for finding a struct field.
const manyFields = 12

// field returns the field named name, trying first the one after the last
// found (hint), since arguments tend to come in declaration order.
func (p *Plan) field(name []byte, hint int) (*dfield, int) {
	if hint < len(p.fields) && p.fields[hint].name == string(name) {
		return &p.fields[hint], hint + 1
	}
	if p.index != nil {
		if i, ok := p.index[string(name)]; ok {
			return &p.fields[i], i + 1
		}
		return nil, hint
	}
	for i := range p.fields {
		if p.fields[i].name == string(name) {
			return &p.fields[i], i + 1
		}
	}
	return nil, hint
}

type planKey struct {
	t reflect.Type
	n *node
}

// Plan returns the plan decoding into t, or nil when t is not a struct
// whose schema the plan can drive; use Validate and Decode then.
func (s *Schema) Plan(t reflect.Type) *Plan {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	c := planCompiler{seen: map[planKey]*Plan{}}
	p := c.plan(t, s.root)
	if p.kind != dStruct {
		return nil
	}
	return p
}

type planCompiler struct {
	seen map[planKey]*Plan // for recursive types
}

// objectOK reports whether the plan can check an object against n as it
// decodes: no keyword needs the object's text as a whole.
func objectOK(n *node) bool {
	return n == nil || !n.never && !n.composite && n.enum == nil && n.patProps == nil &&
		n.propNames == nil && n.depSchemas == nil
}

func (c *planCompiler) plan(t reflect.Type, n *node) *Plan {
	n = resolve(n)
	p := &Plan{typ: t, check: n}
	if t.Kind() == reflect.Struct { // only a struct can hold itself
		key := planKey{t, n}
		if prev, ok := c.seen[key]; ok {
			return prev
		}
		c.seen[key] = p
	}
	if t == timeType || t == durationType || t == rawMessageType || schema.DecodesItself(t) {
		return p
	}
	switch t.Kind() {
	case reflect.Bool:
		p.kind = dBool
	case reflect.String:
		p.kind = dString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = dInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = dUint
	case reflect.Float32, reflect.Float64:
		p.kind = dFloat
	case reflect.Pointer:
		p.elem = c.plan(t.Elem(), n)
		p.kind = dPtr
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 || !objectOK(n) ||
			n != nil && (n.prefix != nil || n.contains != nil || n.unique) {
			return p // []byte is base64 text
		}
		var items *node
		if n != nil {
			items = n.items
		}
		p.elem = c.plan(t.Elem(), items)
		p.kind = dSlice
	case reflect.Map:
		if t.Key() != stringType || !objectOK(n) || n != nil && n.props != nil {
			return p
		}
		var vals *node
		if n != nil {
			vals = n.addl
		}
		p.elem = c.plan(t.Elem(), vals)
		p.kind = dMap
	case reflect.Struct:
		if n == nil || n.props == nil || !objectOK(n) {
			return p
		}
		if !c.fieldsOf(p, t, 0, n) {
			p.fields = nil
			return p
		}
		if len(p.fields) > manyFields {
			p.index = make(map[string]int, len(p.fields))
			for i, f := range p.fields {
				p.index[f.name] = i
			}
		}
		p.kind = dStruct
	}
	return p
}

// fieldsOf collects the JSON fields of struct t at offset base, flattening
// embedded structs as encoding/json does. It reports false for layouts it
// leaves to the codec (embedded pointers, name clashes, ",string").
func (c *planCompiler) fieldsOf(p *Plan, t reflect.Type, base uintptr, n *node) bool {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				return false
			}
			if ft.Kind() == reflect.Struct {
				if !c.fieldsOf(p, ft, base+f.Offset, n) {
					return false
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "string") {
			return false // the ",string" option quotes numbers
		}
		for _, prev := range p.fields {
			if prev.name == name {
				return false
			}
		}
		fn, ok := n.props[name]
		if !ok {
			fn = n.addl
		}
		track := -1
		if i, tracked := n.track[name]; tracked {
			track = i
		}
		p.fields = append(p.fields, dfield{name: name, offset: base + f.Offset, plan: c.plan(f.Type, fn), track: track, inProps: ok})
	}
	return true
}

// Decode checks args and decodes them into ptr, which points to a value
// of the plan's type. It returns the violations, as Validate would; the
// value is only meaningful when there are none.
func (p *Plan) Decode(args []byte, ptr unsafe.Pointer, durations bool) []Violation {
	st := getState(args)
	st.durations = durations
	defer putState(st)
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
			*(*unsafe.Pointer)(ptr) = nil
			return nil
		}
		elem := reflect.New(p.typ.Elem()).UnsafePointer()
		*(*unsafe.Pointer)(ptr) = elem
		return st.decode(p.elem, elem, depth)
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
	switch p.kind {
	case dBool:
		if c != 't' && c != 'f' {
			st.fail("type", "expected boolean, got "+jsonKind(c))
			return nil
		}
		*(*bool)(ptr) = c == 't'
	case dString:
		if c != '"' {
			st.fail("type", "expected string, got "+jsonKind(c))
			return nil
		}
		s := raw[1 : len(raw)-1]
		switch {
		case bytes.IndexByte(s, '\\') >= 0:
			*(*string)(ptr) = unescape(s)
		case p.check != nil && p.check.enum != nil:
			*(*string)(ptr) = enumString(p.check, s)
		default:
			*(*string)(ptr) = string(s)
		}
	case dInt, dUint, dFloat:
		if c != '-' && (c < '0' || c > '9') {
			st.fail("type", "expected "+jsonTypeName(p.typ)+", got "+jsonKind(c))
			return nil
		}
		st.storeNumber(p, ptr, raw)
	}
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
	st.fail("type", "expected "+jsonTypeName(p.typ)+", got "+jsonKind(c))
	return nil
}

func (st *state) storeNumber(p *Plan, ptr unsafe.Pointer, raw []byte) {
	k := p.typ.Kind()
	if p.kind == dFloat {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || k == reflect.Float32 && math.Abs(f) > math.MaxFloat32 {
			st.failf("type", "number %s is out of range for %s", raw, p.typ)
			return
		}
		if k == reflect.Float32 {
			*(*float32)(ptr) = float32(f)
		} else {
			*(*float64)(ptr) = f
		}
		return
	}
	bits := p.typ.Bits()
	if p.kind == dInt {
		i, err := strconv.ParseInt(string(raw), 10, bits)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(raw), 64)
			switch {
			case ferr == nil && f == math.Trunc(f) && f >= -math.Ldexp(1, bits-1) && f < math.Ldexp(1, bits-1):
				i = int64(f)
			case ferr == nil && f != math.Trunc(f):
				st.failf("type", "expected integer, got %s", raw)
				return
			default:
				st.failf("maximum", "must be between %d and %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
				return
			}
		}
		switch bits {
		case 8:
			*(*int8)(ptr) = int8(i)
		case 16:
			*(*int16)(ptr) = int16(i)
		case 32:
			*(*int32)(ptr) = int32(i)
		default:
			*(*int64)(ptr) = i
		}
		return
	}
	u, err := strconv.ParseUint(string(raw), 10, bits)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(raw), 64)
		switch {
		case ferr == nil && f == math.Trunc(f) && f >= 0 && f < math.Ldexp(1, bits):
			u = uint64(f)
		case ferr == nil && f != math.Trunc(f):
			st.failf("type", "expected integer, got %s", raw)
			return
		default:
			st.failf("maximum", "must be between 0 and %d", uint64(math.MaxUint64)>>(64-bits))
			return
		}
	}
	switch bits {
	case 8:
		*(*uint8)(ptr) = uint8(u)
	case 16:
		*(*uint16)(ptr) = uint16(u)
	case 32:
		*(*uint32)(ptr) = uint32(u)
	default:
		*(*uint64)(ptr) = u
	}
}

func (st *state) decodeStruct(p *Plan, ptr unsafe.Pointer, depth int) error {
	n := p.check
	start := st.pos
	var seen seenSet
	hint := 0
	count, err := st.members(func(name, _ []byte) error {
		var f *dfield
		f, hint = p.field(name, hint)
		switch {
		case f != nil && f.inProps:
			if f.track >= 0 {
				seen.set(f.track)
			}
			return st.decode(f.plan, unsafe.Add(ptr, f.offset), depth+1)
		case f != nil:
			st.memberSchema(n, name, &seen)
			return st.decode(f.plan, unsafe.Add(ptr, f.offset), depth+1)
		}
		return st.value(st.memberSchema(n, name, &seen), depth+1)
	})
	if err == nil {
		st.objectEnd(n, &seen, count, st.data[start:st.pos], depth)
	}
	return err
}

func (st *state) decodeSlice(p *Plan, ptr unsafe.Pointer, depth int) error {
	st.pos++ // '['
	sv := reflect.NewAt(p.typ, ptr).Elem()
	count := 0
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == ']' {
		st.pos++
		sv.Set(reflect.MakeSlice(p.typ, 0, 0))
	} else {
		sv.SetLen(0)
		for {
			if count == sv.Cap() {
				sv.Grow(max(4, count))
			}
			sv.SetLen(count + 1)
			el := sv.Index(count)
			el.SetZero()
			st.path = append(st.path, seg{index: count})
			if err := st.decode(p.elem, el.Addr().UnsafePointer(), depth+1); err != nil {
				return err
			}
			st.path = st.path[:len(st.path)-1]
			count++
			if done, err := st.next(']'); err != nil {
				return err
			} else if done {
				break
			}
		}
	}
	if n := p.check; n != nil {
		if n.minItems >= 0 && count < n.minItems {
			st.failf("minItems", "must have at least %d items", n.minItems)
		}
		if n.maxItems >= 0 && count > n.maxItems {
			st.failf("maxItems", "must have at most %d items", n.maxItems)
		}
	}
	return nil
}

func (st *state) decodeMap(p *Plan, ptr unsafe.Pointer, depth int) error {
	start := st.pos
	mv := reflect.NewAt(p.typ, ptr).Elem()
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(p.typ))
	}
	var seen seenSet
	count, err := st.members(func(name, _ []byte) error {
		if p.check != nil {
			st.memberSchema(p.check, name, &seen)
		}
		v := reflect.New(p.typ.Elem())
		if err := st.decode(p.elem, v.UnsafePointer(), depth+1); err != nil {
			return err
		}
		mv.SetMapIndex(reflect.ValueOf(string(name)), v.Elem())
		return nil
	})
	if err == nil && p.check != nil {
		st.objectEnd(p.check, &seen, count, st.data[start:st.pos], depth)
	}
	return err
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
