package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

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

// pathSeg is one step of the path to a value; paths are built only when a
// violation is reported.
type pathSeg struct {
	parent *pathSeg
	name   string
	index  int // used when name is ""
}

func (p *pathSeg) String() string {
	if p == nil {
		return ""
	}
	var segs []*pathSeg
	for s := p; s != nil; s = s.parent {
		segs = append(segs, s)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if s.name == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}

// maxViolations bounds the report sent to the model.
const maxViolations = 10

type validation struct {
	dec        jsontext.Decoder
	violations []Violation
}

var validationPool = sync.Pool{New: func() any { return new(validation) }}

// Validate checks args (already normalised, see normalizeArguments) and
// returns an *ArgumentError listing the violations, or nil.
func (v *validator) Validate(tool string, args []byte) error {
	st := validationPool.Get().(*validation)
	defer func() {
		st.violations = st.violations[:0]
		st.dec.Reset(eofReader{})
		validationPool.Put(st)
	}()
	st.dec.Reset(bytes.NewReader(args))
	err := st.value(v.root, nil)
	if err == nil {
		if _, err2 := st.dec.ReadToken(); err2 != io.EOF {
			err = errors.New("arguments are not valid JSON: data after the top-level value")
		}
	}
	if err != nil {
		return &ArgumentError{Tool: tool, Violations: []Violation{syntaxViolation(err)}}
	}
	if len(st.violations) == 0 {
		return nil
	}
	return &ArgumentError{Tool: tool, Violations: append([]Violation(nil), st.violations...)}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func syntaxViolation(err error) Violation {
	var sx *jsontext.SyntacticError
	if errors.As(err, &sx) {
		return Violation{Path: pointerPath(sx.JSONPointer), Rule: "syntax", Message: "arguments are not valid JSON: " + sx.Err.Error()}
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return Violation{Rule: "syntax", Message: "arguments are not valid JSON: unexpected end of input"}
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "arguments") {
		msg = "arguments are not valid JSON: " + msg
	}
	return Violation{Rule: "syntax", Message: msg}
}

func (st *validation) fail(path *pathSeg, rule, format string, args ...any) {
	if len(st.violations) < maxViolations {
		st.violations = append(st.violations, Violation{Path: path.String(), Rule: rule, Message: fmt.Sprintf(format, args...)})
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

// value validates the next JSON value against n. It returns an error only
// for malformed JSON; violations are recorded.
func (st *validation) value(n *vnode, path *pathSeg) error {
	n = resolve(n)
	if n == nil {
		return st.dec.SkipValue()
	}
	if len(n.anyOf) > 0 || len(n.allOf) > 0 {
		raw, err := st.dec.ReadValue()
		if err != nil {
			return err
		}
		st.composite(n, raw, path)
		return nil
	}
	return st.simple(n, path)
}

// composite validates a value already read against a schema with anyOf or
// allOf, each alternative in a fresh pass.
func (st *validation) composite(n *vnode, raw []byte, path *pathSeg) {
	check := func(alt *vnode) []Violation {
		sub := validation{}
		sub.dec.Reset(bytes.NewReader(raw))
		if err := sub.value(alt, path); err != nil {
			return []Violation{syntaxViolation(err)}
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
		var first []Violation
		ok := false
		for i, a := range alts {
			vs := check(a)
			if len(vs) == 0 {
				ok = true
				break
			}
			if i == 0 || len(vs) < len(first) {
				first = vs
			}
		}
		if !ok {
			for _, v := range first {
				st.add(v)
			}
		}
	}
}

func (st *validation) add(v Violation) {
	if len(st.violations) < maxViolations {
		st.violations = append(st.violations, v)
	}
}

func (st *validation) simple(n *vnode, path *pathSeg) error {
	kind := st.dec.PeekKind()
	if n.never {
		st.fail(path, "not", "no value is allowed here")
		return st.dec.SkipValue()
	}
	switch kind {
	case '{':
		if !st.typeOK(n, tObject, path, "object") {
			return st.dec.SkipValue()
		}
		return st.object(n, path)
	case '[':
		if !st.typeOK(n, tArray, path, "array") {
			return st.dec.SkipValue()
		}
		return st.array(n, path)
	}
	raw, err := st.dec.ReadValue()
	if err != nil {
		return err
	}
	switch kind {
	case '"':
		if !st.typeOK(n, tString, path, "string") {
			return nil
		}
		if n.enum == nil && n.pattern == nil && n.minLen < 0 && n.maxLen < 0 && !n.dateTime {
			return nil
		}
		s, err := jsontext.AppendUnquote(nil, raw)
		if err != nil {
			return err
		}
		st.checkString(n, string(s), path)
	case '0':
		isInt := bytes.IndexAny(raw, ".eE") < 0
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return err
		}
		if !isInt && f == math.Trunc(f) && !math.IsInf(f, 0) {
			isInt = true // 2.0 is an integer, as JSON Schema says
		}
		if isInt {
			if !st.typeOK(n, tInteger, path, "number") {
				return nil
			}
		} else if n.types != 0 && n.types&tNumber == 0 {
			if n.types&tInteger != 0 {
				st.fail(path, "type", "expected integer, got %s", raw)
			} else {
				st.typeOK(n, tNumber, path, "number")
			}
			return nil
		}
		st.checkNumber(n, f, raw, path)
	case 't', 'f':
		if st.typeOK(n, tBoolean, path, "boolean") && n.enum != nil {
			st.checkEnum(n, kind == 't', raw, path)
		}
	case 'n':
		if st.typeOK(n, tNull, path, "null") && n.enum != nil {
			st.checkEnum(n, nil, raw, path)
		}
	}
	return nil
}

func (st *validation) typeOK(n *vnode, bit int, path *pathSeg, got string) bool {
	if n.types == 0 || n.types&bit != 0 {
		return true
	}
	st.fail(path, "type", "expected %s, got %s", typeNames(n.types), got)
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

func (st *validation) checkString(n *vnode, s string, path *pathSeg) {
	if n.enum != nil {
		st.checkEnum(n, s, nil, path)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			st.fail(path, "minLength", "must be at least %d characters long", n.minLen)
		}
		if n.maxLen >= 0 && l > n.maxLen {
			st.fail(path, "maxLength", "must be at most %d characters long", n.maxLen)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		st.fail(path, "pattern", "must match the pattern %s", n.pattern)
	}
	if n.dateTime {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			st.fail(path, "format", "must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z")
		}
	}
}

func (st *validation) checkNumber(n *vnode, f float64, raw []byte, path *pathSeg) {
	if n.enum != nil {
		st.checkEnum(n, f, raw, path)
	}
	if n.min != nil && f < *n.min {
		st.fail(path, "minimum", "must be >= %v", *n.min)
	}
	if n.max != nil && f > *n.max {
		st.fail(path, "maximum", "must be <= %v", *n.max)
	}
	if n.xmin != nil && f <= *n.xmin {
		st.fail(path, "exclusiveMinimum", "must be > %v", *n.xmin)
	}
	if n.xmax != nil && f >= *n.xmax {
		st.fail(path, "exclusiveMaximum", "must be < %v", *n.xmax)
	}
	if n.multipleOf > 0 {
		if q := f / n.multipleOf; math.Abs(q-math.Round(q)) > 1e-9 {
			st.fail(path, "multipleOf", "must be a multiple of %v", n.multipleOf)
		}
	}
}

func (st *validation) checkEnum(n *vnode, v any, raw []byte, path *pathSeg) {
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
	st.fail(path, "enum", "must be one of %s", b.String())
}

func (st *validation) object(n *vnode, path *pathSeg) error {
	if _, err := st.dec.ReadToken(); err != nil { // '{'
		return err
	}
	var seen uint64
	var seenMore []bool
	if len(n.required) > 64 {
		seenMore = make([]bool, len(n.required))
	}
	for st.dec.PeekKind() != '}' {
		rawName, err := st.dec.ReadValue()
		if err != nil {
			return err
		}
		name := rawName[1 : len(rawName)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			if name, err = jsontext.AppendUnquote(nil, rawName); err != nil {
				return err
			}
		}
		child, known := n.props[string(name)]
		if known {
			for i, r := range n.required {
				if r == string(name) {
					if i < 64 {
						seen |= 1 << i
					} else {
						seenMore[i] = true
					}
				}
			}
		} else if n.addl != nil {
			child = n.addl
		} else if n.noAddl {
			st.fail(&pathSeg{parent: path, name: string(name)}, "additionalProperties", "unknown field; remove it")
			if err := st.dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if child == nil {
			if err := st.dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if err := st.value(child, &pathSeg{parent: path, name: string(name)}); err != nil {
			return err
		}
	}
	if _, err := st.dec.ReadToken(); err != nil { // '}'
		return err
	}
	for i, r := range n.required {
		if i < 64 && seen&(1<<i) == 0 || i >= 64 && !seenMore[i] {
			st.fail(&pathSeg{parent: path, name: r}, "required", "required field is missing")
		}
	}
	return nil
}

func (st *validation) array(n *vnode, path *pathSeg) error {
	if _, err := st.dec.ReadToken(); err != nil { // '['
		return err
	}
	count := 0
	for st.dec.PeekKind() != ']' {
		var item *vnode
		if count < len(n.prefix) {
			item = n.prefix[count]
		} else {
			item = n.items
		}
		var err error
		if item == nil {
			err = st.dec.SkipValue()
		} else {
			err = st.value(item, &pathSeg{parent: path, index: count})
		}
		if err != nil {
			return err
		}
		count++
	}
	if _, err := st.dec.ReadToken(); err != nil { // ']'
		return err
	}
	if n.minItems >= 0 && count < n.minItems {
		st.fail(path, "minItems", "must have at least %d items", n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		st.fail(path, "maxItems", "must have at most %d items", n.maxItems)
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

// A typedTool is a tool built from a Go type, which carries its schemas and
// their validators.
type typedTool interface {
	typeSchema() *typeSchema
	validator() *validator // for the tool's own InputSchema
}

func validatorFor(t Tool, def Definition) *validator {
	switch t := t.(type) {
	case typedTool:
		if v := t.validator(); v != nil && sameBytes(def.InputSchema, t.(Tool).Definition().InputSchema) {
			return v
		}
		if ts := t.typeSchema(); sameBytes(def.InputSchema, ts.plain) || sameBytes(def.InputSchema, ts.strict) {
			return ts.validatorFor(def.InputSchema)
		}
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
