package toolcall

import (
	"encoding"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// SchemaFor returns the JSON Schema that tools built from v's type send as
// their input schema. v must be a struct or a pointer to one; its exported
// fields are the parameters, named and made optional by their json tags
// (omitempty or omitzero means optional, everything else is required), and
// described by jsonschema tags in the syntax of github.com/invopop/jsonschema.
//
// The schema inlines nested types and uses $defs/$ref only for recursive
// types. Every object with fixed properties has additionalProperties false.
// Each type is reflected once; later calls return the cached result.
func SchemaFor(v any) (json.RawMessage, error) {
	s, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), s.plain...), nil
}

// StrictSchemaFor is like [SchemaFor] but returns the strict variant (see
// [WithStrict]): every property is required, and optional ones also accept
// null.
func StrictSchemaFor(v any) (json.RawMessage, error) {
	s, err := schemaOf(reflect.TypeOf(v))
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), s.strict...), nil
}

// typeSchema is the cached reflection of one argument type.
type typeSchema struct {
	plain, strict json.RawMessage
	hasDuration   bool // the type needs the time.Duration decoder
	err           error

	once                    sync.Once
	plainCheck, strictCheck *validator
	plan                    *dplan // the compiled decoder, nil if the type needs the codec
	typ                     reflect.Type
}

// decoderPlan returns the compiled decoder for the argument type.
func (ts *typeSchema) decoderPlan() *dplan {
	ts.validatorFor(nil)
	return ts.plan
}

// validatorFor returns the compiled validator of schema, which is usually
// one of the type's own two.
func (ts *typeSchema) validatorFor(schema json.RawMessage) *validator {
	ts.once.Do(func() {
		ts.plainCheck, _ = compileValidator(ts.plain)
		ts.strictCheck, _ = compileValidator(ts.strict)
		if ts.plainCheck != nil && ts.typ != nil {
			t := ts.typ
			if t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			ts.plan = compilePlan(t, ts.plainCheck.root)
		}
	})
	switch {
	case sameBytes(schema, ts.plain):
		return ts.plainCheck
	case sameBytes(schema, ts.strict):
		return ts.strictCheck
	case schema == nil:
		return nil
	}
	v, _ := compileValidator(schema)
	return v
}

func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

var schemaCache sync.Map // reflect.Type -> *typeSchema

func schemaOf(t reflect.Type) (*typeSchema, error) {
	if t == nil {
		return nil, &DefinitionError{Err: fmt.Errorf("%w: nil type", ErrUnsupportedType)}
	}
	if s, ok := schemaCache.Load(t); ok {
		ts := s.(*typeSchema)
		return ts, ts.err
	}
	ts := buildSchema(t)
	s, _ := schemaCache.LoadOrStore(t, ts)
	ts = s.(*typeSchema)
	return ts, ts.err
}

var (
	durationType        = reflect.TypeFor[time.Duration]()
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	schemaerType        = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	ipType              = reflect.TypeFor[net.IP]()
)

// readsJSON and readsText report whether t (or *t, as encoding/json
// decodes into) has its own UnmarshalJSON or UnmarshalText.
func readsJSON(t reflect.Type) bool {
	return t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType)
}

func readsText(t reflect.Type) bool {
	return t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// decodesItself reports whether t reads its own JSON or text form.
func decodesItself(t reflect.Type) bool { return readsJSON(t) || readsText(t) }

// hasOwnSchema reports whether t (or *t) supplies its schema with JSONSchema().
func hasOwnSchema(t reflect.Type) bool {
	return t.Implements(schemaerType) || reflect.PointerTo(t).Implements(schemaerType)
}

func buildSchema(t reflect.Type) (ts *typeSchema) {
	ts = &typeSchema{typ: t}
	defer func() {
		// invopop panics on some inputs; a user's type must never crash us.
		if r := recover(); r != nil {
			ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: schema generation failed: %v", ErrUnsupportedType, r)}
		}
	}()
	root := t
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if root.Kind() != reflect.Struct {
		ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: arguments must be a struct, got %s", ErrUnsupportedType, t)}
		return ts
	}
	if root == timeType || decodesItself(root) {
		// Arguments are always a JSON object; this type reads another form.
		ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: arguments must be a JSON object, and %s reads its own JSON form; make it a field of an arguments struct", ErrUnsupportedType, t)}
		return ts
	}
	w := typeWalker{names: map[string]reflect.Type{}, edges: map[reflect.Type][]reflect.Type{}}
	if err := w.walk(root, "", nil); err != nil {
		ts.err = err
		return ts
	}
	ts.hasDuration = w.hasDuration
	recursive := w.recursiveNames()

	r := &jsonschema.Reflector{
		Anonymous: true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			switch {
			case t == durationType:
				return &jsonschema.Schema{Type: "string", Pattern: durationPattern}
			case t == root || t == timeType || t == rawMessageType || t == ipType || hasOwnSchema(t):
				return nil
			case readsJSON(t):
				return &jsonschema.Schema{} // its own JSON form, which a schema cannot know (T3)
			case t.Kind() != reflect.String && readsText(t):
				return &jsonschema.Schema{Type: "string"} // encoding/json reads it from a string
			}
			return nil
		},
		Namer: w.defName,
	}
	s := r.ReflectFromType(root)
	raw, err := json.Marshal(s)
	if err != nil {
		ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: %v", ErrUnsupportedType, err)}
		return ts
	}
	tree, err := jsonnode.Parse(raw)
	if err != nil {
		ts.err = &DefinitionError{Type: t.String(), Err: fmt.Errorf("%w: %v", ErrUnsupportedType, err)}
		return ts
	}
	plain := tidy(shapeRoot(tree.(*jsonnode.Object), recursive)).(*jsonnode.Object)
	ts.plain = jsonnode.Marshal(plain)
	ts.strict = jsonnode.Marshal(strictVariant(jsonnode.Clone(plain).(*jsonnode.Object)))
	return ts
}

// durationPattern accepts what time.ParseDuration does, e.g. "1h30m", "90s".
const durationPattern = `^-?([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$|^0$`

// shapeRoot turns invopop's output into the library's shape (S1): the root
// is the object schema itself, non-recursive definitions are inlined, and
// $defs keeps only the recursive types.
func shapeRoot(s *jsonnode.Object, recursive map[string]bool) *jsonnode.Object {
	defs := map[string]*jsonnode.Object{}
	if d, ok := s.Get("$defs"); ok {
		for _, m := range d.(*jsonnode.Object).Members {
			defs[m.Key] = m.Value.(*jsonnode.Object)
		}
	}
	root := s
	if ref, ok := s.Get("$ref"); ok {
		root = jsonnode.Clone(defs[defName(ref.(string))]).(*jsonnode.Object)
	}
	root.Delete("$schema")
	root.Delete("$id")
	root.Delete("$defs")
	root.Delete("$ref")
	kept := &jsonnode.Object{}
	var inline func(v any) any
	inline = func(v any) any {
		switch v := v.(type) {
		case *jsonnode.Object:
			if ref, ok := v.Get("$ref"); ok {
				name := defName(fmt.Sprint(ref))
				if def, ok := defs[name]; ok && !recursive[name] {
					body := inline(jsonnode.Clone(def)).(*jsonnode.Object)
					for _, m := range v.Members {
						if m.Key != "$ref" {
							body.Set(m.Key, inline(m.Value))
						}
					}
					return body
				}
				if _, seen := kept.Get(name); !seen && defs[name] != nil {
					kept.Set(name, nil) // reserve: the body may refer to itself
					kept.Set(name, inline(jsonnode.Clone(defs[name])))
				}
				return v
			}
			subschemas(v, inline)
		}
		return v
	}
	root = inline(root).(*jsonnode.Object)
	out := &jsonnode.Object{}
	out.Set("type", "object")
	if p, ok := root.Get("properties"); ok {
		out.Set("properties", p)
	} else {
		out.Set("properties", &jsonnode.Object{})
	}
	if r, ok := root.Get("required"); ok {
		out.Set("required", r)
	} else {
		out.Set("required", []any{})
	}
	out.Set("additionalProperties", false)
	for _, m := range root.Members {
		switch m.Key {
		case "type", "properties", "required", "additionalProperties":
		default:
			out.Set(m.Key, m.Value)
		}
	}
	if len(kept.Members) > 0 {
		out.Set("$defs", kept)
	}
	return out
}

// keyOrder puts the keywords a reader (and a model) looks for first.
var keyOrder = []string{"type", "description", "enum", "properties", "required", "additionalProperties", "items"}

// tidy orders each schema's keywords and replaces boolean schemas, which
// some providers reject, with their object forms.
func tidy(v any) any {
	switch v := v.(type) {
	case bool:
		if v {
			return &jsonnode.Object{}
		}
		return notSchema()
	case *jsonnode.Object:
		sorted := make([]jsonnode.Member, 0, len(v.Members))
		for _, k := range keyOrder {
			if x, ok := v.Get(k); ok {
				sorted = append(sorted, jsonnode.Member{Key: k, Value: x})
			}
		}
		for _, m := range v.Members {
			if !slices.Contains(keyOrder, m.Key) {
				sorted = append(sorted, m)
			}
		}
		v.Members = sorted
		subschemas(v, tidy)
	}
	return v
}

// subschemas replaces each subschema of s with f of it: the values of
// properties, $defs and patternProperties, the schemas of items,
// additionalProperties, not and the like, and the members of anyOf, allOf,
// oneOf and prefixItems. The values of other keywords (enum, default,
// examples, required...) are data, and a property may be named like a
// keyword, so walking the tree blindly would misread both.
func subschemas(s *jsonnode.Object, f func(any) any) {
	for i := range s.Members {
		m := &s.Members[i]
		switch m.Key {
		case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas":
			if o, ok := m.Value.(*jsonnode.Object); ok {
				for j := range o.Members {
					o.Members[j].Value = f(o.Members[j].Value)
				}
			}
		case "items", "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else",
			"propertyNames", "unevaluatedItems", "unevaluatedProperties",
			"anyOf", "allOf", "oneOf", "prefixItems":
			if a, ok := m.Value.([]any); ok {
				for j := range a {
					a[j] = f(a[j])
				}
			} else if m.Key != "additionalProperties" || !isBool(m.Value) {
				m.Value = f(m.Value)
			}
		}
	}
}

func getObject(s *jsonnode.Object, key string) (*jsonnode.Object, bool) {
	v, _ := s.Get(key)
	o, ok := v.(*jsonnode.Object)
	return o, ok
}

func asList(v any) []any {
	a, _ := v.([]any)
	return a
}

func isBool(v any) bool {
	_, ok := v.(bool)
	return ok
}

func notSchema() *jsonnode.Object {
	o := &jsonnode.Object{}
	o.Set("not", &jsonnode.Object{})
	return o
}

func defName(ref string) string { return strings.TrimPrefix(ref, "#/$defs/") }

// strictVariant rewrites a schema for OpenAI's strict mode: every property
// is required, and one that was optional becomes nullable.
func strictVariant(s *jsonnode.Object) *jsonnode.Object {
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case *jsonnode.Object:
			if props, ok := getObject(v, "properties"); ok {
				required := map[string]bool{}
				if r, ok := v.Get("required"); ok {
					for _, name := range asList(r) {
						required[fmt.Sprint(name)] = true
					}
				}
				all := make([]any, 0, len(props.Members))
				for i, m := range props.Members {
					all = append(all, m.Key)
					if !required[m.Key] {
						props.Members[i].Value = nullable(m.Value)
					}
				}
				v.Set("required", all)
			}
			subschemas(v, func(x any) any { visit(x); return x })
		}
	}
	visit(s)
	return s
}

func nullable(v any) any {
	o, ok := v.(*jsonnode.Object)
	if !ok {
		return v
	}
	if t, ok := o.Get("type"); ok {
		switch t := t.(type) {
		case string:
			o.Set("type", []any{t, "null"})
			if e, ok := o.Get("enum"); ok {
				o.Set("enum", append(e.([]any), nil))
			}
			return o
		case []any:
			for _, x := range t {
				if x == "null" {
					return o
				}
			}
			o.Set("type", append(t, "null"))
			return o
		}
	}
	if len(o.Members) == 0 {
		return o // free-form already accepts null
	}
	n := &jsonnode.Object{}
	nullType := &jsonnode.Object{}
	nullType.Set("type", "null")
	n.Set("anyOf", []any{o, nullType})
	return n
}

// typeWalker checks that every part of an argument type can be expressed
// in JSON, and finds the recursive types.
type typeWalker struct {
	names       map[string]reflect.Type // definition name -> type
	edges       map[reflect.Type][]reflect.Type
	active      map[reflect.Type]bool // named non-struct types being walked
	hasDuration bool
	embedding   bool // the next struct walked is embedded: its fields merge into the outer one
}

func (w *typeWalker) defName(t reflect.Type) string {
	name := sanitizeName(t.Name())
	if other, ok := w.names[name]; ok && other != t {
		return sanitizeName(t.String())
	}
	return name
}

func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// walk visits t at the parameter path path. owner is the nearest named
// struct above t, for the recursion graph.
func (w *typeWalker) walk(t reflect.Type, path string, owner reflect.Type) error {
	embedded := w.embedding
	if t.Kind() != reflect.Pointer {
		w.embedding = false
	}
	if t == durationType {
		w.hasDuration = true
		return nil
	}
	if t == timeType || t == rawMessageType || hasOwnSchema(t) {
		return nil
	}
	custom := readsJSON(t) || t.Kind() != reflect.String && readsText(t)
	if custom && t.Kind() != reflect.Struct {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		// Only a struct can hold itself in a schema ($defs); the generator
		// would recurse forever on a type like []Self.
		if t.Name() != "" {
			if w.active[t] {
				return w.unsupported(path, fmt.Sprintf("recursive type %s (a type can contain itself only through a struct)", t))
			}
			if w.active == nil {
				w.active = map[reflect.Type]bool{}
			}
			w.active[t] = true
			defer delete(w.active, t)
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Uintptr:
		return w.unsupported(path, fmt.Sprintf("%s (a memory address has no meaning to a model; use uint64)", t))
	case reflect.Pointer, reflect.Slice, reflect.Array:
		elemPath := path + "[]"
		if t.Kind() == reflect.Pointer {
			elemPath = path
		}
		return w.walk(t.Elem(), elemPath, owner)
	case reflect.Map:
		k := t.Key().Kind()
		if k != reflect.String && !t.Key().Implements(textUnmarshalerType) &&
			!(k >= reflect.Int && k <= reflect.Uint64) {
			return w.unsupported(path, fmt.Sprintf("map key type %s (keys must be strings, integers or encoding.TextUnmarshalers)", t.Key()))
		}
		return w.walk(t.Elem(), path+"{}", owner)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return nil
		}
		return w.unsupported(path, fmt.Sprintf("non-empty interface %s (only any is free-form)", t))
	case reflect.Struct:
		if t.Name() != "" {
			if owner != nil {
				w.edges[owner] = append(w.edges[owner], t)
			}
			name := sanitizeName(t.Name())
			if prev, seen := w.names[name]; seen && prev == t {
				return nil // already checked; the edge above records recursion
			} else if !seen {
				w.names[name] = t
			}
			owner = t
		}
		if custom {
			return nil
		}
		visible := 0
		for i := range t.NumField() {
			f := t.Field(i)
			goPath := strings.TrimPrefix(path+"."+f.Name, ".")
			if !f.IsExported() && !f.Anonymous {
				for _, key := range []string{"json", "jsonschema"} {
					if v, ok := f.Tag.Lookup(key); ok && v != "-" {
						return w.unsupported(goPath, fmt.Sprintf("unexported field with a %s tag (encoding/json ignores unexported fields; export it)", key))
					}
				}
				continue
			}
			visible++
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			if name == "-" {
				return w.unsupported(goPath,
					`JSON name "-" (tag json:"-,") cannot be expressed in the schema; choose another name`)
			}
			fp := name
			if f.Anonymous && tag == "" {
				fp = path // embedded fields are flattened
			} else if path != "" {
				fp = path + "." + name
			}
			w.embedding = f.Anonymous && tag == ""
			if err := w.walk(f.Type, fp, owner); err != nil {
				return err
			}
		}
		if visible == 0 && t.NumField() > 0 && !embedded {
			return w.unsupported(path, fmt.Sprintf("%s has only unexported fields, which encoding/json ignores: the model could pass nothing; export them", t))
		}
		return nil
	}
	if custom {
		return nil
	}
	return w.unsupported(path, fmt.Sprintf("%s (kind %s has no JSON form)", t, t.Kind()))
}

func (w *typeWalker) unsupported(path, what string) error {
	return &DefinitionError{Path: path, Err: fmt.Errorf("%w: %s", ErrUnsupportedType, what)}
}

// recursiveNames returns the definition names of the struct types that can
// reach themselves.
func (w *typeWalker) recursiveNames() map[string]bool {
	rec := map[string]bool{}
	for t := range w.edges {
		seen := map[reflect.Type]bool{}
		stack := append([]reflect.Type(nil), w.edges[t]...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == t {
				rec[w.defName(t)] = true
				break
			}
			if !seen[n] {
				seen[n] = true
				stack = append(stack, w.edges[n]...)
			}
		}
	}
	return rec
}
