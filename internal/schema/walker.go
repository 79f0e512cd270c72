package schema

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/tagcheck"
)

// walker checks that every part of an argument type can be expressed in
// JSON, finds the recursive types, and builds the schema (see sch.go).
// Argument types hold a handful of structs, so it keeps them in slices,
// which beat maps at that size.
type walker struct {
	mapper      func(reflect.Type) *jsonschema.Schema // the one invopop gets, for the tag checks
	structs     []walkedStruct
	active      []reflect.Type // named non-struct types being walked
	customs     []customSchema
	slab        []sch
	hasDuration bool
	embedding   bool // the next struct walked is embedded: its fields merge into the outer one
	legacy      bool // the type needs invopop's own reflection (see sch.go)
}

// walkedStruct is a named struct type met in the walk, in the order met,
// with its sanitized Go name and the named struct types its fields reach
// directly. Two types of one name are both kept (and each walked once);
// the first keeps the short definition name. body is its schema, nil for
// a struct whose fields the walker does not visit.
type walkedStruct struct {
	name  string
	t     reflect.Type
	edges []reflect.Type
	body  *sch
}

// customSchema is the definition of a type with a JSONSchema method, whose
// result is converted once.
type customSchema struct {
	t reflect.Type
	r ref
}

// find returns the index of the first struct walked with name, or -1.
func (w *walker) find(name string) int {
	for i := range w.structs {
		if w.structs[i].name == name {
			return i
		}
	}
	return -1
}

func (w *walker) of(t reflect.Type) int {
	for i := range w.structs {
		if w.structs[i].t == t {
			return i
		}
	}
	return -1
}

// defName names t's definition for invopop: its Go name, or its full
// name if another struct walked already has the short one.
func (w *walker) defName(t reflect.Type) string {
	name := sanitizeName(t.Name())
	if i := w.find(name); i >= 0 && w.structs[i].t != t {
		return sanitizeName(t.String())
	}
	return name
}

func sanitizeName(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		c := s[i]
		clean = c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	if clean {
		return s // the usual case, checked without decoding runes
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// walk visits t at the parameter path path and returns its schema, which
// means nothing once the walk is legacy. owner is the nearest named struct
// above t, for the recursion graph.
func (w *walker) walk(t reflect.Type, path string, owner reflect.Type) (*sch, *Error) {
	embedded := w.embedding
	if t.Kind() != reflect.Pointer {
		w.embedding = false
		if !w.legacy && exotic(t) {
			w.legacy = true
		}
	}
	if t == durationType {
		w.hasDuration = true
		return w.opaque(t), nil
	}
	plain := methodless(t)
	if t == timeType || t == rawMessageType || !plain && hasOwnSchema(t) {
		return w.opaque(t), nil
	}
	custom := !plain && (readsJSON(t) || t.Kind() != reflect.String && readsText(t))
	if custom && t.Kind() != reflect.Struct {
		return w.opaque(t), nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		// Only a struct can hold itself in a schema ($defs); the generator
		// would recurse forever on a type like []Self.
		if t.Name() != "" {
			for _, a := range w.active {
				if a == t {
					return nil, unsupported(path, fmt.Sprintf("recursive type %s (a type can contain itself only through a struct)", t))
				}
			}
			w.active = append(w.active, t)
			defer func() { w.active = w.active[:len(w.active)-1] }()
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return w.scalar(t.Kind()), nil
	case reflect.Uintptr:
		return nil, unsupported(path, fmt.Sprintf("%s (a memory address has no meaning to a model; use uint64)", t))
	case reflect.Pointer:
		// invopop looks through pointers.
		return w.walk(t.Elem(), path, owner)
	case reflect.Slice, reflect.Array:
		items, err := w.walk(t.Elem(), path+"[]", owner)
		if err != nil {
			return nil, err
		}
		s := w.newSch()
		if t.Kind() == reflect.Array {
			n := optUint{uint64(t.Len()), true}
			s.kwd().minItems, s.kwd().maxItems = n, n
		}
		if t.Kind() == reflect.Slice && t.Elem() == byteType {
			s.typ, s.kwd().encoding = "string", "base64"
		} else {
			s.typ, s.items = "array", items
		}
		return w.named(t, s), nil
	case reflect.Map:
		k := t.Key().Kind()
		if k != reflect.String && !t.Key().Implements(textUnmarshalerType) &&
			!(k >= reflect.Int && k <= reflect.Uint64) {
			return nil, unsupported(path, fmt.Sprintf("map key type %s (keys must be strings, integers or encoding.TextUnmarshalers)", t.Key()))
		}
		elem, err := w.walk(t.Elem(), path+"{}", owner)
		if err != nil {
			return nil, err
		}
		s := w.newSch()
		s.typ = "object"
		switch {
		case k >= reflect.Int && k <= reflect.Int64:
			s.intKeys, s.noAddl = elem, true
		case t.Elem().Kind() != reflect.Interface:
			s.addl = elem
		}
		return w.named(t, s), nil
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return w.newSch(), nil
		}
		return nil, unsupported(path, fmt.Sprintf("non-empty interface %s (only any is free-form)", t))
	case reflect.Struct:
		i := -1
		if t.Name() != "" {
			if owner != nil {
				o := w.of(owner)
				w.structs[o].edges = append(w.structs[o].edges, t)
			}
			if i = w.of(t); i >= 0 {
				// Already met; the edge above records recursion.
				if w.structs[i].body == nil {
					return w.opaque(t), nil
				}
				return w.refTo(ref{st: i}), nil
			}
			i = len(w.structs)
			w.structs = append(w.structs, walkedStruct{name: sanitizeName(t.Name()), t: t})
			owner = t
		}
		if custom {
			return w.opaque(t), nil
		}
		body := w.newSch()
		body.typ, body.hasProps, body.noAddl, body.structBody = "object", true, true, true
		body.props = make([]prop, 0, t.NumField())
		body.required = make([]string, 0, t.NumField())
		if i >= 0 {
			w.structs[i].body = body
		}
		if err := w.fields(t, path, owner, embedded, body); err != nil {
			return nil, err
		}
		if i >= 0 {
			return w.refTo(ref{st: i}), nil
		}
		return body, nil
	}
	if custom {
		return w.opaque(t), nil
	}
	return nil, unsupported(path, fmt.Sprintf("%s (kind %s has no JSON form)", t, t.Kind()))
}

var byteType = reflect.TypeFor[byte]()

// named returns the schema of a slice, array or map type: invopop puts a
// named one into $defs, and the field's tags then go beside its $ref.
func (w *walker) named(t reflect.Type, s *sch) *sch {
	if t.Name() == "" {
		return s
	}
	return w.refTo(ref{st: -1, body: s})
}

// fields walks the fields of the struct t and builds them into st, as
// invopop's reflectStructFields does.
func (w *walker) fields(t reflect.Type, path string, owner reflect.Type, embedded bool, st *sch) *Error {
	visible := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			for _, key := range []string{"json", "jsonschema"} {
				if v, ok := f.Tag.Lookup(key); ok && v != "-" {
					return unsupported(joinPath(path, f.Name), fmt.Sprintf("unexported field with a %s tag (encoding/json ignores unexported fields; export it)", key))
				}
			}
			continue
		}
		visible++
		tags := readTags(f.Tag)
		tag := tags.json
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		if name == "-" {
			return unsupported(joinPath(path, f.Name),
				`JSON name "-" (tag json:"-,") cannot be expressed in the schema; choose another name`)
		}
		fp := name
		if f.Anonymous && tag == "" {
			fp = path // embedded fields are flattened
		} else if path != "" {
			fp = path + "." + name
		}
		if tags.misspelt != "" {
			return &Error{Path: fp, Msg: fmt.Sprintf("tag key %q is not read (did you mean %q?)", tags.misspelt, tags.meant), Tag: true}
		}
		if tags.hasSchema && f.IsExported() {
			// The field as invopop will read it: its json options and
			// our Mapper can change the schema type the tag applies to.
			if err := tagcheck.JSONSchemaTags(f.Type, f.Anonymous, tags.schema, tags.json, tags.hasDesc, w.mapper); err != nil {
				return &Error{Path: fp, Msg: err.Error(), Tag: true}
			}
		}
		w.embedding = f.Anonymous && tag == ""
		p, err := w.walk(f.Type, fp, owner)
		if err != nil {
			return err
		}
		if w.legacy {
			continue // only the checks are left to do
		}
		prop, embed, required, nullable := fieldName(&f, &tags)
		switch {
		case tagcheck.HasJSONOption(tag, "inline"):
			w.legacy = true
		case embed:
			w.embed(st, p)
		case prop != "":
			w.field(st, &tags, prop, p, required, nullable)
		}
	}
	if visible == 0 && t.NumField() > 0 && !embedded {
		return unsupported(path, fmt.Sprintf("%s has only unexported fields, which encoding/json ignores: the model could pass nothing; export them", t))
	}
	return nil
}

// embed takes the properties of an embedded struct, whose schema is p,
// into st.
func (w *walker) embed(st, p *sch) {
	body := p
	if p.isRef && p.ref.st >= 0 {
		body = w.structs[p.ref.st].body
	}
	if body == nil || !body.structBody {
		// invopop takes the fields of a type whose fields the walker
		// did not check (it reads its own JSON, or has its own schema).
		w.legacy = true
		return
	}
	for _, q := range body.props {
		st.setProp(q.name, q.s)
	}
	for _, r := range body.required {
		st.require(r)
	}
}

// joinPath is the Go path of a field, for errors about fields that have
// no JSON name.
func joinPath(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func unsupported(path, what string) *Error {
	return &Error{Path: path, Msg: what}
}

// recursiveNames returns the definition names of the struct types that can
// reach themselves.
func (w *walker) recursiveNames() []string {
	var rec []string
	for i, r := range w.recursive() {
		if r {
			rec = append(rec, w.defName(w.structs[i].t))
		}
	}
	return rec
}

// recursive reports, by index, which struct types can reach themselves.
func (w *walker) recursive() []bool {
	rec := make([]bool, len(w.structs))
	var seen, stack []reflect.Type
	for i := range w.structs {
		t := w.structs[i].t
		seen = seen[:0]
		stack = append(stack[:0], w.structs[i].edges...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == t {
				rec[i] = true
				break
			}
			if !containsType(seen, n) {
				seen = append(seen, n)
				if j := w.of(n); j >= 0 {
					stack = append(stack, w.structs[j].edges...)
				}
			}
		}
	}
	return rec
}

func containsType(l []reflect.Type, t reflect.Type) bool {
	for _, x := range l {
		if x == t {
			return true
		}
	}
	return false
}
