package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/tagcheck"
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

var (
	aliasType         = reflect.TypeFor[interface{ JSONSchemaAlias() any }]()
	propertyAliasType = reflect.TypeFor[interface{ JSONSchemaProperty(string) any }]()
	extendType        = reflect.TypeFor[interface{ JSONSchemaExtend(*jsonschema.Schema) }]()
	fieldDocType      = reflect.TypeFor[interface{ GetFieldDocString(string) string }]()
	protoEnumType     = reflect.TypeFor[interface{ EnumDescriptor() ([]byte, []int) }]()
	customType        = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
)

// exotic reports whether invopop would hand t to user code that the
// walker does not mirror (see the comment at the top of this file).
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
	case HasOwnSchema(t):
		return w.custom(t)
	case ReadsJSON(t):
	case t.Kind() != reflect.String && ReadsText(t):
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

// tagSet holds the tags of a field that the walker reads.
type tagSet struct {
	json, schema, desc, extras string
	hasSchema, hasDesc         bool
	// misspelt is the first key not read that looks meant for one that is
	// (tagcheck.MeantKey); meant is that one.
	misspelt, meant string
}

// readTags reads f's tags in one pass, as reflect.StructTag.Lookup would
// each of them.
func readTags(tag reflect.StructTag) (ts tagSet) {
	var found uint8
	rest := string(tag)
	for rest != "" {
		name, qvalue, r, err := tagcheck.Next(rest)
		if err != nil || name == "" {
			break // Lookup stops where the tag is malformed
		}
		rest = r
		var bit uint8
		var dst *string
		switch name {
		case "json":
			bit, dst = 1, &ts.json
		case "jsonschema":
			bit, dst = 2, &ts.schema
		case "jsonschema_description":
			bit, dst = 4, &ts.desc
		case "jsonschema_extras":
			bit, dst = 8, &ts.extras
		default:
			if ts.misspelt == "" {
				if meant := tagcheck.MeantKey(name); meant != "" {
					ts.misspelt, ts.meant = name, meant
				}
			}
			continue
		}
		if found&bit != 0 {
			continue // Lookup finds the first
		}
		found |= bit
		value, err := unquote(qvalue)
		if err != nil {
			continue // Lookup reports the key absent
		}
		*dst = value
		switch bit {
		case 2:
			ts.hasSchema = true
		case 4:
			ts.hasDesc = true
		}
	}
	return ts
}

// unquote is strconv.Unquote, without its work for a string that has no
// escapes.
func unquote(q string) (string, error) {
	if len(q) < 2 {
		return strconv.Unquote(q)
	}
	for i := 1; i < len(q)-1; i++ {
		if c := q[i]; c == '\\' || c == '\n' || c >= utf8.RuneSelf {
			return strconv.Unquote(q)
		}
	}
	return q[1 : len(q)-1], nil
}

// field applies what invopop's handleField does with a field of a struct
// (st is the struct's schema) whose type's schema is p.
func (w *walker) field(st *sch, tags *tagSet, name string, p *sch, required, nullable bool) {
	w.tags(p, tags)
	if nullable {
		null := w.newSch()
		null.typ = "null"
		wrap := w.newSch()
		wrap.kwd().oneOf = []*sch{p, null}
		p = wrap
	}
	st.setProp(name, p)
	if required {
		st.require(name)
	}
}

// fieldName is invopop's reflectFieldName for a field encoding/json sees.
// name is "" for a field invopop leaves out; embed means its fields are
// taken into the struct's.
func fieldName(f *reflect.StructField, tags *tagSet) (name string, embed, required, nullable bool) {
	jsonName, jsonOpts, _ := strings.Cut(tags.json, ",")
	if jsonName == "-" {
		return "", false, false, false
	}
	if first, _, _ := strings.Cut(tags.schema, ","); first == "-" {
		return "", false, false, false
	}
	required = true
	for o := range strings.SplitSeq(jsonOpts, ",") {
		if o == "omitempty" || o == "omitzero" {
			required = false
			break
		}
	}
	if tags.schema != "" {
		for p := range strings.SplitSeq(tags.schema, ",") {
			switch p {
			case "required":
				required = true
			case "nullable":
				nullable = true
			}
		}
	}
	if f.Anonymous && jsonName == "" {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			return "", true, false, false
		}
	}
	name = f.Name
	if jsonName != "" {
		name = jsonName
	}
	return name, false, required, nullable
}

// hasOption reports whether the json tag has the option opt.
func hasOption(jsonTag, opt string) bool {
	_, opts, ok := strings.Cut(jsonTag, ",")
	if !ok {
		return false
	}
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// tags is invopop's structKeywordsFromTags: it applies a field's tags to
// p, the schema of the field's type.
func (w *walker) tags(p *sch, tags *tagSet) {
	if tags.desc != "" {
		p.kwd().description = tags.desc
	} else if p.kw != nil {
		p.kw.description = ""
	}
	var unprocessed []string
	if tags.schema != "" {
		var buf [8]string
		unprocessed = w.genericKeywords(p, splitOnUnescapedCommas(buf[:0], tags.schema))
	}
	switch p.typ {
	case "integer", "number", "boolean":
		if hasOption(tags.json, "string") {
			p.typ = "string"
		}
	}
	if len(unprocessed) > 0 {
		switch p.typ {
		case "string":
			p.stringKeywords(unprocessed)
		case "number", "integer":
			w.numericalKeywords(p, unprocessed)
		case "array":
			w.arrayKeywords(p, unprocessed)
		case "boolean":
			p.booleanKeywords(unprocessed)
		}
	}
	if tags.extras != "" {
		var buf [8]string
		for _, e := range splitOnUnescapedCommas(buf[:0], tags.extras) {
			if k, v, ok := strings.Cut(e, "="); ok {
				p.setExtra(k, v)
			}
		}
	}
}

// genericKeywords returns the pieces it leaves to the type's keywords,
// in the space of tags.
func (w *walker) genericKeywords(p *sch, tags []string) []string {
	unprocessed := tags[:0]
	for _, tag := range tags {
		name, val, ok := strings.Cut(tag, "=")
		if !ok {
			continue
		}
		switch name {
		case "title":
			p.kwd().title = val
		case "description":
			p.kwd().description = val
		case "type":
			p.typ = val
		case "anchor":
			p.kwd().anchor = val
		case "oneof_type", "anyof_type":
			list := &p.kwd().oneOf
			if name == "anyof_type" {
				list = &p.kw.anyOf
			}
			if *list == nil {
				*list = make([]*sch, 0, 1)
			}
			p.typ = ""
			for ty := range strings.SplitSeq(val, ";") {
				s := w.newSch()
				s.typ = ty
				*list = append(*list, s)
			}
		case "oneof_required", "anyof_required", "oneof_ref", "anyof_ref":
			w.legacy = true
		default:
			unprocessed = append(unprocessed, tag)
		}
	}
	return unprocessed
}

func (p *sch) stringKeywords(tags []string) {
	for _, tag := range tags {
		name, val, ok := strings.Cut(tag, "=")
		if !ok {
			continue
		}
		switch name {
		case "minLength":
			p.kwd().minLength = parseUint(val)
		case "maxLength":
			p.kwd().maxLength = parseUint(val)
		case "pattern":
			p.kwd().pattern = val
		case "format":
			p.kwd().format = val
		case "readOnly":
			p.kwd().readOnly, _ = strconv.ParseBool(val)
		case "writeOnly":
			p.kwd().writeOnly, _ = strconv.ParseBool(val)
		case "default":
			p.kwd().def = val
		case "example":
			p.kwd().examples = append(p.kwd().examples, val)
		case "enum":
			p.kwd().enum = append(p.kwd().enum, val)
		}
	}
}

// twoParts is strings.Split(tag, "=") when that gives exactly two parts,
// as invopop's numerical, boolean and array keywords want.
func twoParts(tag string) (name, val string, ok bool) {
	name, val, ok = strings.Cut(tag, "=")
	return name, val, ok && !strings.Contains(val, "=")
}

func (w *walker) numericalKeywords(p *sch, tags []string) {
	for _, tag := range tags {
		name, val, ok := twoParts(tag)
		if !ok {
			continue
		}
		switch name {
		case "multipleOf", "minimum", "maximum", "exclusiveMaximum", "exclusiveMinimum",
			"default", "example", "enum":
		default:
			continue
		}
		num, valid := w.number(val)
		k := p.kwd()
		switch name {
		case "multipleOf":
			k.multipleOf = num
		case "minimum":
			k.minimum = num
		case "maximum":
			k.maximum = num
		case "exclusiveMaximum":
			k.xmaximum = num
		case "exclusiveMinimum":
			k.xminimum = num
		case "default":
			if valid {
				k.def = num
			}
		case "example":
			if valid {
				k.examples = append(k.examples, num)
			}
		case "enum":
			if valid {
				k.enum = append(k.enum, num)
			}
		}
	}
}

// number is invopop's toJSONNumber. A number it accepts that JSON does not
// (+1, 0x10) would fail invopop's marshalling, so the type goes to invopop.
func (w *walker) number(s string) (json.Number, bool) {
	num := json.Number(s)
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return "", false
		}
	}
	if !jsonnode.ValidNumber(s) {
		w.legacy = true
	}
	return num, true
}

func (p *sch) booleanKeywords(tags []string) {
	for _, tag := range tags {
		if name, val, ok := twoParts(tag); ok && name == "default" {
			switch val {
			case "true":
				p.kwd().def = true
			case "false":
				p.kwd().def = false
			}
		}
	}
}

func (w *walker) arrayKeywords(p *sch, tags []string) {
	var defaults []any
	unprocessed := tags[:0]
	for _, tag := range tags {
		name, val, ok := twoParts(tag)
		if !ok {
			continue
		}
		switch name {
		case "minItems":
			p.kwd().minItems = parseUint(val)
		case "maxItems":
			p.kwd().maxItems = parseUint(val)
		case "uniqueItems":
			p.kwd().unique = true
		case "default":
			defaults = append(defaults, val)
		case "format", "pattern":
			if p.items == nil {
				w.legacy = true // invopop panics
				return
			}
			if name == "format" {
				p.items.kwd().format = val
			} else {
				p.items.kwd().pattern = val
			}
		default:
			unprocessed = append(unprocessed, tag)
		}
	}
	if len(defaults) > 0 {
		p.kwd().def = defaults
	}
	if len(unprocessed) == 0 {
		return
	}
	if p.items == nil {
		w.legacy = true // invopop panics
		return
	}
	switch p.items.typ {
	case "string":
		p.items.stringKeywords(unprocessed)
	case "number", "integer":
		w.numericalKeywords(p.items, unprocessed)
	case "boolean":
		p.items.booleanKeywords(unprocessed)
	}
}

func parseUint(s string) optUint {
	v, err := strconv.ParseUint(s, 10, 64)
	return optUint{v, err == nil}
}

// setExtra is invopop's.
func (p *sch) setExtra(key, val string) {
	k := p.kwd()
	for i := range k.extras {
		e := &k.extras[i]
		if e.key != key {
			continue
		}
		switch old := e.val.(type) {
		case string:
			e.val = []string{old, val}
		case []string:
			e.val = append(old, val)
		case int:
			e.val, _ = strconv.Atoi(val)
		case bool:
			e.val = val == "true" || val == "t"
		}
		return
	}
	var x any
	switch {
	case key == "minimum":
		x, _ = strconv.Atoi(val)
	case val == "true":
		x = true
	case val == "false":
		x = false
	default:
		x = val
	}
	k.extras = append(k.extras, extra{key, x})
}

// splitOnUnescapedCommas is invopop's, appending to dst: a comma after a
// backslash joins the two pieces, and the backslash is dropped.
func splitOnUnescapedCommas(dst []string, tag string) []string {
	escaped := strings.Contains(tag, `\`)
	for {
		piece, rest, more := strings.Cut(tag, ",")
		if escaped && len(dst) > 0 {
			if last := dst[len(dst)-1]; last != "" && last[len(last)-1] == '\\' {
				dst[len(dst)-1] = last[:len(last)-1] + "," + piece
				if !more {
					return dst
				}
				tag = rest
				continue
			}
		}
		dst = append(dst, piece)
		if !more {
			return dst
		}
		tag = rest
	}
}

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
		body = tidy(clone(r.custom)).(*jsonnode.Object)
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
