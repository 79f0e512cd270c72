// Package tagcheck finds struct tag mistakes that github.com/invopop/jsonschema
// or the reflect package would silently ignore, so that a tool whose tags say
// something the schema will not contain fails to build instead of sending a
// weaker schema to the model.
//
// The grammar mirrors invopop/jsonschema v0.14.0 (reflect.go): which pieces
// of a jsonschema tag it reads, for which schema types, and how it parses
// their values. A keyword is accepted for a field iff invopop would put it
// into that field's schema.
package tagcheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// JSONSchema checks the value of a field's jsonschema tag against invopop's
// grammar for a field of Go type t, as a Reflector without a Mapper reflects
// it. Use [JSONSchemaField] when the field's other tags or the Reflector's
// Mapper are known: they can change the schema type.
func JSONSchema(tag string, t reflect.Type) error {
	return check(tag, t, checkOpts{})
}

// JSONSchemaField checks f's jsonschema tag as a Reflector with the given
// Mapper (nil for none) reads it. Beyond [JSONSchema] it knows that the json
// option ",string" turns numbers and booleans into strings, that the tags of
// an embedded (flattened) struct are ignored, and that description= overrides
// a jsonschema_description tag.
func JSONSchemaField(f reflect.StructField, mapper func(reflect.Type) *jsonschema.Schema) error {
	tag, _ := f.Tag.Lookup("jsonschema")
	_, hasDesc := f.Tag.Lookup("jsonschema_description")
	return JSONSchemaTags(f.Type, f.Anonymous, tag, f.Tag.Get("json"), hasDesc, mapper)
}

// JSONSchemaTags is [JSONSchemaField] for a field of type t (embedded if
// anonymous) whose tags are already read: its jsonschema and json tags, and
// whether it has a jsonschema_description tag.
func JSONSchemaTags(t reflect.Type, anonymous bool, tag, jsonTag string, hasDesc bool, mapper func(reflect.Type) *jsonschema.Schema) error {
	if tag == "" {
		return nil
	}
	jsonName, _, _ := strings.Cut(jsonTag, ",")
	if jsonName == "-" {
		return nil // invopop leaves the field out; its tags cannot mislead anyone
	}
	if first, _, _ := strings.Cut(tag, ","); first != "-" {
		// invopop flattens these before it looks at their jsonschema tag.
		ft := t
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (anonymous && jsonName == "" && ft.Kind() == reflect.Struct) || HasJSONOption(jsonTag, "inline") {
			return errors.New("jsonschema tag: an embedded struct is flattened into its parent, so its jsonschema tag has no effect; tag its fields instead")
		}
	}
	return check(tag, t, checkOpts{
		mapper:        mapper,
		jsonString:    HasJSONOption(jsonTag, "string"),
		hasDescTagKey: hasDesc,
	})
}

// HasJSONOption reports whether jsonTag, a json tag, has the option opt
// (one of the comma-separated words after its name).
func HasJSONOption(jsonTag, opt string) bool {
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

type checkOpts struct {
	mapper        func(reflect.Type) *jsonschema.Schema
	jsonString    bool // json:",string"
	hasDescTagKey bool // a jsonschema_description tag is present
}

// Keyword families, each exactly the cases of one invopop switch.
var (
	// genericKeywords: read for every type, value split with SplitN(=, 2).
	genericSet = set("title", "description", "type", "anchor",
		"oneof_required", "anyof_required", "oneof_ref", "oneof_type", "anyof_ref", "anyof_type")
	// flags: pieces without "=" that reflectFieldName looks for.
	flagSet = set("required", "nullable")
	// stringKeywords.
	stringSet = set("minLength", "maxLength", "pattern", "format", "readOnly", "writeOnly", "default", "example", "enum")
	// numericalKeywords, for "integer" and "number".
	numericSet = set("multipleOf", "minimum", "maximum", "exclusiveMaximum", "exclusiveMinimum", "default", "example", "enum")
	// booleanKeywords.
	booleanSet = set("default")
	// arrayKeywords; format and pattern go to the items.
	arraySet = set("minItems", "maxItems", "uniqueItems", "default", "format", "pattern")
	// What arrayKeywords hands on to the items' keyword switch: the items'
	// family minus what the array level already consumed.
	stringItemSet  = set("minLength", "maxLength", "readOnly", "writeOnly", "example", "enum")
	numericItemSet = set("multipleOf", "minimum", "maximum", "exclusiveMaximum", "exclusiveMinimum", "example", "enum")

	// Keywords that append rather than overwrite, so repeating them is meant.
	repeatable = set("enum", "example", "oneof_required", "anyof_required", "oneof_ref", "anyof_ref", "oneof_type", "anyof_type")

	// For "applies to X, not T" messages: the schema types invopop reads the keyword for.
	appliesTo = map[string]string{
		"minLength": "strings", "maxLength": "strings", "readOnly": "strings", "writeOnly": "strings",
		"pattern": "strings and arrays", "format": "strings and arrays",
		"multipleOf": "numbers", "minimum": "numbers", "maximum": "numbers",
		"exclusiveMinimum": "numbers", "exclusiveMaximum": "numbers",
		"minItems": "arrays", "maxItems": "arrays", "uniqueItems": "arrays",
		"default": "strings, numbers, booleans and arrays",
		"example": "strings and numbers", "enum": "strings and numbers",
	}

	allKeywords = func() []string {
		var all []string
		seen := map[string]bool{}
		// Fixed order keeps suggestions deterministic.
		for _, k := range []string{
			"title", "description", "type", "anchor", "required", "nullable",
			"oneof_required", "anyof_required", "oneof_ref", "oneof_type", "anyof_ref", "anyof_type",
			"minLength", "maxLength", "pattern", "format", "readOnly", "writeOnly", "default", "example", "enum",
			"multipleOf", "minimum", "maximum", "exclusiveMaximum", "exclusiveMinimum",
			"minItems", "maxItems", "uniqueItems",
		} {
			if !seen[k] {
				seen[k] = true
				all = append(all, k)
			}
		}
		return all
	}()
	knownKeyword = set(allKeywords...)

	jsonTypes = []string{"string", "number", "integer", "boolean", "array", "object", "null"}
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// shape is what invopop makes of a Go type before it reads the tag.
type shape struct {
	typ   string // the schema's "type": string, integer, number, boolean, array, object or ""
	items *shape // the items schema, for arrays reflected from a slice or array
	why   string // why typ is not what the Go kind suggests, for messages
}

var (
	aliasType     = reflect.TypeFor[interface{ JSONSchemaAlias() any }]()
	customType    = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
	protoEnumType = reflect.TypeFor[interface{ EnumDescriptor() ([]byte, []int) }]()
	ipType        = reflect.TypeFor[net.IP]()
	timeType      = reflect.TypeFor[time.Time]()
	urlType       = reflect.TypeFor[url.URL]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	byteType      = reflect.TypeFor[byte]()
)

// shapeOf follows invopop's reflectTypeToSchema. Named struct, slice, array
// and map types become a $ref to $defs, which has no type of its own, so
// the type switch of structKeywordsFromTags reads no keyword for them.
func shapeOf(t reflect.Type, mapper func(reflect.Type) *jsonschema.Schema, depth int) shape {
	if t == nil || depth > 32 {
		return shape{}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(aliasType) {
		alias := reflect.New(t).Interface().(interface{ JSONSchemaAlias() any }).JSONSchemaAlias()
		return shapeOf(reflect.TypeOf(alias), mapper, depth+1)
	}
	if mapper != nil {
		if s := mapper(t); s != nil {
			return shapeOfSchema(s, 0)
		}
	}
	if t.Implements(customType) {
		if t.Name() != "" {
			return shape{why: "a type with a JSONSchema method is referenced through $defs, which takes no type keywords"}
		}
		return shapeOfSchema(reflect.New(t).Interface().(interface{ JSONSchema() *jsonschema.Schema }).JSONSchema(), 0)
	}
	if t.Implements(protoEnumType) {
		return shape{why: "a protobuf enum is a oneOf of string and integer"}
	}
	if t == ipType {
		return shape{typ: "string"}
	}
	named := t.Name() != ""
	switch t.Kind() {
	case reflect.Struct:
		if t == timeType || t == urlType {
			return shape{typ: "string"}
		}
		if named {
			return shape{why: "a named struct type is referenced through $defs"}
		}
		return shape{typ: "object"}
	case reflect.Slice, reflect.Array:
		if t == rawType {
			return shape{}
		}
		if named {
			unnamed := reflect.SliceOf(t.Elem())
			if t.Kind() == reflect.Array {
				unnamed = reflect.ArrayOf(t.Len(), t.Elem())
			}
			return shape{why: "a named " + t.Kind().String() + " type is referenced through $defs, which takes no type keywords; use " + unnamed.String()}
		}
		if t.Kind() == reflect.Slice && t.Elem() == byteType {
			return shape{typ: "string", why: "a []byte is a base64 string"}
		}
		items := shapeOf(t.Elem(), mapper, depth+1)
		return shape{typ: "array", items: &items}
	case reflect.Map:
		if named {
			return shape{why: "a named map type is referenced through $defs"}
		}
		return shape{typ: "object"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return shape{typ: "integer"}
	case reflect.Float32, reflect.Float64:
		return shape{typ: "number"}
	case reflect.Bool:
		return shape{typ: "boolean"}
	case reflect.String:
		return shape{typ: "string"}
	}
	return shape{} // interfaces; invopop refuses the other kinds anyway
}

func shapeOfSchema(s *jsonschema.Schema, depth int) shape {
	if s == nil {
		return shape{}
	}
	sh := shape{typ: s.Type}
	if s.Items != nil && depth < 32 {
		items := shapeOfSchema(s.Items, depth+1)
		sh.items = &items
	}
	return sh
}

// AppendPieces appends the pieces of tag, a jsonschema or jsonschema_extras
// tag, to dst, cut exactly where invopop's splitOnUnescapedCommas cuts them:
// a comma after a backslash joins the two sides, and the backslash is
// dropped.
func AppendPieces(dst []string, tag string) []string {
	start := len(dst)
	escaped := strings.Contains(tag, `\`)
	for {
		piece, rest, more := strings.Cut(tag, ",")
		if last := len(dst) - 1; escaped && last >= start && strings.HasSuffix(dst[last], `\`) {
			dst[last] = dst[last][:len(dst[last])-1] + "," + piece
		} else {
			dst = append(dst, piece)
		}
		if !more {
			return dst
		}
		tag = rest
	}
}

func check(tag string, t reflect.Type, o checkOpts) error {
	if tag == "" {
		return nil
	}
	// reflectFieldName splits on every comma, escaped or not, to find "-"
	// and the flags.
	if first, _, more := strings.Cut(tag, ","); first == "-" {
		if more {
			return errors.New(`jsonschema tag: "-" leaves the field out of the schema, so nothing may follow it`)
		}
		return nil
	}
	var buf [8]string
	pieces := AppendPieces(buf[:0], tag)
	if strings.Contains(tag, `\`) {
		for _, flag := range []string{"required", "nullable"} {
			if countPlain(tag, flag) > count(pieces, flag) {
				return fmt.Errorf(`jsonschema tag: %q after an escaped comma still marks the field %s: invopop finds flags without honouring \,`, flag, flag)
			}
		}
	}

	sh := shapeOf(t, o.mapper, 0)

	// genericKeywords runs first and may replace the type that the later
	// type switch reads; the last writer wins.
	typ, note := sh.typ, sh.why
	for _, p := range pieces {
		name, val, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		switch name {
		case "type":
			typ, note = val, "type="+val+" makes its schema type "+val
		case "oneof_type", "anyof_type":
			typ, note = "", name+" leaves it without a schema type"
		}
	}
	if o.jsonString && (typ == "integer" || typ == "number" || typ == "boolean") {
		typ, note = "string", `json ",string" makes it a string`
	}
	var items *shape
	if typ == "array" {
		items = sh.items
		if items == nil {
			note = "type=array here has no items schema"
		}
	}

	var seenBuf [8]string
	seen := seenBuf[:0]
	for _, p := range pieces {
		name, val, hasEq := strings.Cut(p, "=")
		if !hasEq {
			if err := checkBare(p); err != nil {
				return err
			}
			continue
		}
		if flagSet[name] {
			return fmt.Errorf("jsonschema tag: %q is a flag and takes no value (write just %s)", name, name)
		}
		if !knownKeyword[name] {
			if strings.ContainsAny(name, " \t") {
				return commaError(p)
			}
			return unknownKeyword(name)
		}
		if slices.Contains(seen, name) && !repeatable[name] && !(name == "default" && typ == "array") {
			return fmt.Errorf("jsonschema tag: %q is given more than once; invopop keeps only the last", name)
		}
		seen = append(seen, name)

		if genericSet[name] {
			if err := checkGeneric(name, val, p, o); err != nil {
				return err
			}
			continue
		}
		if err := checkTyped(name, val, p, typ, items, t, note); err != nil {
			return err
		}
	}
	return nil
}

// countPlain counts the pieces of tag, split on every comma, equal to s.
func countPlain(tag, s string) int {
	n := 0
	for p := range strings.SplitSeq(tag, ",") {
		if p == s {
			n++
		}
	}
	return n
}

func count(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// checkBare judges a piece without "=": genericKeywords drops it, so only
// the flags mean anything.
func checkBare(p string) error {
	switch {
	case flagSet[p]:
		return nil
	case p == "":
		return errors.New("jsonschema tag: empty keyword (a stray comma)")
	case knownKeyword[p]:
		example := p + "=..."
		if p == "readOnly" || p == "writeOnly" || p == "uniqueItems" {
			example = p + "=true"
		}
		return fmt.Errorf("jsonschema tag: %q needs a value (%s); invopop ignores it alone", p, example)
	case !strings.ContainsAny(p, " \t"):
		if s := Suggest(p, allKeywords); s != "" {
			return unknownKeyword(p)
		}
	}
	return commaError(p)
}

func commaError(p string) error {
	return fmt.Errorf(`jsonschema tag: %q is not a keyword=value pair; a comma inside a value must be escaped as \\, in the Go source (jsonschema:"description=a\\, b"), or use a jsonschema_description tag`, p)
}

func unknownKeyword(name string) error {
	if s := Suggest(name, allKeywords); s != "" {
		return fmt.Errorf("jsonschema tag: unknown keyword %q (did you mean %q?)", name, s)
	}
	return fmt.Errorf("jsonschema tag: unknown keyword %q", name)
}

func checkGeneric(name, val, piece string, o checkOpts) error {
	switch name {
	case "description":
		if o.hasDescTagKey {
			return errors.New("jsonschema tag: description= replaces the jsonschema_description tag; keep one of them")
		}
	case "type":
		return checkJSONType(piece, val)
	case "oneof_type", "anyof_type":
		for _, ty := range strings.Split(val, ";") {
			if err := checkJSONType(piece, ty); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkJSONType(piece, ty string) error {
	for _, j := range jsonTypes {
		if ty == j {
			return nil
		}
	}
	if s := Suggest(ty, jsonTypes); s != "" {
		return fmt.Errorf("jsonschema tag: %s: %q is not a JSON Schema type (did you mean %q?)", piece, ty, s)
	}
	return fmt.Errorf("jsonschema tag: %s: %q is not a JSON Schema type (want one of %s)", piece, ty, strings.Join(jsonTypes, ", "))
}

// checkTyped judges a type keyword for the schema type the type switch of
// structKeywordsFromTags sees, with that keyword switch's value parsing.
func checkTyped(name, val, piece, typ string, items *shape, t reflect.Type, note string) error {
	notApplicable := func() error {
		msg := fmt.Sprintf("jsonschema tag: %q applies to %s, not %s", name, appliesTo[name], typeName(t))
		if note != "" {
			msg += " (" + note + ")"
		}
		return errors.New(msg)
	}
	switch typ {
	case "string":
		if !stringSet[name] {
			return notApplicable()
		}
		return checkStringValue(name, val, piece)
	case "integer", "number":
		if !numericSet[name] {
			return notApplicable()
		}
		return checkNumber(piece, val)
	case "boolean":
		if !booleanSet[name] {
			return notApplicable()
		}
		if val != "true" && val != "false" {
			return fmt.Errorf("jsonschema tag: %s is not true or false", piece)
		}
		return nil
	case "array":
		return checkArray(name, val, piece, items, t, notApplicable)
	}
	return notApplicable()
}

func checkArray(name, val, piece string, items *shape, t reflect.Type, notApplicable func() error) error {
	itemTyp := ""
	if items != nil {
		itemTyp = items.typ
	}
	applies := arraySet[name]
	if !applies {
		switch itemTyp {
		case "string":
			applies = stringItemSet[name]
		case "integer", "number":
			applies = numericItemSet[name]
		}
	}
	// Without items invopop would dereference nil on these.
	if !applies || (items == nil && (name == "format" || name == "pattern")) {
		return notApplicable()
	}
	// arrayKeywords splits on every "=" and skips the piece unless that
	// gives exactly two parts, before the items see it.
	if strings.Contains(val, "=") {
		return fmt.Errorf(`jsonschema tag: %s is dropped on an array: invopop ignores an array keyword whose value contains "="`, piece)
	}
	switch name {
	case "minItems", "maxItems":
		return checkUint(piece, val)
	case "uniqueItems":
		if val != "true" {
			return fmt.Errorf("jsonschema tag: %s is read as true; write uniqueItems=true, or leave it out", piece)
		}
		return nil
	case "default":
		// Array defaults are collected as strings, whatever the items are.
		if itemTyp != "string" && itemTyp != "" {
			return fmt.Errorf("jsonschema tag: %s on %s becomes the string %q: invopop writes array defaults as strings, and the items are %s", piece, typeName(t), val, itemTyp)
		}
		return nil
	case "format", "pattern":
		return nil
	}
	if itemTyp == "string" {
		return checkStringValue(name, val, piece)
	}
	return checkNumber(piece, val)
}

func checkStringValue(name, val, piece string) error {
	switch name {
	case "minLength", "maxLength":
		return checkUint(piece, val)
	case "readOnly", "writeOnly":
		if _, err := strconv.ParseBool(val); err != nil {
			return fmt.Errorf("jsonschema tag: %s is not a boolean", piece)
		}
	}
	return nil
}

// checkUint mirrors invopop's parseUint, which turns a bad value into "no limit".
func checkUint(piece, val string) error {
	if _, err := strconv.ParseUint(val, 10, 64); err != nil {
		return fmt.Errorf("jsonschema tag: %s is not a non-negative integer", piece)
	}
	return nil
}

// checkNumber mirrors invopop's toJSONNumber, which drops what ParseInt and
// ParseFloat both refuse, and also refuses what they accept but JSON does
// not (+1, 0x10, Inf), which would fail when the schema is marshalled.
func checkNumber(piece, val string) error {
	ok := jsonnode.ValidNumber(val) // what JSON accepts
	if ok {
		_, errI := strconv.ParseInt(val, 10, 64)
		_, errF := strconv.ParseFloat(val, 64)
		ok = errI == nil || errF == nil
	}
	if !ok {
		return fmt.Errorf("jsonschema tag: %s is not a number", piece)
	}
	return nil
}

func typeName(t reflect.Type) string {
	switch t {
	case nil:
		return "nil"
	case rawType:
		// The name users write: from Go 1.27 an alias of jsontext.Value,
		// which reflect reports instead.
		return "json.RawMessage"
	}
	return t.String()
}
