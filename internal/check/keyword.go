package check

import (
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/tagcheck"
)

// objCompile holds what one schema object's keywords say about each
// other.
type objCompile struct {
	asserts    int    // assertion keywords other than $ref
	assertName string // one of them, for messages
	ref        string
	hasRef     bool
	itemsArray bool
	addlItems  *node
	depReq     map[string][]string
	depReqKeys []string
	depSch     map[string]*node
	depSchKeys []string
}

// isAnnotation reports whether key is an annotation, which asserts nothing.
func isAnnotation(key string) bool {
	switch key {
	case "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly",
		"$comment", "contentEncoding", "contentMediaType", "contentSchema":
		return true
	}
	return false
}

var unsupported = map[string]string{
	"$anchor":               "not supported; refer to subschemas with a JSON pointer such as \"#/$defs/Name\"",
	"$dynamicAnchor":        "not supported; refer to subschemas with a JSON pointer such as \"#/$defs/Name\"",
	"$recursiveAnchor":      "not supported; refer to subschemas with a JSON pointer such as \"#/$defs/Name\"",
	"$dynamicRef":           "not supported; use \"$ref\" with a JSON pointer such as \"#/$defs/Name\"",
	"$recursiveRef":         "not supported; use \"$ref\" with a JSON pointer such as \"#/$defs/Name\"",
	"$vocabulary":           "not supported; only the standard vocabularies are",
	"unevaluatedProperties": "not supported; list the allowed fields with \"properties\" and \"additionalProperties\"",
	"unevaluatedItems":      "not supported; use \"prefixItems\" and \"items\"",
}

// keywords lists every keyword Compile accepts, for suggestions.
var keywords = []string{
	"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
	"exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
	"uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
	"required", "dependentRequired", "properties", "patternProperties",
	"additionalProperties", "propertyNames", "items", "prefixItems", "contains",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas",
	"$ref", "$defs", "definitions", "format", "$schema", "$id", "additionalItems",
	"dependencies", "title", "description", "examples", "default", "deprecated",
	"readOnly", "writeOnly", "$comment", "contentEncoding", "contentMediaType",
	"contentSchema",
}

// newIn2020 are the assertions draft 2020-12 added since draft-07.
var newIn2020 = map[string]bool{"prefixItems": true, "dependentRequired": true, "dependentSchemas": true, "minContains": true, "maxContains": true}

func (c *compiler) keyword(n *node, st *objCompile, key string, v any, path string, isRoot bool) error {
	fail := func(format string, args ...any) error {
		return &SchemaError{Field: path, Keyword: key, Reason: fmt.Sprintf(format, args...)}
	}
	if isAnnotation(key) || strings.HasPrefix(key, "x-") {
		return nil
	}
	if key != "" && (key[0] == '$' || key[0] == 'u') { // as every unsupported keyword
		if r, ok := unsupported[key]; ok {
			return fail("%s", r)
		}
	}
	if c.draft7 && newIn2020[key] {
		// A draft-07 validator, such as the server's own, ignores it: enforcing
		// it would not be what the schema says, and skipping it would drop
		// what its author meant.
		return fail("not a draft-07 keyword; declare \"$schema\": \"https://json-schema.org/draft/2020-12/schema\" to use it")
	}
	switch key {
	case "$schema":
		if !isRoot {
			return fail("only allowed at the root of the schema")
		}
		return nil
	case "$id":
		if !isRoot {
			return fail("only allowed at the root of the schema; embedded schema resources are not supported")
		}
		if _, ok := v.(string); !ok {
			return fail("must be a string")
		}
		return nil
	case "$defs", "definitions":
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return fail("must be an object")
		}
		for _, m := range o.Members {
			if _, err := c.compile(m.Value, join(join(path, key), m.Key), false); err != nil {
				return err
			}
		}
		return nil
	case "$ref":
		s, ok := v.(string)
		if !ok {
			return fail("must be a string")
		}
		st.hasRef, st.ref = true, s
		return nil
	}
	st.asserts++
	st.assertName = key
	switch key {
	case "type":
		var names []any
		switch t := v.(type) {
		case string:
			bit := typeBit(t)
			if bit == 0 {
				return fail("unknown type %s; use object, array, string, number, integer, boolean or null", jsonText(t))
			}
			n.types |= bit
			return nil
		case []any:
			if len(t) == 0 {
				return fail("must not be an empty array")
			}
			names = t
		default:
			return fail("must be a type name or an array of type names")
		}
		for _, x := range names {
			s, _ := x.(string)
			bit := typeBit(s)
			if bit == 0 {
				return fail("unknown type %s; use object, array, string, number, integer, boolean or null", jsonText(x))
			}
			if countOf(names, x) > 1 {
				return fail("type %s is listed twice", jsonText(x))
			}
			n.types |= bit
		}
	case "properties":
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return fail("must be an object")
		}
		n.props = make(map[string]*node, len(o.Members))
		for _, m := range o.Members {
			child := leafOf(m.Value) // without making its path
			if child == nil {
				var err error
				if child, err = c.compile(m.Value, join(path, m.Key), false); err != nil {
					return err
				}
			}
			n.props[m.Key] = child
		}
	case "patternProperties":
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return fail("must be an object")
		}
		for _, m := range o.Members {
			re, reason := compilePattern(m.Key)
			if reason != "" {
				return fail("%s", reason)
			}
			child, err := c.compile(m.Value, join(join(path, key), m.Key), false)
			if err != nil {
				return err
			}
			n.patProps = append(n.patProps, patProp{re, child})
		}
	case "additionalProperties":
		if b, ok := v.(bool); ok {
			n.noAddl = !b
			return nil
		}
		child, err := c.compile(v, join(path, key), false)
		if err != nil {
			return err
		}
		n.addl = child
	case "propertyNames", "contains", "not", "if", "then", "else":
		child, err := c.compile(v, join(path, key), false)
		if err != nil {
			return err
		}
		switch key {
		case "propertyNames":
			n.propNames = child
		case "contains":
			n.contains = child
		case "not":
			n.not = child
		case "if":
			n.ifS = child
		case "then":
			n.thenS = child
		case "else":
			n.elseS = child
		}
	case "required":
		names, ok := uniqueStrings(v)
		if !ok {
			return fail("must be an array of unique strings")
		}
		n.required = names
	case "dependentRequired":
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return fail("must be an object whose values are arrays of unique strings")
		}
		for _, m := range o.Members {
			names, ok := uniqueStrings(m.Value)
			if !ok {
				return fail("must be an object whose values are arrays of unique strings")
			}
			st.addDepReq(m.Key, names)
		}
	case "dependentSchemas":
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return fail("must be an object")
		}
		for _, m := range o.Members {
			child, err := c.compile(m.Value, join(join(path, key), m.Key), false)
			if err != nil {
				return err
			}
			st.addDepSchema(m.Key, child)
		}
	case "dependencies":
		if !c.draft7 {
			return fail("not supported in draft 2020-12; use \"dependentRequired\" or \"dependentSchemas\"")
		}
		o, ok := v.(*jsonnode.Object)
		if !ok {
			return fail("must be an object")
		}
		for _, m := range o.Members {
			if _, isArray := m.Value.([]any); isArray {
				names, ok := uniqueStrings(m.Value)
				if !ok {
					return fail("must be an object whose values are schemas or arrays of unique strings")
				}
				st.addDepReq(m.Key, names)
				continue
			}
			child, err := c.compile(m.Value, join(join(path, key), m.Key), false)
			if err != nil {
				return err
			}
			st.addDepSchema(m.Key, child)
		}
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		i, ok := nonNegative(v)
		if !ok {
			return fail("must be a non-negative integer, got %s", jsonText(v))
		}
		switch key {
		case "minLength":
			n.minLen = i
		case "maxLength":
			n.maxLen = i
		case "minItems":
			n.minItems = i
		case "maxItems":
			n.maxItems = i
		case "minProperties":
			n.minProps = i
		case "maxProperties":
			n.maxProps = i
		case "minContains":
			n.minContains = i
		case "maxContains":
			n.maxContains = i
		}
	case "items":
		if a, ok := v.([]any); ok {
			if !c.draft7 {
				return fail("an array of schemas is the draft-07 form; in draft 2020-12 use \"prefixItems\" for the leading items and \"items\" for the rest")
			}
			st.itemsArray = true
			return c.prefixItems(n, a, path, fail)
		}
		child := leafOf(v) // without making its path
		if child == nil {
			var err error
			if child, err = c.compile(v, path+"[]", false); err != nil {
				return err
			}
		}
		n.items = child
	case "prefixItems":
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			return fail("must be a non-empty array of schemas")
		}
		return c.prefixItems(n, a, path, fail)
	case "additionalItems":
		if !c.draft7 {
			return fail("not supported in draft 2020-12; use \"prefixItems\" for the leading items and \"items\" for the rest")
		}
		child, err := c.compile(v, join(path, key), false)
		if err != nil {
			return err
		}
		st.addlItems = child
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return fail("must be a boolean")
		}
		n.unique = b
	case "enum":
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			return fail("must be a non-empty array")
		}
		n.enum = n.enum[:0]
		for _, x := range a {
			n.enum = append(n.enum, newJValue(x))
		}
		n.enumData = a
	case "const":
		n.enum = []jvalue{newJValue(v)}
		n.isConst = true
		n.enumData = v
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		num, ok := v.(interface{ String() string })
		if _, isBool := v.(bool); isBool && strings.HasPrefix(key, "exclusive") {
			return fail("must be a number; the boolean form is draft-04: write the bound itself, e.g. \"%s\": 0, instead of \"%s\" with \"%s\": true", key, strings.ToLower(key[9:10])+key[10:], key)
		}
		if _, isStr := v.(string); isStr || !ok {
			return fail("must be a number, got %s", kindOf(v))
		}
		b := newBound(num.String())
		switch key {
		case "minimum":
			n.min = b
		case "maximum":
			n.max = b
		case "exclusiveMinimum":
			n.xmin = b
		case "exclusiveMaximum":
			n.xmax = b
		case "multipleOf":
			if b.d.zero() || b.d.neg {
				return fail("must be a number greater than 0, got %s", num.String())
			}
			n.multipleOf = b
		}
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return fail("must be a string")
		}
		re, reason := compilePattern(s)
		if reason != "" {
			return fail("%s", reason)
		}
		n.pattern = re
	case "format":
		s, ok := v.(string)
		if !ok {
			return fail("must be a string")
		}
		n.format = formatCode(s)
	case "allOf", "anyOf", "oneOf":
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			return fail("must be a non-empty array of schemas")
		}
		list := make([]*node, len(a))
		for i, x := range a {
			child, err := c.compile(x, join(path, fmt.Sprintf("%s[%d]", key, i)), false)
			if err != nil {
				return err
			}
			list[i] = child
		}
		switch key {
		case "allOf":
			n.allOf = list
		case "anyOf":
			n.anyOf = list
		case "oneOf":
			n.oneOf = list
		}
	case "nullable":
		return fail("not JSON Schema (it is OpenAPI 3.0); allow null with a type array such as [\"string\", \"null\"]")
	default:
		if s := tagcheck.Suggest(key, keywords); s != "" {
			return fail("unknown keyword; did you mean %q?", s)
		}
		return fail("unknown keyword")
	}
	return nil
}

func countOf(list []any, x any) int {
	k := 0
	for _, y := range list {
		if y == x {
			k++
		}
	}
	return k
}

func (c *compiler) prefixItems(n *node, a []any, path string, fail func(string, ...any) error) error {
	if len(n.prefix) > 0 {
		return fail("leading items are given twice, by \"items\" and \"prefixItems\"")
	}
	for i, x := range a {
		child, err := c.compile(x, join(path, fmt.Sprintf("[%d]", i)), false)
		if err != nil {
			return err
		}
		n.prefix = append(n.prefix, child)
	}
	return nil
}

func (st *objCompile) addDepReq(key string, names []string) {
	if st.depReq == nil {
		st.depReq = map[string][]string{}
	}
	if _, ok := st.depReq[key]; !ok {
		st.depReqKeys = append(st.depReqKeys, key)
	}
	st.depReq[key] = append(st.depReq[key], names...)
}

func (st *objCompile) addDepSchema(key string, n *node) {
	if st.depSch == nil {
		st.depSch = map[string]*node{}
	}
	if _, ok := st.depSch[key]; !ok {
		st.depSchKeys = append(st.depSchKeys, key)
		st.depSch[key] = n
		return
	}
	// draft-07 dependencies and dependentSchemas both name key: both apply
	both := newNode()
	both.allOf = []*node{st.depSch[key], n}
	both.composite = true
	st.depSch[key] = both
}

// finish settles what keywords of one object imply together.
func (c *compiler) finish(n *node, st *objCompile, path string) error {
	if st.itemsArray && st.addlItems != nil {
		n.items = st.addlItems
	}
	track := func(name string) int {
		if n.track == nil {
			n.track = map[string]int{}
		}
		if i, ok := n.track[name]; ok {
			return i
		}
		n.track[name] = len(n.track)
		return len(n.track) - 1
	}
	for _, r := range n.required {
		n.reqIdx = append(n.reqIdx, track(r))
	}
	for _, k := range st.depReqKeys {
		d := depReq{key: track(k), text: k}
		for _, r := range st.depReq[k] {
			d.names = append(d.names, r)
			d.idx = append(d.idx, track(r))
		}
		n.depReq = append(n.depReq, d)
	}
	for _, k := range st.depSchKeys {
		n.depSchemas = append(n.depSchemas, depSchema{key: track(k), n: st.depSch[k]})
	}
	if st.hasRef {
		if c.draft7 && st.asserts > 0 {
			return &SchemaError{Field: path, Keyword: "$ref", Reason: fmt.Sprintf("draft-07 ignores keywords next to \"$ref\", so %q would not be enforced; move them into an \"allOf\" with the \"$ref\"", st.assertName)}
		}
		n.refTo = st.ref
		c.pending = append(c.pending, pendingRef{n: n, ref: st.ref, path: path, alias: st.asserts == 0})
	}
	n.composite = n.composite || len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 ||
		n.not != nil || n.ifS != nil && (n.thenS != nil || n.elseS != nil)
	return nil
}

func uniqueStrings(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		for _, p := range out {
			if p == s {
				return nil, false
			}
		}
		out = append(out, s)
	}
	return out, true
}

func nonNegative(v any) (int, bool) {
	num, ok := v.(interface{ String() string })
	if _, isStr := v.(string); isStr || !ok {
		return 0, false
	}
	d := parseDecimal([]byte(num.String()))
	if d.neg && !d.zero() || !d.isInt() {
		return 0, false
	}
	if d.zero() {
		return 0, true
	}
	if d.exp > 18 {
		return int(^uint(0) >> 1), true
	}
	i := 0
	for k := int64(0); k < d.exp; k++ {
		dg := 0
		if k < int64(d.n()) {
			dg = int(d.digit(int(k)) - '0')
		}
		i = i*10 + dg
	}
	return i, true
}
