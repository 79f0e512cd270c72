package encode

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
)

// field is one JSON object member of a struct, resolved as encoding/json
// resolves it (typeFields).
type field struct {
	name      string
	prefix    string // `"name":`, the name quoted as encoding/json writes it without HTML escaping
	tag       bool
	index     []int
	typ       reflect.Type
	omitEmpty bool
	omitZero  bool
	isZero    func(reflect.Value) bool
	quoted    bool
	encoder   encoderFunc
}

type structEncoder struct {
	fields []field
	// addressed encodes addressable values in place; nil when a field is
	// promoted through an embedded pointer.
	addressed addrEncoderFunc
}

func newStructEncoder(t reflect.Type) encoderFunc {
	fields, ok := typeFields(t)
	if !ok {
		return unsupportedEncoder
	}
	return structEncoder{fields, newAddrStructEncoder(t)}.encode
}

func (se structEncoder) encode(s *state, b []byte, v reflect.Value) ([]byte, error) {
	if se.addressed != nil && v.CanAddr() {
		return se.addressed(s, b, v.Addr().UnsafePointer())
	}
	if s.depth++; s.depth > maxDepth {
		return b, errFallback
	}
	next := byte('{')
FieldLoop:
	for i := range se.fields {
		f := &se.fields[i]
		var fv reflect.Value
		if len(f.index) == 1 {
			fv = v.Field(f.index[0])
		} else {
			// Promoted through embedded structs; a nil embedded pointer
			// hides the field.
			fv = v
			for _, i := range f.index {
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue FieldLoop
					}
					fv = fv.Elem()
				}
				fv = fv.Field(i)
			}
		}
		if (f.omitEmpty && isEmptyValue(fv)) ||
			(f.omitZero && (f.isZero == nil && fv.IsZero() || (f.isZero != nil && f.isZero(fv)))) {
			continue
		}
		b = append(b, next)
		next = ','
		b = append(b, f.prefix...)
		var err error
		if b, err = f.encoder(s, b, fv); err != nil {
			return b, err
		}
	}
	s.depth--
	if next == '{' {
		b = append(b, "{}"...)
	} else {
		b = append(b, '}')
	}
	return b, nil
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type isZeroer interface {
	IsZero() bool
}

var isZeroerType = reflect.TypeFor[isZeroer]()

// typeFields is encoding/json's typeFields: a breadth-first walk of embedded
// structs, then Go's visibility rules to pick the dominant field per name.
// It reports false for structs the compiled encoders leave to encoding/json
// (see parseJSONTag).
func typeFields(t reflect.Type) ([]field, bool) {
	current := []field{}
	next := []field{{typ: t}}

	// Count of queued names for current level and the next.
	var count, nextCount map[reflect.Type]int

	// Types already visited at an earlier level.
	visited := map[reflect.Type]bool{}

	var fields []field

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}

		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true

			for i := 0; i < f.typ.NumField(); i++ {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					t := sf.Type
					if t.Kind() == reflect.Pointer {
						t = t.Elem()
					}
					// Embedded unexported non-structs are ignored; embedded
					// unexported structs still promote their exported fields.
					if !sf.IsExported() && t.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				jt := parseJSONTag(tag)
				name := jt.name
				index := make([]int, len(f.index)+1)
				copy(index, f.index)
				index[len(f.index)] = i

				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if jt.fallback || name == "" && jt.embed && ft.Kind() != reflect.Struct {
					return nil, false
				}
				if skipField(sf, ft, jt) {
					continue
				}

				// ",string" applies only to scalar fields.
				quoted := false
				if jt.quoted {
					switch ft.Kind() {
					case reflect.Bool,
						reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64,
						reflect.String:
						quoted = true
					}
				}

				// A named field, or an embedded non-struct: a member.
				if name != "" || !(sf.Anonymous || jt.embed) || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					field := field{
						name:      name,
						prefix:    string(appendString(nil, name)) + ":",
						tag:       tagged,
						index:     index,
						typ:       ft,
						omitEmpty: jt.omitEmpty,
						omitZero:  jt.omitZero,
						quoted:    quoted,
					}
					if field.omitZero {
						field.isZero = isZeroFunc(sf.Type)
					}
					fields = append(fields, field)
					if count[f.typ] > 1 {
						// Two copies at the same level annihilate each other
						// below; one is enough to make that happen.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}

				// An embedded struct: walk it at the next level.
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, field{name: ft.Name(), index: index, typ: ft})
				}
			}
		}
	}

	slices.SortFunc(fields, func(a, b field) int {
		// Sort by name, then depth, then tagged first, then index order,
		// so the first field of each name is the dominant candidate.
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tag != b.tag {
			if a.tag {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})

	// Drop hidden fields and names that are ambiguous at their shallowest depth.
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		fi := fields[i]
		name := fi.name
		for advance = 1; i+advance < len(fields); advance++ {
			fj := fields[i+advance]
			if fj.name != name {
				break
			}
		}
		if advance == 1 {
			out = append(out, fi)
			continue
		}
		if dominant, ok := dominantField(fields[i : i+advance]); ok {
			out = append(out, dominant)
		}
	}

	fields = out
	slices.SortFunc(fields, func(i, j field) int {
		return slices.Compare(i.index, j.index)
	})

	for i := range fields {
		f := &fields[i]
		ft := typeByIndex(t, f.index)
		if f.quoted {
			f.encoder = newTypeEncoder(ft, true, true)
		} else {
			f.encoder = typeEncoder(ft)
		}
	}
	return fields, true
}

// isZeroFunc is encoding/json's omitzero test for fields whose type has an
// IsZero method; nil means reflect.Value.IsZero.
func isZeroFunc(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			// Avoid panics calling IsZero on a nil interface or a
			// non-nil interface holding a nil pointer.
			return v.IsNil() ||
				(v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) ||
				v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Interface().(isZeroer).IsZero()
		}
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.Interface().(isZeroer).IsZero()
		}
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				// Temporarily box v so we can take the address.
				v2 := reflect.New(v.Type()).Elem()
				v2.Set(v)
				v = v2
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return nil
}

func dominantField(fields []field) (field, bool) {
	// Fields are sorted by depth then tag: a tie between the first two
	// means no field dominates.
	if len(fields) > 1 && len(fields[0].index) == len(fields[1].index) && fields[0].tag == fields[1].tag {
		return field{}, false
	}
	return fields[0], true
}

func typeByIndex(t reflect.Type, index []int) reflect.Type {
	for _, i := range index {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		t = t.Field(i).Type
	}
	return t
}

// jsonTag is what a struct field's json tag asks for, as parseJSONTag reads it.
type jsonTag struct {
	name      string // "" when the tag names no member
	omitEmpty bool
	omitZero  bool
	quoted    bool // ",string"
	embed     bool // ",embed" (encoding/json/v2): members inlined like an embedded struct's
	fallback  bool // a tag the compiled encoders leave to encoding/json
}
