package check

import (
	"strings"
	"unicode/utf8"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// numberType parses raw, a JSON number, and checks it against n's type,
// recording a violation; it reports whether the number may be checked
// further.
func (st *state) numberType(n *node, raw []byte) (decimal, bool) {
	d := parseDecimal(raw)
	if d.isInt() {
		return d, st.typeOK(n, tInteger, '0')
	}
	if n.types != 0 && n.types&tNumber == 0 {
		if n.types&tInteger != 0 {
			st.failf("type", "expected integer, got %s", raw)
		} else {
			st.typeOK(n, tNumber, '0')
		}
		return d, false
	}
	return d, true
}

// typeOK checks the value's JSON type, given by its first byte.
func (st *state) typeOK(n *node, bit int, c byte) bool {
	if n.types == 0 || n.types&bit != 0 {
		return true
	}
	st.fail("type", "expected "+typeNames(n.types)+", got "+jsonnode.Kind(c))
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

func (st *state) checkString(n *node, s string) {
	if n.enum != nil {
		st.checkEnum(n, '"', s, decimal{}, nil)
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLen >= 0 && l < n.minLen {
			st.failf("minLength", "must be at least %d characters long", n.minLen)
		}
		if n.maxLen >= 0 && l > n.maxLen {
			st.failf("maxLength", "must be at most %d characters long", n.maxLen)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		st.fail("pattern", "must match the pattern "+n.pattern.String())
	}
	if n.format != fmtNone {
		if msg := checkFormat(n.format, s); msg != "" {
			st.fail("format", msg)
		}
	}
}

// checkItemCount checks an array's number of items against minItems and
// maxItems.
func (st *state) checkItemCount(n *node, count int) {
	if n.minItems >= 0 && count < n.minItems {
		st.failf("minItems", "must have at least %d items", n.minItems)
	}
	if n.maxItems >= 0 && count > n.maxItems {
		st.failf("maxItems", "must have at most %d items", n.maxItems)
	}
}

func (st *state) checkNumber(n *node, d decimal) {
	if n.enum != nil {
		st.checkEnum(n, '0', "", d, nil)
	}
	if n.min != nil && cmpDecimal(d, n.min.d) < 0 {
		st.fail("minimum", "must be >= "+n.min.text)
	}
	if n.max != nil && cmpDecimal(d, n.max.d) > 0 {
		st.fail("maximum", "must be <= "+n.max.text)
	}
	if n.xmin != nil && cmpDecimal(d, n.xmin.d) <= 0 {
		st.fail("exclusiveMinimum", "must be > "+n.xmin.text)
	}
	if n.xmax != nil && cmpDecimal(d, n.xmax.d) >= 0 {
		st.fail("exclusiveMaximum", "must be < "+n.xmax.text)
	}
	if n.multipleOf != nil && !isMultiple(d, n.multipleOf.d) {
		st.fail("multipleOf", "must be a multiple of "+n.multipleOf.text)
	}
}

// isMultiple tries int64 arithmetic before math/big.
func isMultiple(x, m decimal) bool {
	if x.zero() {
		return true
	}
	sx, sm := x.exp-int64(x.n()), m.exp-int64(m.n())
	s := min(sx, sm)
	if x.n()+int(sx-s) <= 18 && m.n()+int(sm-s) <= 18 && sx-s < 19 && sm-s < 19 {
		return scaled(x, sx-s)%scaled(m, sm-s) == 0
	}
	return multipleOf(x, m)
}

func scaled(d decimal, shift int64) int64 {
	var v int64
	for i := 0; i < d.n(); i++ {
		v = v*10 + int64(d.digit(i)-'0')
	}
	for ; shift > 0; shift-- {
		v *= 10
	}
	return v
}

// checkEnum compares the value (kind c; s for strings, d for numbers, raw
// for objects and arrays) with enum or const.
func (st *state) checkEnum(n *node, c byte, s string, d decimal, raw []byte) {
	var canon string
	for i := range n.enum {
		e := &n.enum[i]
		switch {
		case e.kind != c:
		case c == '"':
			if e.str == s {
				return
			}
		case c == '0':
			if cmpDecimal(e.num, d) == 0 {
				return
			}
		case c == '{' || c == '[':
			if canon == "" {
				canon = canonRaw(raw)
			}
			if e.canon == canon {
				return
			}
		default:
			return
		}
	}
	if n.isConst {
		st.fail("const", "must be "+jsonText(n.enumData))
		return
	}
	st.fail("enum", "must be one of "+listText(n.enumData.([]any)))
}
