package check

import (
	"reflect"
	"strings"

	"github.com/toolcall-go/toolcall/internal/schema"
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
	// empty is an empty, non-nil slice of a slice type, what [] decodes
	// to (as in encoding/json), made once.
	empty reflect.Value
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
		p.empty = reflect.MakeSlice(t, 0, 0)
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
