package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// emitter writes sch trees as jsonnode trees in the library's shape.
type emitter struct {
	w       *walker
	rec     []bool // by struct index: the struct can reach itself
	kept    *jsonnode.Object
	scratch []jsonnode.Member
}

// root writes the arguments' schema: the struct's body, made to start with
// type, properties, required and additionalProperties, then $defs.
func (e *emitter) root(s *sch) *jsonnode.Object {
	body := e.object(s)
	if e.kept == nil && len(body.Members) == 4 && body.Members[0].Key == "type" && body.Members[0].Value == "object" &&
		body.Members[1].Key == "properties" && body.Members[2].Key == "required" &&
		body.Members[3].Key == "additionalProperties" && body.Members[3].Value == false {
		return body // already in shape, as a struct with required fields is
	}
	out := &jsonnode.Object{Members: make([]jsonnode.Member, 0, len(body.Members)+2)}
	out.Members = append(out.Members, jsonnode.Member{Key: "type", Value: "object"})
	if p, ok := body.Get("properties"); ok {
		out.Members = append(out.Members, jsonnode.Member{Key: "properties", Value: p})
	} else {
		out.Members = append(out.Members, jsonnode.Member{Key: "properties", Value: &jsonnode.Object{}})
	}
	if r, ok := body.Get("required"); ok {
		out.Members = append(out.Members, jsonnode.Member{Key: "required", Value: r})
	} else {
		out.Members = append(out.Members, jsonnode.Member{Key: "required", Value: []any{}})
	}
	out.Members = append(out.Members, jsonnode.Member{Key: "additionalProperties", Value: false})
	for _, m := range body.Members {
		switch m.Key {
		case "type", "properties", "required", "additionalProperties":
		default:
			out.Set(m.Key, m.Value)
		}
	}
	if e.kept != nil {
		out.Set("$defs", e.kept)
	}
	order(out)
	return out
}

// schema writes s in a subschema's place, where an empty schema (true) is
// written {}.
func (e *emitter) schema(s *sch) *jsonnode.Object {
	if s.isEmpty() {
		return &jsonnode.Object{}
	}
	return e.object(s)
}

// object writes s, which is not empty, with its $ref resolved as shapeRoot
// does: the definition inlined, unless it is a recursive struct, which
// stays in $defs.
func (e *emitter) object(s *sch) *jsonnode.Object {
	if !s.isRef {
		return e.members(s, "", false)
	}
	r := s.ref
	if r.st >= 0 && e.rec[r.st] {
		name := e.w.defName(e.w.structs[r.st].t)
		if e.kept == nil {
			e.kept = &jsonnode.Object{}
		}
		if _, seen := e.kept.Get(name); !seen {
			e.kept.Set(name, nil) // reserve: the body may refer to itself
			e.kept.Set(name, e.object(e.w.structs[r.st].body))
		}
		return e.members(s, "#/$defs/"+name, false)
	}
	var body *jsonnode.Object
	switch {
	case r.custom != nil:
		body = tidy(jsonnode.Clone(r.custom)).(*jsonnode.Object)
	case r.st >= 0:
		body = e.object(e.w.structs[r.st].body)
	default:
		body = e.object(r.body)
	}
	sib := e.members(s, "", true)
	if len(sib.Members) == 0 {
		return body
	}
	for _, m := range sib.Members {
		body.Set(m.Key, m.Value)
	}
	order(body)
	if s.kw != nil && len(s.kw.extras) > 0 {
		subschemas(body, tidy) // an extra may sit where a schema goes
	}
	return body
}

func (e *emitter) add(key string, v any) {
	e.scratch = append(e.scratch, jsonnode.Member{Key: key, Value: v})
}

func (e *emitter) str(key, v string) {
	if v != "" {
		e.add(key, text(v))
	}
}

func (e *emitter) num(key string, v json.Number) {
	if v != "" {
		e.add(key, v)
	}
}

func (e *emitter) uint(key string, v optUint) {
	if v.ok {
		e.add(key, json.Number(strconv.FormatUint(v.v, 10)))
	}
}

func (e *emitter) list(key string, l []*sch) {
	if len(l) > 0 {
		a := make([]any, len(l))
		for i, x := range l {
			a[i] = e.schema(x)
		}
		e.add(key, a)
	}
}

// members writes the keywords of s in the order encoding/json writes the
// fields of jsonschema.Schema, with ref (if not "") as its $ref, then, unless
// raw, orders them as tidy does. The members pile up on a stack shared by
// the whole emission, and each object gets a slice of its exact size.
func (e *emitter) members(s *sch, ref string, raw bool) *jsonnode.Object {
	if s.kw == nil && ref == "" && s.items == nil && !s.hasProps && s.props == nil && s.intKeys == nil &&
		s.addl == nil && !s.noAddl && s.required == nil && s.typ != "" {
		// A type alone, as most fields have.
		o := newObject(1)
		o.Members = append(o.Members, jsonnode.Member{Key: "type", Value: str(s.typ)})
		return o
	}
	mark := len(e.scratch)
	k := s.kw
	if k == nil {
		k = &noKeywords
	}
	e.str("$anchor", k.anchor)
	if ref != "" {
		e.add("$ref", ref)
	}
	e.list("anyOf", k.anyOf)
	e.list("oneOf", k.oneOf)
	if s.items != nil {
		e.add("items", e.schema(s.items))
	}
	if s.hasProps || s.props != nil {
		o := newObject(len(s.props))
		for _, p := range s.props {
			o.Members = append(o.Members, jsonnode.Member{Key: text(p.name), Value: e.schema(p.s)})
		}
		e.add("properties", o)
	}
	if s.intKeys != nil {
		e.add("patternProperties", &jsonnode.Object{Members: []jsonnode.Member{{Key: "^[0-9]+$", Value: e.schema(s.intKeys)}}})
	}
	switch {
	case s.noAddl:
		e.add("additionalProperties", false)
	case s.addl != nil && s.addl.isEmpty():
		e.add("additionalProperties", true) // tidy leaves a boolean here
	case s.addl != nil:
		e.add("additionalProperties", e.object(s.addl))
	}
	if s.typ != "" {
		e.add("type", str(s.typ))
	}
	if len(k.enum) > 0 {
		e.add("enum", data(k.enum))
	}
	e.num("multipleOf", k.multipleOf)
	e.num("maximum", k.maximum)
	e.num("exclusiveMaximum", k.xmaximum)
	e.num("minimum", k.minimum)
	e.num("exclusiveMinimum", k.xminimum)
	e.uint("maxLength", k.maxLength)
	e.uint("minLength", k.minLength)
	e.str("pattern", k.pattern)
	e.uint("maxItems", k.maxItems)
	e.uint("minItems", k.minItems)
	if k.unique {
		e.add("uniqueItems", true)
	}
	if len(s.required) > 0 {
		e.add("required", stringList(s.required))
	}
	e.str("format", k.format)
	e.str("contentEncoding", k.encoding)
	e.str("title", k.title)
	e.str("description", k.description)
	if k.def != nil {
		e.add("default", datum(k.def))
	}
	if k.readOnly {
		e.add("readOnly", true)
	}
	if k.writeOnly {
		e.add("writeOnly", true)
	}
	if len(k.examples) > 0 {
		e.add("examples", data(k.examples))
	}
	if len(k.extras) > 0 {
		ex := slices.Clone(k.extras)
		slices.SortFunc(ex, func(a, b extra) int { return strings.Compare(a.key, b.key) })
		for _, x := range ex {
			e.add(text(x.key), datum(x.val))
		}
	}
	n := len(e.scratch) - mark
	o := newObject(n)
	switch {
	case n == 0:
	case raw:
		o.Members = append(o.Members, e.scratch[mark:]...)
	default:
		// tidy's order: its keywords first, then the rest as they came.
		for _, key := range keyOrder {
			for _, m := range e.scratch[mark:] {
				if m.Key == key {
					o.Members = append(o.Members, m)
					break
				}
			}
		}
		for _, m := range e.scratch[mark:] {
			if !slices.Contains(keyOrder, m.Key) {
				o.Members = append(o.Members, m)
			}
		}
		if len(k.extras) > 0 {
			subschemas(o, tidy) // an extra may sit where a schema goes
		}
	}
	clear(e.scratch[mark:])
	e.scratch = e.scratch[:mark]
	return o
}

var noKeywords keywords

// newObject returns an empty object with room for n members: for a few,
// allocated together with it.
func newObject(n int) *jsonnode.Object {
	switch n {
	case 0:
		return &jsonnode.Object{}
	case 1:
		o := &struct {
			o jsonnode.Object
			m [1]jsonnode.Member
		}{}
		o.o.Members = o.m[:0]
		return &o.o
	case 2:
		o := &struct {
			o jsonnode.Object
			m [2]jsonnode.Member
		}{}
		o.o.Members = o.m[:0]
		return &o.o
	case 3:
		o := &struct {
			o jsonnode.Object
			m [3]jsonnode.Member
		}{}
		o.o.Members = o.m[:0]
		return &o.o
	case 4:
		o := &struct {
			o jsonnode.Object
			m [4]jsonnode.Member
		}{}
		o.o.Members = o.m[:0]
		return &o.o
	}
	return &jsonnode.Object{Members: make([]jsonnode.Member, 0, n)}
}

// order puts o's members in tidy's order, in place (through a small
// buffer): a repeated keyOrder key keeps only its first value.
func order(o *jsonnode.Object) {
	if len(o.Members) == 0 {
		return
	}
	var buf [16]jsonnode.Member
	sorted := buf[:0]
	for _, k := range keyOrder {
		if x, ok := o.Get(k); ok {
			sorted = append(sorted, jsonnode.Member{Key: k, Value: x})
		}
	}
	for _, m := range o.Members {
		if !slices.Contains(keyOrder, m.Key) {
			sorted = append(sorted, m)
		}
	}
	n := copy(o.Members, sorted)
	clear(o.Members[n:])
	o.Members = o.Members[:n]
}

func data(l []any) []any {
	a := make([]any, len(l))
	for i, v := range l {
		a[i] = datum(v)
	}
	return a
}

// datum converts a value the tags can give (string, json.Number, bool,
// int, []string, []any of those) as encoding/json would write it.
func datum(v any) any {
	switch v := v.(type) {
	case string:
		return text(v)
	case int:
		return json.Number(strconv.Itoa(v))
	case []string:
		return stringList(v)
	case []any:
		return data(v)
	}
	return v // json.Number (checked valid) and bool
}
