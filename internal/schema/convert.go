package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// errSlowPath says that the direct conversion met something it does not
// mirror exactly (an invalid number, a value json.Marshal would reject, a
// zero ordered map...): the caller then marshals and parses, which is slow
// but is by definition what invopop's encoding produces, errors included.
var errSlowPath = errors.New("schema: needs the marshal path")

// maxDepth bounds the conversion: a hand-made *jsonschema.Schema can hold
// itself, and json.Marshal would then recurse until the stack runs out.
const maxDepth = 10000

// booleanField is the index of the unexported field that makes a Schema
// the boolean schema true or false (jsonschema.TrueSchema, FalseSchema and
// their copies); MarshalJSON looks at it before anything else.
var booleanField = func() int {
	f, ok := reflect.TypeFor[jsonschema.Schema]().FieldByName("boolean")
	if !ok || f.Type != reflect.TypeFor[*bool]() {
		return -1
	}
	return f.Index[0]
}()

// toTree returns the jsonnode tree that jsonnode.Parse(json.Marshal(s))
// would, without the marshal and the parse: members come in the order
// encoding/json writes the fields of jsonschema.Schema, with its Extras
// after them in sorted order, maps sorted by key, and numbers as the
// json.Number text the marshal would write.
func toTree(s *jsonschema.Schema) (any, error) {
	if booleanField < 0 {
		return slowTree(s)
	}
	var scratch []jsonnode.Member
	v, err := convertSchema(s, 0, &scratch)
	if err == errSlowPath {
		return slowTree(s)
	}
	return v, err
}

func slowTree(s *jsonschema.Schema) (any, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return jsonnode.Parse(raw)
}

func convertSchema(s *jsonschema.Schema, depth int, scratch *[]jsonnode.Member) (any, error) {
	if s == nil {
		return nil, nil
	}
	if depth > maxDepth {
		return nil, errors.New("schema nested too deeply (does a schema contain itself?)")
	}
	if b := reflect.ValueOf(s).Elem().Field(booleanField); !b.IsNil() {
		return b.Elem().Bool(), nil
	}
	if isEmpty(s) {
		return true, nil // MarshalJSON's "don't bother returning empty schemas"
	}
	c := converter{depth: depth + 1, scratch: scratch}
	mark := len(*scratch)
	o := &jsonnode.Object{}
	c.str("$schema", s.Version)
	c.str("$id", string(s.ID))
	c.str("$anchor", s.Anchor)
	c.str("$ref", s.Ref)
	c.str("$dynamicRef", s.DynamicRef)
	c.schemaMap("$defs", s.Definitions)
	c.str("$comment", s.Comments)
	c.list("allOf", s.AllOf)
	c.list("anyOf", s.AnyOf)
	c.list("oneOf", s.OneOf)
	c.sub("not", s.Not)
	c.sub("if", s.If)
	c.sub("then", s.Then)
	c.sub("else", s.Else)
	c.schemaMap("dependentSchemas", s.DependentSchemas)
	c.list("prefixItems", s.PrefixItems)
	c.sub("items", s.Items)
	c.sub("contains", s.Contains)
	if s.Properties != nil {
		c.properties(s)
	}
	c.schemaMap("patternProperties", s.PatternProperties)
	c.sub("additionalProperties", s.AdditionalProperties)
	c.sub("propertyNames", s.PropertyNames)
	c.str("type", s.Type)
	c.values("enum", s.Enum)
	if s.Const != nil {
		c.value("const", s.Const)
	}
	c.number("multipleOf", s.MultipleOf)
	c.number("maximum", s.Maximum)
	c.number("exclusiveMaximum", s.ExclusiveMaximum)
	c.number("minimum", s.Minimum)
	c.number("exclusiveMinimum", s.ExclusiveMinimum)
	c.uint("maxLength", s.MaxLength)
	c.uint("minLength", s.MinLength)
	c.str("pattern", s.Pattern)
	c.uint("maxItems", s.MaxItems)
	c.uint("minItems", s.MinItems)
	c.flag("uniqueItems", s.UniqueItems)
	c.uint("maxContains", s.MaxContains)
	c.uint("minContains", s.MinContains)
	c.uint("maxProperties", s.MaxProperties)
	c.uint("minProperties", s.MinProperties)
	if len(s.Required) > 0 {
		c.add("required", stringList(s.Required))
	}
	if len(s.DependentRequired) > 0 {
		dr := &jsonnode.Object{Members: make([]jsonnode.Member, 0, len(s.DependentRequired))}
		for _, k := range sortedKeys(s.DependentRequired) {
			var v any
			if l := s.DependentRequired[k]; l != nil {
				v = stringList(l)
			}
			dr.Members = append(dr.Members, jsonnode.Member{Key: text(k), Value: v})
		}
		c.add("dependentRequired", dr)
	}
	c.str("format", s.Format)
	c.str("contentEncoding", s.ContentEncoding)
	c.str("contentMediaType", s.ContentMediaType)
	c.sub("contentSchema", s.ContentSchema)
	c.str("title", s.Title)
	c.str("description", s.Description)
	if s.Default != nil {
		c.value("default", s.Default)
	}
	c.flag("deprecated", s.Deprecated)
	c.flag("readOnly", s.ReadOnly)
	c.flag("writeOnly", s.WriteOnly)
	c.values("examples", s.Examples)
	if len(s.Extras) > 0 {
		for _, k := range sortedKeys(s.Extras) {
			c.value(k, s.Extras[k])
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	if n := len(*scratch) - mark; n > 0 {
		o.Members = slices.Clone((*scratch)[mark:])
		clear((*scratch)[mark:])
		*scratch = (*scratch)[:mark]
	}
	return o, nil
}

// emptyNil gives an empty object nil members, as jsonnode.Parse does, so
// the tree equals the parsed bytes.
func emptyNil(o *jsonnode.Object) *jsonnode.Object {
	if len(o.Members) == 0 {
		o.Members = nil
	}
	return o
}

// isEmpty mirrors reflect.DeepEqual(&jsonschema.Schema{}, s): nil and
// empty slices and maps differ there.
func isEmpty(s *jsonschema.Schema) bool {
	return s.Version == "" && s.ID == "" && s.Anchor == "" && s.Ref == "" && s.DynamicRef == "" &&
		s.Definitions == nil && s.Comments == "" &&
		s.AllOf == nil && s.AnyOf == nil && s.OneOf == nil && s.Not == nil &&
		s.If == nil && s.Then == nil && s.Else == nil && s.DependentSchemas == nil &&
		s.PrefixItems == nil && s.Items == nil && s.Contains == nil &&
		s.Properties == nil && s.PatternProperties == nil && s.AdditionalProperties == nil && s.PropertyNames == nil &&
		s.Type == "" && s.Enum == nil && s.Const == nil &&
		s.MultipleOf == "" && s.Maximum == "" && s.ExclusiveMaximum == "" && s.Minimum == "" && s.ExclusiveMinimum == "" &&
		s.MaxLength == nil && s.MinLength == nil && s.Pattern == "" && s.MaxItems == nil && s.MinItems == nil &&
		!s.UniqueItems && s.MaxContains == nil && s.MinContains == nil && s.MaxProperties == nil && s.MinProperties == nil &&
		s.Required == nil && s.DependentRequired == nil &&
		s.Format == "" && s.ContentEncoding == "" && s.ContentMediaType == "" && s.ContentSchema == nil &&
		s.Title == "" && s.Description == "" && s.Default == nil &&
		!s.Deprecated && !s.ReadOnly && !s.WriteOnly && s.Examples == nil && s.Extras == nil
}

// converter gathers the members of one schema object; the first error
// sticks. Members pile up on a stack shared by the whole conversion (a
// nested schema pushes and pops its own above them) and are copied out
// once complete, so each object gets a slice of its exact size.
type converter struct {
	depth   int
	scratch *[]jsonnode.Member
	err     error
}

func (c *converter) add(key string, v any) {
	*c.scratch = append(*c.scratch, jsonnode.Member{Key: key, Value: v})
}

func (c *converter) str(key, v string) {
	if v != "" {
		c.add(key, str(v))
	}
}

func (c *converter) flag(key string, v bool) {
	if v {
		c.add(key, true)
	}
}

func (c *converter) uint(key string, v *uint64) {
	if v != nil {
		c.add(key, json.Number(strconv.FormatUint(*v, 10)))
	}
}

func (c *converter) number(key string, v json.Number) {
	if v == "" {
		return
	}
	if !jsonnode.ValidNumber(string(v)) {
		c.fail(errSlowPath)
		return
	}
	c.add(key, v)
}

func (c *converter) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

func (c *converter) schema(s *jsonschema.Schema) any {
	if c.err != nil {
		return nil
	}
	v, err := convertSchema(s, c.depth, c.scratch)
	if err != nil {
		c.fail(err)
	}
	return v
}

func (c *converter) sub(key string, s *jsonschema.Schema) {
	if s != nil {
		c.add(key, c.schema(s))
	}
}

func (c *converter) list(key string, l []*jsonschema.Schema) {
	if len(l) == 0 {
		return
	}
	a := make([]any, len(l))
	for i, s := range l {
		a[i] = c.schema(s)
	}
	c.add(key, a)
}

func (c *converter) schemaMap(key string, m map[string]*jsonschema.Schema) {
	if len(m) == 0 {
		return
	}
	obj := &jsonnode.Object{Members: make([]jsonnode.Member, 0, len(m))}
	for _, k := range sortedKeys(m) {
		obj.Members = append(obj.Members, jsonnode.Member{Key: text(k), Value: c.schema(m[k])})
	}
	c.add(key, emptyNil(obj))
}

func (c *converter) properties(s *jsonschema.Schema) {
	props := s.Properties
	if props.Len() == 0 {
		// A zero OrderedMap marshals as null, an initialised empty one
		// as {}; only its MarshalJSON knows which this is.
		raw, err := props.MarshalJSON()
		if err != nil {
			c.fail(err)
			return
		}
		if string(raw) != "{}" {
			c.fail(errSlowPath)
			return
		}
	}
	obj := &jsonnode.Object{Members: make([]jsonnode.Member, 0, props.Len())}
	for p := props.Oldest(); p != nil; p = p.Next() {
		obj.Members = append(obj.Members, jsonnode.Member{Key: text(p.Key), Value: c.schema(p.Value)})
	}
	c.add("properties", emptyNil(obj))
}

func (c *converter) values(key string, l []any) {
	if len(l) == 0 {
		return
	}
	a := make([]any, len(l))
	for i, v := range l {
		a[i] = c.data(v)
	}
	c.add(key, a)
}

func (c *converter) value(key string, v any) {
	c.add(text(key), c.data(v))
}

// data converts a value of an any-typed field (enum, default, const,
// examples, extras). The kinds invopop itself puts there are converted
// directly; anything else goes through json.Marshal, which is what
// encoding/json would have done with it.
func (c *converter) data(v any) any {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return text(v)
	case bool:
		return v
	case json.Number:
		if v == "" {
			return json.Number("0") // what encoding/json writes for it
		}
		if !jsonnode.ValidNumber(string(v)) {
			c.fail(errSlowPath)
			return nil
		}
		return v
	case int:
		return json.Number(strconv.Itoa(v))
	case int64:
		return json.Number(strconv.FormatInt(v, 10))
	case []string:
		if v == nil {
			return nil
		}
		return stringList(v)
	case []any:
		if v == nil {
			return nil
		}
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = c.data(x)
		}
		return a
	case *jsonschema.Schema:
		return c.schema(v)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		c.fail(errSlowPath) // the marshal path reports it as today
		return nil
	}
	x, err := jsonnode.Parse(raw)
	if err != nil {
		c.fail(errSlowPath)
		return nil
	}
	return x
}

func stringList(l []string) []any {
	a := make([]any, len(l))
	for i, s := range l {
		a[i] = text(s)
	}
	return a
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// str returns text(s) as an interface value; the type names, which most
// schemas hold, take no allocation.
func str(s string) any {
	switch s {
	case "object":
		return "object"
	case "string":
		return "string"
	case "integer":
		return "integer"
	case "number":
		return "number"
	case "boolean":
		return "boolean"
	case "array":
		return "array"
	}
	return text(s)
}

// text returns s as it reads back after encoding/json wrote it: each byte
// of invalid UTF-8 becomes U+FFFD.
func text(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}
