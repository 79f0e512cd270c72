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
	simple bool // check has no subschemas: decode checks scalars itself
	// intBounds reports an integer kind whose check only bounds it, if
	// at all, by integers of at most 18 digits: decode compares a short
	// integer instance as an int64.
	intBounds bool
	typ       reflect.Type
	check     *node // constraints; nil means none
	fields    []dfield
	index     map[string]int // field by name, for structs with many fields
	elem      *Plan
	// grow gives the slice at ptr a new backing array of capacity n
	// holding its items, for slices of the common scalar types; nil for
	// others, which grow through reflect.
	grow func(ptr unsafe.Pointer, n int)
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
	name string
	// quoted is the name as a JSON string, `"name"`, when it is written
	// without escapes; "" otherwise.
	quoted  string
	offset  uintptr
	plan    *Plan
	track   int  // index in the schema node's track, or -1
	inProps bool // named in the node's properties
}

// manyFields is where a map beats a scan for finding a struct field.
const manyFields = 12

// field returns the index of the field named name, or -1, trying first
// the one after the last found (hint), since arguments tend to come in
// declaration order.
func (p *Plan) field(name []byte, hint int) int {
	if hint < len(p.fields) && p.fields[hint].name == string(name) {
		return hint
	}
	if p.index != nil {
		if i, ok := p.index[string(name)]; ok {
			return i
		}
		return -1
	}
	for i := range p.fields {
		if p.fields[i].name == string(name) {
			return i
		}
	}
	return -1
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
	p := &Plan{typ: t, check: n, simple: n == nil || !n.never && !n.composite}
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
		p.intBounds = intBounds(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = dUint
		p.intBounds = intBounds(n)
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
		p.grow = growerOf(t.Elem())
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
		p.fields = append(p.fields, dfield{name: name, quoted: quotedName(name), offset: base + f.Offset, plan: c.plan(f.Type, fn), track: track, inProps: ok})
	}
	return true
}

// quotedName returns `"name"` when name is printable ASCII without a quote
// or backslash, which str reads as is; "" otherwise.
func quotedName(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return ""
		}
	}
	return `"` + name + `"`
}

// Decode checks args and decodes them into ptr, which points to a value
// of the plan's type. It returns the violations, as Validate would; the
// value is only meaningful when there are none. The value shares no
// memory with args: its strings are copied, most into one allocation for
// the pass (see newString).
func (p *Plan) Decode(args []byte, ptr unsafe.Pointer, durations bool) []Violation {
	st := statePool.Get().(*state)
	defer statePool.Put(st)
	return p.decodeIn(st, args, ptr, durations)
}

// A Scratch holds the buffers of a pass, for a caller that keeps one in
// storage of its own that no two goroutines use at once; the zero Scratch
// is ready.
type Scratch struct{ st state }

// decodeIn is Decode with st's buffers.
func (p *Plan) decodeIn(st *state, args []byte, ptr unsafe.Pointer, durations bool) []Violation {
	st.begin(args)
	st.durations = durations
	defer st.end()
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
		case st.escaped:
			*(*string)(ptr) = st.unescapeString(s)
		case p.check != nil && p.check.enum != nil:
			*(*string)(ptr) = enumString(p.check, s)
		default:
			*(*string)(ptr) = st.newString(s)
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
	*(*string)(ptr) = v
	return nil
}

// intBounds reports whether n, a schema without subschemas, checks an
// integer with at most bounds that are integers of at most 18 digits.
func intBounds(n *node) bool {
	if n == nil {
		return true
	}
	ok := func(b *bound) bool { return b == nil || b.isInt }
	return !n.never && !n.composite && n.enum == nil && n.multipleOf == nil &&
		ok(n.min) && ok(n.max) && ok(n.xmin) && ok(n.xmax)
}

// decodeNumber is decode for a number where the plan wants one, with a
// schema without subschemas: value1's checks of numbers, then the store.
func (st *state) decodeNumber(p *Plan, ptr unsafe.Pointer) error {
	start := st.pos
	if err := st.number(); err != nil {
		return err
	}
	raw := st.data[start:st.pos]
	if p.intBounds {
		if x, ok := smallInt(raw); ok {
			return st.decodeInt(p, ptr, x, raw)
		}
	}
	if n := p.check; n != nil {
		d, ok := st.numberType(n, raw)
		if !ok {
			return nil
		}
		before := len(st.violations)
		st.checkNumber(n, d)
		if len(st.violations) > before {
			return nil
		}
	}
	st.storeNumber(p, ptr, raw)
	return nil
}

// decodeInt is decodeNumber for a literal that is an integer of at most
// 18 digits, x (raw), where the plan has intBounds: the checks of
// checkNumber, in its order, on int64s; then the store.
func (st *state) decodeInt(p *Plan, ptr unsafe.Pointer, x int64, raw []byte) error {
	if n := p.check; n != nil {
		if !st.typeOK(n, tInteger, '0') {
			return nil
		}
		before := len(st.violations)
		if n.min != nil && x < n.min.i {
			st.fail("minimum", "must be >= "+n.min.text)
		}
		if n.max != nil && x > n.max.i {
			st.fail("maximum", "must be <= "+n.max.text)
		}
		if n.xmin != nil && x <= n.xmin.i {
			st.fail("exclusiveMinimum", "must be > "+n.xmin.text)
		}
		if n.xmax != nil && x >= n.xmax.i {
			st.fail("exclusiveMaximum", "must be < "+n.xmax.text)
		}
		if len(st.violations) > before {
			return nil
		}
	}
	bits := p.typ.Bits()
	if p.kind == dInt && (bits == 64 || -1<<(bits-1) <= x && x < 1<<(bits-1)) {
		switch bits {
		case 8:
			*(*int8)(ptr) = int8(x)
		case 16:
			*(*int16)(ptr) = int16(x)
		case 32:
			*(*int32)(ptr) = int32(x)
		default:
			*(*int64)(ptr) = x
		}
		return nil
	}
	if p.kind == dUint && raw[0] != '-' && (bits == 64 || x < 1<<bits) {
		switch bits {
		case 8:
			*(*uint8)(ptr) = uint8(x)
		case 16:
			*(*uint16)(ptr) = uint16(x)
		case 32:
			*(*uint32)(ptr) = uint32(x)
		default:
			*(*uint64)(ptr) = uint64(x)
		}
		return nil
	}
	st.storeNumber(p, ptr, raw) // out of the type's range: its message
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
	*(*bool)(ptr) = c == 't'
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
		// A float32 is parsed as one: rounding to float64 first would
		// round twice, and differ from encoding/json by one unit in the
		// last place on literals near a float32 midpoint.
		f, err := strconv.ParseFloat(string(raw), p.typ.Bits())
		if err != nil {
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
		i, ok := smallInt(raw)
		var err error
		if !ok || bits < 64 && (i < -1<<(bits-1) || i >= 1<<(bits-1)) {
			i, err = strconv.ParseInt(string(raw), 10, bits)
		}
		if err != nil && !fractionOrExponent(raw) {
			// As the codec: an integer literal the type cannot hold.
			st.failf("maximum", "must be between %d and %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
			return
		}
		if err != nil {
			lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
			v, ok := st.integral(raw, strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10))
			if !ok {
				return
			}
			i = v
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
	var u uint64
	var err error
	if i, ok := smallInt(raw); ok && raw[0] != '-' && (bits == 64 || i < 1<<bits) {
		u = uint64(i)
	} else {
		u, err = strconv.ParseUint(string(raw), 10, bits)
	}
	if err != nil && !fractionOrExponent(raw) {
		// As the codec: an integer literal the type cannot hold, -0 too.
		st.failf("maximum", "must be between 0 and %d", uint64(math.MaxUint64)>>(64-bits))
		return
	}
	if err != nil {
		v, ok := st.integral(raw, "0", strconv.FormatUint(uint64(math.MaxUint64)>>(64-bits), 10))
		if !ok {
			return
		}
		u = uint64(v)
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

// fractionOrExponent reports whether a number literal has a fraction or
// an exponent.
func fractionOrExponent(raw []byte) bool { return bytes.ContainsAny(raw, ".eE") }

// integral reads a number literal with a fraction or an exponent, such as
// 2.0 or 1e3, for the Go integer type whose range is [lo, hi]. It accepts
// an integer of magnitude below 2^53 in the range, the integers the codec
// accepts written so (see integralNumbers), exactly; otherwise it records
// why not.
func (st *state) integral(raw []byte, lo, hi string) (int64, bool) {
	d := parseDecimal(raw)
	switch {
	case !d.isInt():
		st.failf("type", "expected integer, got %s", raw)
	case cmpDecimal(d, parseDecimal([]byte(lo))) < 0 || cmpDecimal(d, parseDecimal([]byte(hi))) > 0:
		st.failf("maximum", "must be between %s and %s", lo, hi)
	default:
		if v, ok := d.int64(); ok && -1<<53 < v && v < 1<<53 {
			return v, true
		}
		st.failf("type", "expected integer, got %s: write it without a fraction or exponent", raw)
	}
	return 0, false
}

// smallInt parses a JSON integer literal of at most 18 digits, the most
// that cannot overflow an int64; other literals report false.
func smallInt(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func (st *state) decodeStruct(p *Plan, ptr unsafe.Pointer, depth int) error {
	// members, with the member's handling inline. A name that is a field's
	// is told from a duplicate by a bit per field; other names go through
	// st.keys as in members.
	n := p.check
	start := st.pos
	var seen seenSet
	var fieldSeen uint64
	bits := len(p.fields) <= 64
	hint, count := 0, 0
	st.pos++ // '{'
	base := len(st.keys)
	var set map[string]struct{}
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == '}' {
		st.pos++
	} else {
		for {
			// The name of the field expected next, as it is written, is
			// read without scanning the string; any other name is read
			// and looked up.
			var (
				name []byte
				at   span
				err  error
			)
			i := -1
			st.ws()
			if hint < len(p.fields) {
				q := p.fields[hint].quoted
				if end := st.pos + len(q); q != "" && end <= len(st.data) && string(st.data[st.pos:end]) == q {
					at = span{start: st.pos + 1, end: end - 1}
					name, i = st.data[at.start:at.end], hint
					st.pos = end
				}
			}
			if i < 0 {
				if name, _, at, err = st.memberName(); err != nil {
					return err
				}
				i = p.field(name, hint)
			}
			if i >= 0 && bits {
				if fieldSeen&(1<<i) != 0 {
					return st.duplicate(at)
				}
				fieldSeen |= 1 << i
			} else if err := st.unique(base, &set, name, at); err != nil {
				return err
			}
			if err := st.colon(); err != nil {
				return err
			}
			count++
			st.push(keySeg(at))
			switch {
			case i < 0:
				err = st.value(st.memberSchema(n, name, &seen), depth+1)
			case p.fields[i].inProps:
				f := &p.fields[i]
				hint = i + 1
				if f.track >= 0 {
					seen.set(f.track)
				}
				err = st.decode(f.plan, unsafe.Add(ptr, f.offset), depth+1)
			default:
				f := &p.fields[i]
				hint = i + 1
				st.memberSchema(n, name, &seen)
				err = st.decode(f.plan, unsafe.Add(ptr, f.offset), depth+1)
			}
			if err != nil {
				return err
			}
			st.path = st.path[:len(st.path)-1]
			if done, err := st.next('}'); err != nil {
				return err
			} else if done {
				break
			}
		}
		st.keys = st.keys[:base]
	}
	st.objectEnd(n, &seen, count, st.data[start:st.pos], depth)
	return nil
}

// growerOf returns the grow function of slices of elem, or nil. Only
// unnamed types qualify: the slice at ptr is then exactly a []T.
func growerOf(elem reflect.Type) func(unsafe.Pointer, int) {
	switch elem {
	case reflect.TypeFor[string]():
		return grow[string]
	case reflect.TypeFor[int]():
		return grow[int]
	case reflect.TypeFor[int64]():
		return grow[int64]
	case reflect.TypeFor[int32]():
		return grow[int32]
	case reflect.TypeFor[float64]():
		return grow[float64]
	case reflect.TypeFor[bool]():
		return grow[bool]
	}
	return nil
}

func grow[T any](ptr unsafe.Pointer, n int) {
	s := (*[]T)(ptr)
	g := make([]T, len(*s), n)
	copy(g, *s)
	*s = g
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// emptyArray is where the data of an empty, non-nil slice points.
var emptyArray [0]uint64

// decodeSlice appends the array's items to the slice at ptr in place: its
// header is read and written through ptr, the items are decoded where
// they lie, and only growing the backing array goes through reflect.
func (st *state) decodeSlice(p *Plan, ptr unsafe.Pointer, depth int) error {
	st.pos++ // '['
	h := (*sliceHeader)(ptr)
	count := 0
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == ']' {
		st.pos++
		h.data, h.len, h.cap = unsafe.Pointer(&emptyArray), 0, 0
	} else {
		size := p.elem.typ.Size()
		// Items of the backing array the slice came with may hold values;
		// those of arrays grown here start zero.
		reused := h.cap
		h.len = 0
		for {
			if count == h.cap {
				if p.grow != nil {
					p.grow(ptr, max(4, 2*count))
				} else {
					reflect.NewAt(p.typ, ptr).Elem().Grow(max(4, count))
				}
			}
			h.len = count + 1
			el := unsafe.Add(h.data, uintptr(count)*size)
			if count < reused {
				reflect.NewAt(p.elem.typ, el).Elem().SetZero()
			}
			st.push(seg{start: count})
			if err := st.decode(p.elem, el, depth+1); err != nil {
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
		mv.SetMapIndex(reflect.ValueOf(st.newString(name)), v.Elem())
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
