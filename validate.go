package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// A validator checks arguments against a tool's input schema (E2) in one
// pass over the JSON text, before anything is decoded. It understands the
// keywords the library generates: type, properties, required,
// additionalProperties, items, enum, const, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf, minLength, maxLength,
// pattern, format date-time, minItems, maxItems, anyOf, oneOf (as anyOf),
// allOf, $ref into $defs. Other keywords are ignored.
type validator struct {
	root *vnode
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

type vnode struct {
	types      int // bit set of t*; 0 means any type
	props      map[string]*vnode
	required   []string
	addl       *vnode // schema for other properties; nil with noAddl false means any
	noAddl     bool
	items      *vnode
	prefix     []*vnode
	enum       []any // decoded values: string, float64, bool, nil, or canonical JSON text
	min, max   *float64
	xmin, xmax *float64
	multipleOf float64
	minLen     int
	maxLen     int
	minItems   int
	maxItems   int
	pattern    *regexp.Regexp
	dateTime   bool
	anyOf      [][]*vnode // each entry: alternatives
	allOf      []*vnode
	ref        string
	refNode    *vnode
	never      bool // the schema "not {}" / false
}

// compileValidator compiles a JSON Schema. Unknown or malformed keywords
// are ignored rather than rejected: the provider is the judge of the
// schema, and the validator only guards the tool.
func compileValidator(schema []byte) (*validator, error) {
	tree, err := jsonnode.Parse(schema)
	if err != nil {
		return nil, err
	}
	c := compiler{defs: map[string]*vnode{}}
	root := c.compile(tree)
	if o, ok := tree.(*jsonnode.Object); ok {
		for _, key := range []string{"$defs", "definitions"} {
			if d, ok := o.Get(key); ok {
				if defs, ok := d.(*jsonnode.Object); ok {
					for _, m := range defs.Members {
						c.defs["#/"+key+"/"+m.Key] = c.compile(m.Value)
					}
				}
			}
		}
	}
	for _, n := range c.refs {
		n.refNode = c.defs[n.ref]
		if n.ref == "#" {
			n.refNode = root
		}
	}
	return &validator{root: root}, nil
}

type compiler struct {
	defs map[string]*vnode
	refs []*vnode
}

func (c *compiler) compile(v any) *vnode {
	n := &vnode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	switch v := v.(type) {
	case bool:
		n.never = !v
		return n
	case *jsonnode.Object:
		for _, m := range v.Members {
			c.keyword(n, m.Key, m.Value)
		}
	}
	return n
}

func typeBit(name any) int {
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

func num(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (c *compiler) keyword(n *vnode, key string, v any) {
	switch key {
	case "type":
		switch t := v.(type) {
		case string:
			n.types = typeBit(t)
		case []any:
			for _, x := range t {
				n.types |= typeBit(x)
			}
		}
	case "properties":
		if o, ok := v.(*jsonnode.Object); ok {
			n.props = make(map[string]*vnode, len(o.Members))
			for _, m := range o.Members {
				n.props[m.Key] = c.compile(m.Value)
			}
		}
	case "required":
		if a, ok := v.([]any); ok {
			for _, x := range a {
				if s, ok := x.(string); ok {
					n.required = append(n.required, s)
				}
			}
		}
	case "additionalProperties":
		if b, ok := v.(bool); ok {
			n.noAddl = !b
		} else {
			n.addl = c.compile(v)
		}
	case "items":
		if a, ok := v.([]any); ok {
			for _, x := range a {
				n.prefix = append(n.prefix, c.compile(x))
			}
		} else {
			n.items = c.compile(v)
		}
	case "prefixItems":
		if a, ok := v.([]any); ok {
			for _, x := range a {
				n.prefix = append(n.prefix, c.compile(x))
			}
		}
	case "enum":
		if a, ok := v.([]any); ok {
			n.enum = make([]any, len(a))
			for i, x := range a {
				n.enum[i] = enumValue(x)
			}
		}
	case "const":
		n.enum = []any{enumValue(v)}
	case "minimum":
		if f, ok := num(v); ok {
			n.min = &f
		}
	case "maximum":
		if f, ok := num(v); ok {
			n.max = &f
		}
	case "exclusiveMinimum":
		if f, ok := num(v); ok {
			n.xmin = &f
		}
	case "exclusiveMaximum":
		if f, ok := num(v); ok {
			n.xmax = &f
		}
	case "multipleOf":
		if f, ok := num(v); ok && f > 0 {
			n.multipleOf = f
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		f, ok := num(v)
		if !ok || f < 0 {
			return
		}
		i := int(f)
		switch key {
		case "minLength":
			n.minLen = i
		case "maxLength":
			n.maxLen = i
		case "minItems":
			n.minItems = i
		case "maxItems":
			n.maxItems = i
		}
	case "pattern":
		if s, ok := v.(string); ok {
			n.pattern, _ = regexp.Compile(s)
		}
	case "format":
		n.dateTime = v == "date-time"
	case "anyOf", "oneOf":
		if a, ok := v.([]any); ok {
			alts := make([]*vnode, len(a))
			for i, x := range a {
				alts[i] = c.compile(x)
			}
			n.anyOf = append(n.anyOf, alts)
		}
	case "allOf":
		if a, ok := v.([]any); ok {
			for _, x := range a {
				n.allOf = append(n.allOf, c.compile(x))
			}
		}
	case "$ref":
		if s, ok := v.(string); ok {
			n.ref = s
			c.refs = append(c.refs, n)
		}
	case "not":
		if o, ok := v.(*jsonnode.Object); ok && len(o.Members) == 0 {
			n.never = true
		}
	}
}

// enumValue keeps strings, numbers, booleans and null comparable; other
// values compare as their JSON text.
func enumValue(x any) any {
	switch x := x.(type) {
	case string, bool, nil:
		return x
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return string(jsonnode.Marshal(x))
}

// seg is one step of the path to a value: a property name (a slice of
// the arguments, unescaped only when needed) or an array index.
type seg struct {
	name  []byte
	index int
	isKey bool
}

// maxViolations bounds the report sent to the model.
const maxViolations = 10

// maxDepth bounds the nesting of arguments the validator walks.
const maxDepth = DefaultMaxArgumentDepth

// validation is the state of one pass. It is pooled: the happy path
// allocates nothing.
type validation struct {
	data       []byte
	pos        int
	path       []seg
	violations []Violation
	durations  bool // decoding needs the time.Duration decoder
}

var validationPool = sync.Pool{New: func() any { return &validation{path: make([]seg, 0, 16)} }}

// errSyntax reports malformed JSON; it carries the message for the model.
type errSyntax struct{ msg string }

func (e *errSyntax) Error() string { return e.msg }

// Validate checks args (already normalised, see normalizeArguments) and
// returns an *ArgumentError listing the violations, or nil.
func (v *validator) Validate(tool string, args []byte) error {
	st := validationPool.Get().(*validation)
	st.data, st.pos, st.path, st.violations = args, 0, st.path[:0], st.violations[:0]
	defer func() {
		st.data = nil
		validationPool.Put(st)
	}()
	err := st.value(v.root, 0)
	if err == nil {
		st.ws()
		if st.pos < len(st.data) {
			err = st.syntax("data after the top-level value")
		}
	}
	if err != nil {
		return &ArgumentError{Tool: tool, Violations: []Violation{{Path: st.pathString(), Rule: "syntax", Message: err.Error()}}}
	}
	if len(st.violations) == 0 {
		return nil
	}
	return &ArgumentError{Tool: tool, Violations: append([]Violation(nil), st.violations...)}
}

func (st *validation) syntax(format string, args ...any) error {
	return &errSyntax{"arguments are not valid JSON: " + fmt.Sprintf(format, args...)}
}

func (st *validation) pathString() string {
	var b strings.Builder
	for _, s := range st.path {
		if !s.isKey {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(s.name)
	}
	return b.String()
}

func (st *validation) fail(rule, format string, args ...any) {
	if len(st.violations) < maxViolations {
		st.violations = append(st.violations, Violation{Path: st.pathString(), Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
}

func (st *validation) add(v Violation) {
	if len(st.violations) < maxViolations {
		st.violations = append(st.violations, v)
	}
}

func resolve(n *vnode) *vnode {
	for i := 0; n != nil && n.ref != "" && i < 64; i++ {
		if n.refNode == nil {
			return nil
		}
		n = n.refNode
	}
	return n
}

func (st *validation) ws() {
	for st.pos < len(st.data) {
		switch st.data[st.pos] {
		case ' ', '\t', '\n', '\r':
			st.pos++
		default:
			return
		}
	}
}

// value validates the next JSON value against n (nil: anything). It
// returns an error only for malformed JSON; violations are recorded.
func (st *validation) value(n *vnode, depth int) error {
	if depth > maxDepth {
		return st.syntax("nesting deeper than %d levels", maxDepth)
	}
	n = resolve(n)
	st.ws()
	if st.pos >= len(st.data) {
		return st.syntax("unexpected end of input")
	}
	if n != nil && (len(n.anyOf) > 0 || len(n.allOf) > 0) {
		start := st.pos
		if err := st.value(nil, depth); err != nil {
			return err
		}
		st.composite(n, st.data[start:st.pos], depth)
		return nil
	}
	if n != nil && n.never {
		st.fail("not", "no value is allowed here")
		return st.value(nil, depth)
	}
	switch c := st.data[st.pos]; {
	case c == '{':
		if n != nil && !st.typeOK(n, tObject, "object") {
			n = nil
		}
		return st.object(n, depth)
	case c == '[':
		if n != nil && !st.typeOK(n, tArray, "array") {
			n = nil
		}
		return st.array(n, depth)
	case c == '"':
		start := st.pos
		escaped, err := st.str()
		if err != nil {
			return err
		}
		if n == nil || !st.typeOK(n, tString, "string") {
			return nil
		}
		if n.enum == nil && n.pattern == nil && n.minLen < 0 && n.maxLen < 0 && !n.dateTime {
			return nil
		}
		raw := st.data[start+1 : st.pos-1]
		var s string
		if escaped {
			if err := json.Unmarshal(st.data[start:st.pos], &s); err != nil {
				return st.syntax("%v", err)
			}
		} else {
			s = string(raw)
		}
		st.checkString(n, s)
	case c == '-' || '0' <= c && c <= '9':
		start := st.pos
		isInt, err := st.number()
		if err != nil {
			return err
		}
		if n == nil {
			return nil
		}
		raw := st.data[start:st.pos]
		needValue := n.min != nil || n.max != nil || n.xmin != nil || n.xmax != nil || n.multipleOf > 0 || n.enum != nil
		var f float64
		if needValue || !isInt {
			f, err = strconv.ParseFloat(string(raw), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return st.syntax("bad number %s", raw)
			}
			if !isInt && f == math.Trunc(f) && !math.IsInf(f, 0) {
				isInt = true // 2.0 is an integer, as JSON Schema says
			}
		}
		if isInt {
			if !st.typeOK(n, tInteger, "number") {
				return nil
			}
		} else if n.types != 0 && n.types&tNumber == 0 {
			if n.types&tInteger != 0 {
				st.fail("type", "expected integer, got %s", raw)
			} else {
				st.typeOK(n, tNumber, "number")
			}
			return nil
		}
		st.checkNumber(n, f)
	case c == 't' || c == 'f' || c == 'n':
		word := "null"
		switch c {
		case 't':
			word = "true"
		case 'f':
			word = "false"
		}
		if !bytes.HasPrefix(st.data[st.pos:], []byte(word)) {
			return st.syntax("invalid literal at byte %d", st.pos)
		}
		st.pos += len(word)
		if n == nil {
			return nil
		}
		if c == 'n' {
			if st.typeOK(n, tNull, "null") && n.enum != nil {
				st.checkEnum(n, nil)
			}
		} else if st.typeOK(n, tBoolean, "boolean") && n.enum != nil {
			st.checkEnum(n, c == 't')
		}
	default:
		return st.syntax("invalid character %q at byte %d", c, st.pos)
	}
	return nil
}

// str consumes a string and reports whether it had escapes.
func (st *validation) str() (escaped bool, err error) {
	st.pos++ // opening quote
	start := st.pos
	for st.pos < len(st.data) {
		c := st.data[st.pos]
		switch {
		case c == '"':
			if !escaped && !utf8.Valid(st.data[start:st.pos]) {
				return false, st.syntax("invalid UTF-8 in string")
			}
			st.pos++
			return escaped, nil
		case c == '\\':
			escaped = true
			if st.pos+1 >= len(st.data) {
				return false, st.syntax("unexpected end of input")
			}
			switch st.data[st.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				st.pos += 2
			case 'u':
				if st.pos+6 > len(st.data) {
					return false, st.syntax("unexpected end of input")
				}
				for _, h := range st.data[st.pos+2 : st.pos+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false, st.syntax("invalid escape at byte %d", st.pos)
					}
				}
				st.pos += 6
			default:
				return false, st.syntax("invalid escape at byte %d", st.pos)
			}
		case c < 0x20:
			return false, st.syntax("control character in string at byte %d", st.pos)
		default:
			st.pos++
		}
	}
	return false, st.syntax("unexpected end of input")
}

// number consumes a number per the JSON grammar and reports whether it is
// written as an integer.
func (st *validation) number() (isInt bool, err error) {
	d, i := st.data, st.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return false, st.syntax("invalid number at byte %d", st.pos)
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		i++
		isInt = false
		if digits() == 0 {
			return false, st.syntax("invalid number at byte %d", st.pos)
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		isInt = false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false, st.syntax("invalid number at byte %d", st.pos)
		}
	}
	st.pos = i
	return isInt, nil
}

// composite validates a value already read against a schema with anyOf or
// allOf, each alternative in a fresh pass.
func (st *validation) composite(n *vnode, raw []byte, depth int) {
	check := func(alt *vnode) []Violation {
		sub := validation{data: raw, path: append([]seg(nil), st.path...)}
		if err := sub.value(alt, depth); err != nil {
			return []Violation{{Path: sub.pathString(), Rule: "syntax", Message: err.Error()}}
		}
		return sub.violations
	}
	base := *n
	base.anyOf, base.allOf = nil, nil
	for _, v := range check(&base) {
		st.add(v)
	}
	for _, a := range n.allOf {
		for _, v := range check(a) {
			st.add(v)
		}
	}
	for _, alts := range n.anyOf {
		var best []Violation
		ok := false
		for i, a := range alts {
			vs := check(a)
			if len(vs) == 0 {
				ok = true
				break
			}
			if i == 0 || len(vs) < len(best) {
				best = vs
			}
		}
		if !ok {
			for _, v := range best {
				st.add(v)
			}
		}
	}
}

func (st *validation) typeOK(n *vnode, bit int, got string) bool {
	if n.types == 0 || n.types&bit != 0 {
		return true
	}
	st.fail("type", "expected %s, got %s", typeNames(n.types), got)
	return false
}

func typeNames(types int) string {
	var names []string
	for _, t := range []struct {
		bit  int
		name string
	}{{tObject, "object"}, {tArray, "array"}, {tString, "string"}, {tNumber, "number"}, {tInteger, "integer"}, {tBoolean, "boolean"}, {tNull, "null"}} {
		if types&t.bit != 0 {
			if t.bit == tInteger && types&tNumber != 0 {
				continue
			}
			names = append(names, t.name)
		}
	}
	return strings.Join(names, " or ")
}

func (st *validation) checkString(n *vnode, s string) {
	if n.enum != nil {
		st.checkEnum(n, s)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			st.fail("minLength", "must be at least %d characters long", n.minLen)
		}
		if n.maxLen >= 0 && l > n.maxLen {
			st.fail("maxLength", "must be at most %d characters long", n.maxLen)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		st.fail("pattern", "must match the pattern %s", n.pattern)
	}
	if n.dateTime {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			st.fail("format", "must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z")
		}
	}
}

func (st *validation) checkNumber(n *vnode, f float64) {
	if n.enum != nil {
		st.checkEnum(n, f)
	}
	if n.min != nil && f < *n.min {
		st.fail("minimum", "must be >= %v", *n.min)
	}
	if n.max != nil && f > *n.max {
		st.fail("maximum", "must be <= %v", *n.max)
	}
	if n.xmin != nil && f <= *n.xmin {
		st.fail("exclusiveMinimum", "must be > %v", *n.xmin)
	}
	if n.xmax != nil && f >= *n.xmax {
		st.fail("exclusiveMaximum", "must be < %v", *n.xmax)
	}
	if n.multipleOf > 0 {
		if q := f / n.multipleOf; math.Abs(q-math.Round(q)) > 1e-9 {
			st.fail("multipleOf", "must be a multiple of %v", n.multipleOf)
		}
	}
}

func (st *validation) checkEnum(n *vnode, v any) {
	for _, e := range n.enum {
		if e == v {
			return
		}
	}
	var b strings.Builder
	for i, e := range n.enum {
		if i > 0 {
			b.WriteString(", ")
		}
		out, _ := json.Marshal(e)
		b.Write(out)
	}
	st.fail("enum", "must be one of %s", b.String())
}

func (st *validation) object(n *vnode, depth int) error {
	st.pos++ // '{'
	var seen uint64
	var seenMore []bool
	if n != nil && len(n.required) > 64 {
		seenMore = make([]bool, len(n.required))
	}
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == '}' {
		st.pos++
	} else {
		for {
			st.ws()
			if st.pos >= len(st.data) || st.data[st.pos] != '"' {
				return st.syntax("expected a field name at byte %d", st.pos)
			}
			start := st.pos
			escaped, err := st.str()
			if err != nil {
				return err
			}
			name := st.data[start+1 : st.pos-1]
			if escaped {
				var s string
				if err := json.Unmarshal(st.data[start:st.pos], &s); err != nil {
					return st.syntax("%v", err)
				}
				name = []byte(s)
			}
			st.ws()
			if st.pos >= len(st.data) || st.data[st.pos] != ':' {
				return st.syntax("expected ':' after field name at byte %d", st.pos)
			}
			st.pos++
			st.path = append(st.path, seg{name: name, isKey: true})
			var child *vnode
			if n != nil {
				var known bool
				child, known = n.props[string(name)]
				switch {
				case known:
					for i, r := range n.required {
						if r == string(name) {
							if i < 64 {
								seen |= 1 << i
							} else {
								seenMore[i] = true
							}
						}
					}
				case n.addl != nil:
					child = n.addl
				case n.noAddl:
					st.fail("additionalProperties", "unknown field; remove it")
				}
			}
			if err := st.value(child, depth+1); err != nil {
				return err
			}
			st.path = st.path[:len(st.path)-1]
			st.ws()
			if st.pos >= len(st.data) {
				return st.syntax("unexpected end of input")
			}
			if st.data[st.pos] == ',' {
				st.pos++
				continue
			}
			if st.data[st.pos] == '}' {
				st.pos++
				break
			}
			return st.syntax("expected ',' or '}' at byte %d", st.pos)
		}
	}
	if n == nil {
		return nil
	}
	for i, r := range n.required {
		if i < 64 && seen&(1<<i) == 0 || i >= 64 && !seenMore[i] {
			st.path = append(st.path, seg{name: []byte(r), isKey: true})
			st.fail("required", "required field is missing")
			st.path = st.path[:len(st.path)-1]
		}
	}
	return nil
}

func (st *validation) array(n *vnode, depth int) error {
	st.pos++ // '['
	count := 0
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == ']' {
		st.pos++
	} else {
		for {
			var item *vnode
			if n != nil {
				if count < len(n.prefix) {
					item = n.prefix[count]
				} else {
					item = n.items
				}
			}
			st.path = append(st.path, seg{index: count})
			if err := st.value(item, depth+1); err != nil {
				return err
			}
			st.path = st.path[:len(st.path)-1]
			count++
			st.ws()
			if st.pos >= len(st.data) {
				return st.syntax("unexpected end of input")
			}
			if st.data[st.pos] == ',' {
				st.pos++
				continue
			}
			if st.data[st.pos] == ']' {
				st.pos++
				break
			}
			return st.syntax("expected ',' or ']' at byte %d", st.pos)
		}
	}
	if n == nil {
		return nil
	}
	if n.minItems >= 0 && count < n.minItems {
		st.fail("minItems", "must have at least %d items", n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		st.fail("maxItems", "must have at most %d items", n.maxItems)
	}
	return nil
}

// validators caches compiled validators by schema text, for tools that do
// not carry their own. It stops growing at maxCachedValidators so tools
// made per request cannot exhaust memory.
var (
	validators      sync.Map
	validatorsCount atomic.Int64
)

const maxCachedValidators = 4096

// A typedTool is a tool built from a Go type. It validates its arguments
// itself, in Call, against its own schema.
type typedTool interface {
	typeSchema() *typeSchema
}

// validatorFor returns the validator the Manager applies before calling t,
// or nil when t validates its own arguments.
func validatorFor(t Tool, def Definition) *validator {
	switch t := t.(type) {
	case typedTool:
		return nil
	case *rawTool:
		return t.check
	}
	key := string(def.InputSchema)
	if v, ok := validators.Load(key); ok {
		return v.(*validator)
	}
	v, err := compileValidator(def.InputSchema)
	if err != nil {
		return nil
	}
	if validatorsCount.Load() < maxCachedValidators {
		if _, loaded := validators.LoadOrStore(key, v); !loaded {
			validatorsCount.Add(1)
		}
	}
	return v
}
