package toolcall

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	json2 "github.com/go-json-experiment/json"
)

// A compiled decoder validates the model's arguments and decodes them into
// the tool's Go type in one pass over the JSON text, driven by a plan built
// once per type from the Go type and its schema. Types it does not handle
// itself (time.Time, custom unmarshalers, any, json.RawMessage...) are
// validated as a subtree and handed to the JSON codec.

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

type dplan struct {
	kind   dkind
	typ    reflect.Type
	check  *vnode // constraints; nil means none
	fields map[string]*dfield
	order  []*dfield // fields by index, for required and duplicate tracking
	noAddl bool
	elem   *dplan
}

type dfield struct {
	name     string
	offset   uintptr
	plan     *dplan
	required bool
	index    int
}

// compilePlan builds the plan for t against its schema node n. It returns
// nil when t is not a struct the decoder can drive.
func compilePlan(t reflect.Type, root *vnode) *dplan {
	if t.Kind() == reflect.Pointer || t.Kind() != reflect.Struct {
		return nil
	}
	c := planCompiler{seen: map[reflect.Type]*dplan{}}
	return c.plan(t, root)
}

type planCompiler struct {
	seen map[reflect.Type]*dplan // struct plans, for recursive types
}

func (c *planCompiler) plan(t reflect.Type, n *vnode) *dplan {
	n = resolve(n)
	p := &dplan{typ: t, check: n}
	if t == timeType || t == durationType || t == rawMessageType || decodesItself(t) {
		return p // fallback
	}
	if n != nil && (len(n.anyOf) > 0 || len(n.allOf) > 0 || n.never) {
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
		p.kind = dPtr
		p.elem = c.plan(t.Elem(), n)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return p // []byte is base64 text
		}
		p.kind = dSlice
		var items *vnode
		if n != nil {
			items = n.items
		}
		p.elem = c.plan(t.Elem(), items)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key() != reflect.TypeFor[string]() {
			return p
		}
		p.kind = dMap
		var vals *vnode
		if n != nil {
			vals = n.addl
		}
		p.elem = c.plan(t.Elem(), vals)
	case reflect.Struct:
		if prev, ok := c.seen[t]; ok && prev.check == n {
			return prev
		}
		c.seen[t] = p
		if n == nil || n.props == nil || !c.fieldsOf(p, t, 0, n) {
			return &dplan{typ: t, check: n}
		}
		p.kind = dStruct
		p.noAddl = n.noAddl
	}
	return p
}

// fieldsOf collects the JSON fields of struct t at offset base, flattening
// embedded structs as encoding/json does. It reports false for layouts it
// leaves to the fallback (embedded pointers, name clashes).
func (c *planCompiler) fieldsOf(p *dplan, t reflect.Type, base uintptr, n *vnode) bool {
	if p.fields == nil {
		p.fields = map[string]*dfield{}
	}
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
		if _, dup := p.fields[name]; dup {
			return false
		}
		df := &dfield{name: name, offset: base + f.Offset, index: len(p.order)}
		df.plan = c.plan(f.Type, n.props[name])
		for _, r := range n.required {
			if r == name {
				df.required = true
			}
		}
		p.fields[name] = df
		p.order = append(p.order, df)
	}
	return true
}

// decodeInto validates and decodes args into ptr, which points to a value
// of the plan's type. Violations are returned as an *ArgumentError.
func (p *dplan) decodeInto(tool string, args []byte, ptr unsafe.Pointer, durations bool) error {
	st := validationPool.Get().(*validation)
	st.data, st.pos, st.path, st.violations = args, 0, st.path[:0], st.violations[:0]
	st.durations = durations
	defer func() {
		st.data = nil
		validationPool.Put(st)
	}()
	err := st.decode(p, ptr, 0)
	if err == nil {
		st.ws()
		if st.pos < len(st.data) {
			err = st.syntax("data after the top-level value")
		}
	}
	if err != nil {
		return &ArgumentError{Tool: tool, Violations: []Violation{{Path: st.pathString(), Rule: "syntax", Message: err.Error()}}}
	}
	if len(st.violations) == 0 {
		return nil
	}
	return &ArgumentError{Tool: tool, Violations: append([]Violation(nil), st.violations...)}
}

// decode reads the next value into ptr. On a violation it records it and
// skips the value; an error means malformed JSON.
func (st *validation) decode(p *dplan, ptr unsafe.Pointer, depth int) error {
	if depth > maxDepth {
		return st.syntax("nesting deeper than %d levels", maxDepth)
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
			if err := st.value(p.check, depth); err != nil {
				return err
			}
			*(*unsafe.Pointer)(ptr) = nil
			return nil
		}
		elem := reflect.New(p.typ.Elem()).UnsafePointer()
		*(*unsafe.Pointer)(ptr) = elem
		return st.decode(p.elem, elem, depth)
	case dStruct:
		if c != '{' {
			return st.mismatch(p, ptr, c, depth)
		}
		return st.decodeStruct(p, ptr, depth)
	case dSlice:
		if c != '[' {
			return st.mismatch(p, ptr, c, depth)
		}
		return st.decodeSlice(p, ptr, depth)
	case dMap:
		if c != '{' {
			return st.mismatch(p, ptr, c, depth)
		}
		return st.decodeMap(p, ptr, depth)
	}
	// Scalars: validate with the schema node, then store.
	start := st.pos
	before := len(st.violations)
	if err := st.value(p.check, depth); err != nil {
		return err
	}
	if len(st.violations) > before {
		return nil
	}
	raw := st.data[start:st.pos]
	switch p.kind {
	case dBool:
		if c != 't' && c != 'f' {
			st.fail("type", "expected boolean, got %s", jsonKind(c))
			return nil
		}
		*(*bool)(ptr) = c == 't'
	case dString:
		if c != '"' {
			st.fail("type", "expected string, got %s", jsonKind(c))
			return nil
		}
		s, err := unquote(raw)
		if err != nil {
			return st.syntax("%v", err)
		}
		*(*string)(ptr) = s
	case dInt, dUint, dFloat:
		if c != '-' && (c < '0' || c > '9') {
			st.fail("type", "expected %s, got %s", jsonTypeName(p.typ), jsonKind(c))
			return nil
		}
		st.storeNumber(p, ptr, raw)
	}
	return nil
}

// mismatch handles a value whose JSON kind does not fit the Go kind: null
// where the schema allows it sets the zero value; anything else is a type
// violation.
func (st *validation) mismatch(p *dplan, ptr unsafe.Pointer, c byte, depth int) error {
	before := len(st.violations)
	if err := st.value(p.check, depth); err != nil {
		return err
	}
	if len(st.violations) > before {
		return nil
	}
	if c == 'n' {
		reflect.NewAt(p.typ, ptr).Elem().SetZero()
		return nil
	}
	st.fail("type", "expected %s, got %s", jsonTypeName(p.typ), jsonKind(c))
	return nil
}

func (st *validation) literal(word string, n int) error {
	if st.pos > len(st.data) || string(st.data[st.pos-n:st.pos]) != word {
		return st.syntax("invalid literal at byte %d", st.pos-n)
	}
	return nil
}

func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func unquote(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	for _, b := range inner {
		if b == '\\' {
			var s string
			err := json.Unmarshal(raw, &s)
			return s, err
		}
	}
	return string(inner), nil
}

func (st *validation) storeNumber(p *dplan, ptr unsafe.Pointer, raw []byte) {
	k := p.typ.Kind()
	if p.kind == dFloat {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || k == reflect.Float32 && math.Abs(f) > math.MaxFloat32 {
			st.fail("type", "number %s is out of range for %s", raw, p.typ)
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
				st.fail("type", "expected integer, got %s", raw)
				return
			default:
				st.fail("maximum", "must be between %d and %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
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
			st.fail("type", "expected integer, got %s", raw)
			return
		default:
			st.fail("maximum", "must be between 0 and %d", uint64(math.MaxUint64)>>(64-bits))
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

func (st *validation) decodeStruct(p *dplan, ptr unsafe.Pointer, depth int) error {
	st.pos++ // '{'
	var seen uint64
	var seenMore []bool
	if len(p.order) > 64 {
		seenMore = make([]bool, len(p.order))
	}
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == '}' {
		st.pos++
	} else {
		for {
			name, err := st.fieldName()
			if err != nil {
				return err
			}
			st.path = append(st.path, seg{name: name, isKey: true})
			f := p.fields[string(name)]
			switch {
			case f == nil:
				if p.noAddl {
					st.fail("additionalProperties", "unknown field; remove it")
				}
				if err := st.value(nil, depth+1); err != nil {
					return err
				}
			default:
				dup := false
				if f.index < 64 {
					dup = seen&(1<<f.index) != 0
					seen |= 1 << f.index
				} else {
					dup = seenMore[f.index]
					seenMore[f.index] = true
				}
				if dup {
					return st.syntax("duplicate field %q", name)
				}
				st.ws()
				if !f.required && st.pos < len(st.data) && st.data[st.pos] == 'n' {
					// null for an optional field means absent (strict mode sends it).
					st.pos += 4
					if err := st.literal("null", 4); err != nil {
						return err
					}
				} else if err := st.decode(f.plan, unsafe.Add(ptr, f.offset), depth+1); err != nil {
					return err
				}
			}
			st.path = st.path[:len(st.path)-1]
			if done, err := st.next('}'); err != nil || done {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	for _, f := range p.order {
		if !f.required {
			continue
		}
		if f.index < 64 && seen&(1<<f.index) == 0 || f.index >= 64 && !seenMore[f.index] {
			st.path = append(st.path, seg{name: []byte(f.name), isKey: true})
			st.fail("required", "required field is missing")
			st.path = st.path[:len(st.path)-1]
		}
	}
	return nil
}

// fieldName reads `"name":` and returns the unescaped name.
func (st *validation) fieldName() ([]byte, error) {
	st.ws()
	if st.pos >= len(st.data) || st.data[st.pos] != '"' {
		return nil, st.syntax("expected a field name at byte %d", st.pos)
	}
	start := st.pos
	escaped, err := st.str()
	if err != nil {
		return nil, err
	}
	name := st.data[start+1 : st.pos-1]
	if escaped {
		s, err := unquote(st.data[start:st.pos])
		if err != nil {
			return nil, st.syntax("%v", err)
		}
		name = []byte(s)
	}
	st.ws()
	if st.pos >= len(st.data) || st.data[st.pos] != ':' {
		return nil, st.syntax("expected ':' after field name at byte %d", st.pos)
	}
	st.pos++
	return name, nil
}

// next consumes ',' (false) or the closing byte (true).
func (st *validation) next(closing byte) (bool, error) {
	st.ws()
	if st.pos >= len(st.data) {
		return false, st.syntax("unexpected end of input")
	}
	switch st.data[st.pos] {
	case ',':
		st.pos++
		return false, nil
	case closing:
		st.pos++
		return true, nil
	}
	return false, st.syntax("expected ',' or '%c' at byte %d", closing, st.pos)
}

func (st *validation) decodeSlice(p *dplan, ptr unsafe.Pointer, depth int) error {
	st.pos++ // '['
	sv := reflect.NewAt(p.typ, ptr).Elem()
	sv.SetLen(0)
	count := 0
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == ']' {
		st.pos++
		sv.Set(reflect.MakeSlice(p.typ, 0, 0))
	} else {
		for {
			if count == sv.Cap() {
				sv.Grow(max(4, count))
			}
			sv.SetLen(count + 1)
			st.path = append(st.path, seg{index: count})
			if err := st.decode(p.elem, sv.Index(count).Addr().UnsafePointer(), depth+1); err != nil {
				return err
			}
			st.path = st.path[:len(st.path)-1]
			count++
			if done, err := st.next(']'); err != nil || done {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	if n := p.check; n != nil {
		if n.minItems >= 0 && count < n.minItems {
			st.fail("minItems", "must have at least %d items", n.minItems)
		}
		if n.maxItems >= 0 && count > n.maxItems {
			st.fail("maxItems", "must have at most %d items", n.maxItems)
		}
	}
	return nil
}

func (st *validation) decodeMap(p *dplan, ptr unsafe.Pointer, depth int) error {
	st.pos++ // '{'
	mv := reflect.NewAt(p.typ, ptr).Elem()
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(p.typ))
	}
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == '}' {
		st.pos++
		return nil
	}
	seen := map[string]bool{}
	for {
		name, err := st.fieldName()
		if err != nil {
			return err
		}
		key := string(name)
		if seen[key] {
			return st.syntax("duplicate field %q", key)
		}
		seen[key] = true
		st.path = append(st.path, seg{name: name, isKey: true})
		v := reflect.New(p.typ.Elem())
		if err := st.decode(p.elem, v.UnsafePointer(), depth+1); err != nil {
			return err
		}
		st.path = st.path[:len(st.path)-1]
		mv.SetMapIndex(reflect.ValueOf(key), v.Elem())
		if done, err := st.next('}'); err != nil || done {
			return err
		}
	}
}

// fallback validates a subtree with the schema and decodes it with the
// JSON codec.
func (st *validation) fallback(p *dplan, ptr unsafe.Pointer, depth int) error {
	start := st.pos
	before := len(st.violations)
	if err := st.value(p.check, depth); err != nil {
		return err
	}
	if len(st.violations) > before {
		return nil
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
