package schema

import (
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

var (
	aliasType         = reflect.TypeFor[interface{ JSONSchemaAlias() any }]()
	propertyAliasType = reflect.TypeFor[interface{ JSONSchemaProperty(string) any }]()
	extendType        = reflect.TypeFor[interface{ JSONSchemaExtend(*jsonschema.Schema) }]()
	fieldDocType      = reflect.TypeFor[interface{ GetFieldDocString(string) string }]()
	protoEnumType     = reflect.TypeFor[interface{ EnumDescriptor() ([]byte, []int) }]()
	customType        = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
)

// exotic reports whether invopop would hand t to user code that the
// walker does not mirror (see the comment at the top of sch.go).
func exotic(t reflect.Type) bool {
	if t.NumMethod() == 0 {
		return false // the interfaces below have exported methods only
	}
	return t.Implements(aliasType) || t.Implements(extendType) || t.Implements(protoEnumType) ||
		t.Kind() == reflect.Struct && (t.Implements(propertyAliasType) || t.Implements(fieldDocType))
}

// opaque returns the schema of a type whose parts the walker does not
// visit: invopop dereferences it and reflects what is left with its own
// rules or with our Mapper.
func (w *walker) opaque(t reflect.Type) *sch {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := w.newSch()
	if exotic(t) {
		w.legacy = true
		return s
	}
	switch {
	case t == durationType:
		s.typ, s.kwd().pattern = "string", durationPattern
	case t == timeType:
		s.typ, s.kwd().format = "string", "date-time"
	case t == rawMessageType:
	case t == ipType:
		s.typ, s.kwd().format = "string", "ipv4"
	case hasOwnSchema(t):
		return w.custom(t)
	case readsJSON(t):
	case t.Kind() != reflect.String && readsText(t):
		s.typ = "string"
	default:
		w.legacy = true // not reached: the walker visits every other type
	}
	return s
}

// custom returns the schema of a type with a JSONSchema method, which
// invopop puts into $defs under the type's name.
func (w *walker) custom(t reflect.Type) *sch {
	for _, c := range w.customs {
		if c.t == t {
			return w.refTo(c.r)
		}
	}
	if !t.Implements(customType) || t.Name() == "" {
		// invopop only calls a method of the value; without a name the
		// field's tags would change the method's own schema.
		w.legacy = true
		return w.newSch()
	}
	s := reflect.New(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }).JSONSchema()
	v, err := toTree(s)
	o, ok := v.(*jsonnode.Object)
	if err != nil || !ok || hasRef(o) {
		// A definition that is not an object, or one whose $refs name
		// other definitions, is invopop's and shapeRoot's business.
		w.legacy = true
		return w.newSch()
	}
	r := ref{st: -1, custom: o}
	w.customs = append(w.customs, customSchema{t, r})
	return w.refTo(r)
}

// hasRef reports whether a "$ref" key appears anywhere in v.
func hasRef(v any) bool {
	switch v := v.(type) {
	case *jsonnode.Object:
		for _, m := range v.Members {
			if m.Key == "$ref" || hasRef(m.Value) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasRef(x) {
				return true
			}
		}
	}
	return false
}
