// Package schema builds the JSON Schema of a tool's argument type, in the
// form the library sends to models (nested types inlined, $defs only for
// recursive types, keywords in a fixed order).
//
// One walk over the type checks that every part of it has a JSON form,
// checks its tags, and builds the schema: the tags are read with the
// grammar of github.com/invopop/jsonschema, and the schema is the one
// invopop's Reflector would give, reshaped. The few features that hand
// invopop's own *jsonschema.Schema to the type's code to change (such as
// JSONSchemaExtend) are left to invopop itself (see sch.go).
package schema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"
	"time"

	json2 "github.com/go-json-experiment/json"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// Type is the schema of one argument type. Its fields are shared and must
// not be changed.
type Type struct {
	Plain       json.RawMessage  // the schema sent to a model
	Tree        *jsonnode.Object // Plain, parsed: compile checkers from it without parsing again
	HasDuration bool             // the type holds a time.Duration, which needs its own decoder
}

// StrictOf returns the strict variant of the object schema tree, which is
// left as it is.
func StrictOf(tree *jsonnode.Object) *jsonnode.Object {
	return rewriteOptional(jsonnode.Clone(tree).(*jsonnode.Object), true)
}

// Error is why a type has no schema.
type Error struct {
	Path string // the parameter path, as in "options.callback"; "" for the type itself
	Msg  string
	Tag  bool // a mistake in a jsonschema tag rather than an unsupported type
}

// Error reads "parameter PATH: MSG", or MSG alone for the type itself.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

var (
	durationType        = reflect.TypeFor[time.Duration]()
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	schemaerType        = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	jsonUnmarshalerFrom = reflect.TypeFor[json2.UnmarshalerFrom]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	ipType              = reflect.TypeFor[net.IP]()
)

// readsJSON reports whether t (or *t, as the decoder decodes into) has its
// own UnmarshalJSON, or the UnmarshalJSONFrom of the JSON codec arguments
// fall back to.
func readsJSON(t reflect.Type) bool {
	if methodless(t) {
		return false
	}
	for _, u := range []reflect.Type{jsonUnmarshalerType, jsonUnmarshalerFrom} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return true
		}
	}
	return false
}

// readsText reports whether t (or *t) has its own UnmarshalText, with
// which encoding/json reads it from a JSON string.
func readsText(t reflect.Type) bool {
	return !methodless(t) && (t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType))
}

// methodless reports whether neither t nor *t has exported methods, so
// neither implements any of the interfaces the schema looks for.
func methodless(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Chan, reflect.Func:
		if t.Name() == "" {
			return true // a composite type literal has no methods
		}
	case reflect.Interface:
		return false
	}
	return t.NumMethod() == 0 && reflect.PointerTo(t).NumMethod() == 0
}

// DecodesItself reports whether t reads its own JSON or text form.
func DecodesItself(t reflect.Type) bool { return readsJSON(t) || readsText(t) }

// hasOwnSchema reports whether t (or *t) supplies its schema with JSONSchema().
func hasOwnSchema(t reflect.Type) bool {
	return !methodless(t) && (t.Implements(schemaerType) || reflect.PointerTo(t).Implements(schemaerType))
}

// Build reflects the schema of the argument type t, a struct or a pointer
// to one. It caches nothing.
func Build(t reflect.Type) (*Type, error) { return build(t, false) }

// build is Build; with legacy, invopop reflects the type whatever it
// holds, as it does for the types the walker leaves to it: the tests
// compare the two.
func build(t reflect.Type, legacy bool) (ts *Type, err error) {
	if t == nil {
		return nil, &Error{Msg: "nil type"}
	}
	defer func() {
		// invopop panics on some inputs; a user's type must never crash us.
		if r := recover(); r != nil {
			ts, err = nil, &Error{Msg: fmt.Sprintf("schema generation failed: %v", r)}
		}
	}()
	root := t
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if root.Kind() != reflect.Struct {
		return nil, &Error{Msg: fmt.Sprintf("arguments must be a struct, got %s", t)}
	}
	if root == timeType || DecodesItself(root) {
		// Arguments are always a JSON object; this type reads another form.
		return nil, &Error{Msg: fmt.Sprintf("arguments must be a JSON object, and %s reads its own JSON form; make it a field of an arguments struct", t)}
	}
	w := walker{mapper: mapper(root), legacy: legacy}
	s, e := w.walk(root, "", nil)
	if e != nil {
		return nil, e
	}
	if s.isRef && s.ref.st >= 0 {
		s = w.structs[s.ref.st].body
	}
	var plain *jsonnode.Object
	if w.legacy || s == nil || !s.structBody {
		// The root is legacy too when it has its own schema.
		if plain, err = w.reflect(root); err != nil {
			return nil, err
		}
	} else {
		em := emitter{w: &w, rec: w.recursive()}
		plain = em.root(s)
	}
	return &Type{Plain: jsonnode.Marshal(plain), Tree: plain, HasDuration: w.hasDuration}, nil
}

// reflect has invopop reflect root, whose parts w has checked and named,
// and reshapes its schema: for the types the walker leaves to invopop.
func (w *walker) reflect(root reflect.Type) (*jsonnode.Object, error) {
	recursive := w.recursiveNames()
	tree, err := toTree(reflectRoot(root, w))
	if err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	return tidy(shapeRoot(tree.(*jsonnode.Object), recursive)).(*jsonnode.Object), nil
}

// reflectRoot has invopop reflect the struct root, whose parts w has
// checked and named.
func reflectRoot(root reflect.Type, w *walker) *jsonschema.Schema {
	r := &jsonschema.Reflector{Anonymous: true, Mapper: w.mapper, Namer: w.defName}
	return r.ReflectFromType(root)
}

// mapper gives invopop the schemas of the types whose JSON form is not
// what their Go kind says.
func mapper(root reflect.Type) func(reflect.Type) *jsonschema.Schema {
	return func(t reflect.Type) *jsonschema.Schema {
		switch {
		case t == durationType:
			return &jsonschema.Schema{Type: "string", Pattern: durationPattern}
		case t == root || t == timeType || t == rawMessageType || t == ipType || hasOwnSchema(t):
			return nil
		case readsJSON(t):
			return &jsonschema.Schema{} // its own JSON form, which a schema cannot know
		case t.Kind() != reflect.String && readsText(t):
			return &jsonschema.Schema{Type: "string"} // encoding/json reads it from a string
		}
		return nil
	}
}

// durationPattern accepts what time.ParseDuration does, e.g. "1h30m", "90s".
const durationPattern = `^-?([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$|^0$`

// shapeRoot turns invopop's output into the library's shape: the root is
// the object schema itself, non-recursive definitions are inlined, and
// $defs keeps only the recursive types.
func shapeRoot(s *jsonnode.Object, recursive []string) *jsonnode.Object {
	var defs []jsonnode.Member
	if d, ok := s.Get("$defs"); ok {
		defs = d.(*jsonnode.Object).Members
		for _, m := range defs {
			_ = m.Value.(*jsonnode.Object) // a boolean definition cannot be inlined
		}
	}
	def := func(name string) *jsonnode.Object {
		for _, m := range defs {
			if m.Key == name {
				return m.Value.(*jsonnode.Object)
			}
		}
		return nil
	}
	root := s
	if ref, ok := s.Get("$ref"); ok {
		root = jsonnode.Clone(def(defName(ref.(string)))).(*jsonnode.Object)
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
				d := def(name)
				if d != nil && !slices.Contains(recursive, name) {
					body := inline(jsonnode.Clone(d)).(*jsonnode.Object)
					for _, m := range v.Members {
						if m.Key != "$ref" {
							body.Set(m.Key, inline(m.Value))
						}
					}
					return body
				}
				if _, seen := kept.Get(name); !seen && d != nil {
					kept.Set(name, nil) // reserve: the body may refer to itself
					kept.Set(name, inline(jsonnode.Clone(d)))
				}
				return v
			}
			subschemas(v, inline)
		}
		return v
	}
	root = inline(root).(*jsonnode.Object)
	out := &jsonnode.Object{Members: make([]jsonnode.Member, 0, len(root.Members)+2)}
	out.Members = append(out.Members, jsonnode.Member{Key: "type", Value: "object"})
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
		if len(v.Members) == 0 {
			return v
		}
		order(v)
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
			} else if _, isBool := m.Value.(bool); m.Key != "additionalProperties" || !isBool {
				m.Value = f(m.Value)
			}
		}
	}
}

func notSchema() *jsonnode.Object {
	return &jsonnode.Object{Members: []jsonnode.Member{{Key: "not", Value: &jsonnode.Object{}}}}
}

func defName(ref string) string { return strings.TrimPrefix(ref, "#/$defs/") }

// rewriteOptional makes every optional property of every object schema in
// s nullable, as OpenAI's strict mode sends an absent value; with
// required, it also lists every property as required, as strict mode
// wants.
func rewriteOptional(s *jsonnode.Object, required bool) *jsonnode.Object {
	var visit func(v any) any
	visit = func(v any) any {
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return v
		}
		if p, _ := o.Get("properties"); p != nil {
			if props, ok := p.(*jsonnode.Object); ok {
				var req []any
				if r, ok := o.Get("required"); ok {
					req, _ = r.([]any)
				}
				all := make([]any, 0, len(props.Members))
				for i, m := range props.Members {
					all = append(all, m.Key)
					if !listed(req, m.Key) {
						props.Members[i].Value = nullable(m.Value)
					}
				}
				if required {
					o.Set("required", all)
				}
			}
		}
		subschemas(o, visit)
		return o
	}
	visit(s)
	return s
}

// listed reports whether name is in the required list, whose entries are
// compared as fmt.Sprint shows them.
func listed(req []any, name string) bool {
	for _, r := range req {
		if s, ok := r.(string); ok {
			if s == name {
				return true
			}
		} else if fmt.Sprint(r) == name {
			return true
		}
	}
	return false
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
	return &jsonnode.Object{Members: []jsonnode.Member{{Key: "anyOf", Value: []any{o, &jsonnode.Object{
		Members: []jsonnode.Member{{Key: "type", Value: "null"}},
	}}}}}
}
