package schema

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// The walker builds the schema as it checks the type: one walk per type.
// It reads the tags with invopop/jsonschema's grammar and builds what
// invopop's Reflector would (with the settings reflectRoot gives it), in
// an intermediate form, sch, which mirrors the fields of jsonschema.Schema
// that reflection sets. The emitter then writes the tree in the library's
// shape directly: what toTree, shapeRoot and tidy make of invopop's schema,
// with no jsonschema.Schema, no marshalling and no parsing.
//
// A type's own JSONSchema method is called, as invopop does, and its
// result converted. Types that hand invopop's own *jsonschema.Schema to
// user code to change (JSONSchemaExtend), that replace themselves or their
// properties with other types (JSONSchemaAlias, JSONSchemaProperty,
// GetFieldDocString), protobuf enums, and tags that refer to definitions
// by name (oneof_ref, anyof_ref, oneof_required, anyof_required) are left
// to invopop itself: the walk marks the type legacy, finishes its checks,
// and Build has invopop reflect it as before. TestBuildMatchesInvopop and
// TestBuildMatchesInvopopRandom hold the two ways to the same bytes.

// sch is one schema as invopop's reflection would build it. With isRef
// set, it is a $ref to a definition, and its other fields are the keywords
// beside the $ref (which shapeRoot merges into the inlined definition).
type sch struct {
	ref        ref
	isRef      bool
	hasProps   bool // a struct: properties is written even when empty
	noAddl     bool // additionalProperties false
	structBody bool // the body of a struct, whose properties an embedding takes
	typ        string
	items      *sch
	props      []prop // properties, in the order first set
	intKeys    *sch   // patternProperties {"^[0-9]+$": intKeys}
	addl       *sch
	required   []string
	kw         *keywords // the keywords few schemas have
}

// keywords are the fields of jsonschema.Schema that few schemas have:
// those a field's tags set, and those of a few kinds of type.
type keywords struct {
	pattern      string
	format       string
	encoding     string
	minItems     optUint
	maxItems     optUint
	unique       bool
	anchor       string
	anyOf, oneOf []*sch
	enum         []any
	multipleOf   json.Number
	maximum      json.Number
	xmaximum     json.Number
	minimum      json.Number
	xminimum     json.Number
	maxLength    optUint
	minLength    optUint
	title        string
	description  string
	def          any // default
	readOnly     bool
	writeOnly    bool
	examples     []any
	extras       []extra
}

func (s *sch) kwd() *keywords {
	if s.kw == nil {
		s.kw = &keywords{}
	}
	return s.kw
}

type prop struct {
	name string
	s    *sch
}

type extra struct {
	key string
	val any // string, bool, int or []string, as invopop's setExtra makes them
}

type optUint struct {
	v  uint64
	ok bool
}

// ref is a definition: a named struct (st is its index among the walked
// structs), or the body of a named slice, array or map, or the schema a
// named type gives with its JSONSchema method.
type ref struct {
	st     int
	body   *sch
	custom *jsonnode.Object
}

// newSch returns a zero sch. The schemas of one walk are allocated
// together: they live and die together.
func (w *walker) newSch() *sch {
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]sch, 0, 8)
	}
	w.slab = w.slab[:len(w.slab)+1]
	return &w.slab[len(w.slab)-1]
}

func (w *walker) refTo(r ref) *sch {
	s := w.newSch()
	s.ref, s.isRef = r, true
	return s
}

func (s *sch) setProp(name string, p *sch) {
	for i := range s.props {
		if s.props[i].name == name {
			s.props[i].s = p
			return
		}
	}
	s.props = append(s.props, prop{name, p})
}

func (s *sch) require(name string) {
	if !slices.Contains(s.required, name) {
		s.required = append(s.required, name)
	}
}

// isEmpty mirrors reflect.DeepEqual(&jsonschema.Schema{}, s): such a schema
// marshals as true.
func (s *sch) isEmpty() bool {
	if s.isRef || s.items != nil || s.props != nil || s.hasProps || s.intKeys != nil || s.addl != nil ||
		s.noAddl || s.typ != "" || s.required != nil {
		return false
	}
	k := s.kw
	return k == nil || k.pattern == "" && !k.maxItems.ok && !k.minItems.ok && !k.unique &&
		k.format == "" && k.encoding == "" && k.anchor == "" && k.anyOf == nil && k.oneOf == nil && k.enum == nil &&
		k.multipleOf == "" && k.maximum == "" && k.xmaximum == "" && k.minimum == "" && k.xminimum == "" &&
		!k.maxLength.ok && !k.minLength.ok && k.title == "" && k.description == "" && k.def == nil &&
		!k.readOnly && !k.writeOnly && k.examples == nil && k.extras == nil
}

// scalar returns the schema of a bool, number or string kind.
func (w *walker) scalar(k reflect.Kind) *sch {
	s := w.newSch()
	switch k {
	case reflect.Bool:
		s.typ = "boolean"
	case reflect.String:
		s.typ = "string"
	case reflect.Float32, reflect.Float64:
		s.typ = "number"
	default:
		s.typ = "integer"
	}
	return s
}
