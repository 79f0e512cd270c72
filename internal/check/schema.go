package check

import (
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
	"github.com/toolcall-go/toolcall/internal/tagcheck"
)

// MaxDepth bounds the nesting of arguments the checker walks.
const MaxDepth = 10000

// maxViolations bounds the report sent to the model.
const maxViolations = 10

// CheckedFormats lists the formats the checker enforces; every other
// format is an annotation.
var CheckedFormats = []string{"date-time", "date", "time", "uuid", "ipv4", "ipv6"}

// A Violation is one way the arguments break the schema.
type Violation struct {
	Path    string // e.g. "options.days" or "tags[2]"; empty for the whole value
	Rule    string // the schema keyword, e.g. "type", "required"; "syntax" for malformed JSON
	Message string // for the model, e.g. "must be <= 14"
}

// A SchemaError is a schema Compile refuses: a keyword it cannot enforce
// or a keyword value that is malformed.
type SchemaError struct {
	Field   string // path of the subschema, e.g. "options.days"; "" for the root
	Keyword string // the keyword refused; "" when the subschema itself is malformed
	Reason  string
}

// Error reads "parameter FIELD: keyword \"KEYWORD\": REASON", leaving out the
// parts that are empty.
func (e *SchemaError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString("parameter ")
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Keyword != "" {
		b.WriteString("keyword ")
		b.WriteString(strconv.Quote(e.Keyword))
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// A Schema is a compiled schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	root *node
}

const (
	tObject = 1 << iota
	tArray
	tString
	tInteger
	tNumber
	tBoolean
	tNull
)

const (
	fmtNone = iota
	fmtDateTime
	fmtDate
	fmtTime
	fmtUUID
	fmtIPv4
	fmtIPv6
)

// A node is one compiled subschema. Limits are -1 when absent.
type node struct {
	never bool // the schema false
	types int  // bit set of t*; 0 means any type

	// objects
	props      map[string]*node
	patProps   []patProp
	addl       *node // schema for other properties; nil means any
	noAddl     bool  // additionalProperties: false
	propNames  *node
	required   []string
	depReq     []depReq
	depSchemas []depSchema
	track      map[string]int // names whose presence matters, by index
	reqIdx     []int
	minProps   int
	maxProps   int

	// arrays
	items       *node
	prefix      []*node
	minItems    int
	maxItems    int
	unique      bool
	contains    *node
	minContains int
	maxContains int

	// any type
	enum     []jvalue
	isConst  bool
	enumData any // the enum's array or the const's value, for the message

	// numbers
	min, max, xmin, xmax *bound
	multipleOf           *bound

	// strings
	minLen  int
	maxLen  int
	pattern *regexp.Regexp
	format  int

	// subschemas applied to the same value
	allOf, anyOf, oneOf []*node
	not, ifS, thenS     *node
	elseS               *node
	composite           bool

	ref   *node // a node that is only a $ref stands for its target
	refTo string
	path  string
}

type patProp struct {
	re *regexp.Regexp
	n  *node
}

type depReq struct {
	key   int // index in track
	text  string
	names []string
	idx   []int // of names, in track
}

type depSchema struct {
	key int
	n   *node
}

func newNode() *node {
	return &node{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1,
		minContains: -1, maxContains: -1, minLen: -1, maxLen: -1}
}

// resolve follows $ref aliases; Compile refused cycles.
func resolve(n *node) *node {
	for n != nil && n.ref != nil {
		n = n.ref
	}
	return n
}

// Compile parses and compiles a schema.
func Compile(schema []byte) (*Schema, error) {
	tree, err := jsonnode.Parse(schema)
	if err != nil {
		return nil, &SchemaError{Reason: "schema is not valid JSON: " + err.Error()}
	}
	return CompileTree(tree)
}

// CompileTree compiles a schema tree as jsonnode.Parse returns it. The
// tree is not modified and not retained.
func CompileTree(tree any) (*Schema, error) {
	c := &compiler{root: tree, estimate: schemaCount(tree, 0)}
	c.nodes = make([]*node, 0, c.estimate)
	c.srcs = make([]*jsonnode.Object, 0, c.estimate)
	if o, ok := tree.(*jsonnode.Object); ok {
		if v, ok := o.Get("$schema"); ok {
			s, _ := v.(string)
			switch strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://"), "#") {
			case "json-schema.org/draft/2020-12/schema":
			case "json-schema.org/draft-07/schema":
				c.draft7 = true
			default:
				return nil, &SchemaError{Keyword: "$schema", Reason: fmt.Sprintf("unsupported dialect %s; use \"https://json-schema.org/draft/2020-12/schema\" or \"http://json-schema.org/draft-07/schema#\"", jsonText(v))}
			}
		}
	}
	root, err := c.compile(tree, "", true)
	if err != nil {
		return nil, err
	}
	for len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		if err := c.resolveRef(p); err != nil {
			return nil, err
		}
	}
	if err := c.cycles(); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

type compiler struct {
	root     any
	draft7   bool
	nodes    []*node
	srcs     []*jsonnode.Object // the object each of nodes was compiled from
	memo     map[*jsonnode.Object]*node
	slab     []node
	estimate int // schemaCount of root
	pending  []pendingRef
}

// newNode returns a new node. The nodes of one schema are allocated
// together, as they live and die together: c.slab has room for the
// schemas the tree holds, as far as schemaCount knows.
func (c *compiler) newNode() *node {
	if len(c.slab) == cap(c.slab) {
		size := 8 // the estimate was short
		if c.slab == nil {
			size = min(max(c.estimate, 1), 64)
		}
		c.slab = make([]node, 0, size)
	}
	c.slab = c.slab[:len(c.slab)+1]
	n := &c.slab[len(c.slab)-1]
	n.minProps, n.maxProps, n.minItems, n.maxItems = -1, -1, -1, -1
	n.minContains, n.maxContains, n.minLen, n.maxLen = -1, -1, -1, -1
	return n
}

// compiled returns the node compiled from o, if any. A tree reaches an
// object twice only through a $ref, so the index is made for the first.
func (c *compiler) compiled(o *jsonnode.Object) (*node, bool) {
	if c.memo == nil {
		c.memo = make(map[*jsonnode.Object]*node, len(c.srcs))
		for i, src := range c.srcs {
			c.memo[src] = c.nodes[i]
		}
	}
	n, ok := c.memo[o]
	return n, ok
}

type pendingRef struct {
	n     *node
	ref   string
	path  string
	alias bool
}

func join(path, step string) string {
	switch {
	case path == "":
		return step
	case strings.HasPrefix(step, "["):
		return path + step
	}
	return path + "." + step
}

func jsonText(v any) string { return string(jsonnode.Marshal(v)) }

func kindOf(v any) string {
	switch v.(type) {
	case *jsonnode.Object:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

func (c *compiler) compile(v any, path string, isRoot bool) (*node, error) {
	switch v := v.(type) {
	case bool:
		n := c.newNode()
		n.never = !v
		n.path = path
		return n, nil
	case *jsonnode.Object:
		if c.memo != nil {
			if n, ok := c.memo[v]; ok {
				return n, nil
			}
		}
		if n := leaf(v); n != nil {
			return n, nil
		}
		n := c.newNode()
		n.path = path
		if c.memo != nil {
			c.memo[v] = n
		}
		c.nodes = append(c.nodes, n)
		c.srcs = append(c.srcs, v)
		st := &objCompile{}
		var seen map[string]bool // for objects too large to scan
		if len(v.Members) > 16 {
			seen = make(map[string]bool, len(v.Members))
		}
		for i, m := range v.Members {
			if repeated(v.Members, i, seen) {
				return nil, &SchemaError{Field: path, Keyword: m.Key, Reason: "keyword appears twice"}
			}
			if err := c.keyword(n, st, m.Key, m.Value, path, isRoot); err != nil {
				return nil, err
			}
		}
		return n, c.finish(n, st, path)
	}
	return nil, &SchemaError{Field: path, Reason: "a schema must be an object or a boolean, got " + kindOf(v)}
}

// leaf returns the node shared by every schema that only names a type, or
// allows anything, such as most of a Go struct's fields have: nodes are
// not changed once compiled, and these have no path a message could show.
// It returns nil for any other schema.
func leaf(o *jsonnode.Object) *node {
	switch len(o.Members) {
	case 0:
		return anyNode
	case 1:
		if m := o.Members[0]; m.Key == "type" {
			if name, ok := m.Value.(string); ok {
				if bit := typeBit(name); bit != 0 {
					return typeNodes[bits.Len(uint(bit))-1]
				}
			}
		}
	}
	return nil
}

// leafOf is leaf for a schema of any form.
func leafOf(v any) *node {
	if o, ok := v.(*jsonnode.Object); ok {
		return leaf(o)
	}
	return nil
}

var (
	anyNode = newNode()
	// typeNodes are by the highest bit of the type's bits.
	typeNodes = func() (ns [7]*node) {
		for _, name := range []string{"object", "array", "string", "integer", "number", "boolean", "null"} {
			n := newNode()
			n.types = typeBit(name)
			ns[bits.Len(uint(n.types))-1] = n
		}
		return ns
	}()
)

// schemaCount estimates the number of schema objects in v that compile
// makes nodes for, to size the slab of nodes.
func schemaCount(v any, depth int) int {
	o, ok := v.(*jsonnode.Object)
	if !ok || depth > 64 {
		return 0
	}
	if leaf(o) != nil {
		return 0
	}
	n := 1
	for _, m := range o.Members {
		switch x := m.Value.(type) {
		case *jsonnode.Object:
			switch m.Key {
			case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas", "dependencies":
				for _, p := range x.Members {
					n += schemaCount(p.Value, depth+1)
				}
			case "enum", "const", "default", "examples":
			default:
				n += schemaCount(x, depth+1)
			}
		case []any:
			switch m.Key {
			case "allOf", "anyOf", "oneOf", "prefixItems", "items":
				for _, e := range x {
					n += schemaCount(e, depth+1)
				}
			}
		}
	}
	return n
}

// repeated reports whether an earlier member of ms has the key of ms[i];
// seen, if not nil, holds the keys of the earlier members, and gets this
// one.
func repeated(ms []jsonnode.Member, i int, seen map[string]bool) bool {
	key := ms[i].Key
	if seen != nil {
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	}
	for _, m := range ms[:i] {
		if m.Key == key {
			return true
		}
	}
	return false
}

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

func typeBit(name string) int {
	switch name {
	case "object":
		return tObject
	case "array":
		return tArray
	case "string":
		return tString
	case "integer":
		return tInteger
	case "number":
		return tNumber | tInteger
	case "boolean":
		return tBoolean
	case "null":
		return tNull
	}
	return 0
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

func formatCode(s string) int {
	switch s {
	case "date-time":
		return fmtDateTime
	case "date":
		return fmtDate
	case "time":
		return fmtTime
	case "uuid":
		return fmtUUID
	case "ipv4":
		return fmtIPv4
	case "ipv6":
		return fmtIPv6
	}
	return fmtNone
}

func listText(a []any) string {
	var b strings.Builder
	for i, x := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonText(x))
	}
	return b.String()
}
