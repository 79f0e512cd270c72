package check

import (
	"bytes"
	"slices"
)

// Normalize maps empty, blank and null arguments to {}: models send them
// for tools without parameters.
func Normalize(args []byte) []byte {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return []byte("{}")
	}
	return args
}

// Validate checks args against the schema and returns the violations,
// nil when there are none, at most 10. Malformed JSON is one violation
// with Rule "syntax". Apply Normalize first where empty arguments mean {}.
func (s *Schema) Validate(args []byte) []Violation {
	st := getState(args)
	defer putState(st)
	err := st.value(s.root, 0)
	return st.finish(err)
}

// value checks the next JSON value against n (nil: anything). It returns
// an error only for malformed JSON; violations are recorded.
func (st *state) value(n *node, depth int) error {
	if depth > MaxDepth {
		return st.syntax("nesting deeper than %d levels", MaxDepth)
	}
	n = resolve(n)
	st.ws()
	if st.pos >= len(st.data) {
		return st.syntax("unexpected end of input")
	}
	if n == nil {
		return st.value1(nil, depth)
	}
	if n.never {
		st.fail("not", "no value is allowed here")
		return st.value1(nil, depth)
	}
	if !n.composite {
		return st.value1(n, depth)
	}
	start := st.pos
	if err := st.value1(n, depth); err != nil {
		return err
	}
	st.composite(n, st.data[start:st.pos], depth)
	return nil
}

// value1 checks the keywords of n that read the value in the pass.
func (st *state) value1(n *node, depth int) error {
	start := st.pos
	switch c := st.data[st.pos]; {
	case c == '{', c == '[':
		tn, bit := n, tObject
		if c == '[' {
			bit = tArray
		}
		if n != nil && !st.typeOK(n, bit, c) {
			tn = nil
		}
		var err error
		if c == '{' {
			err = st.object(tn, depth)
		} else {
			err = st.array(tn, depth)
		}
		if err != nil {
			return err
		}
		if tn != nil && tn.enum != nil {
			st.checkEnum(tn, c, "", decimal{}, st.data[start:st.pos])
		}
	case c == '"':
		escaped, err := st.str()
		if err != nil {
			return err
		}
		st.escaped = escaped
		if n == nil || !st.typeOK(n, tString, c) {
			return nil
		}
		if n.enum == nil && n.pattern == nil && n.minLen < 0 && n.maxLen < 0 && n.format == fmtNone {
			return nil
		}
		st.checkString(n, st.strValue(start, escaped))
	case c == '-' || '0' <= c && c <= '9':
		if err := st.number(); err != nil {
			return err
		}
		if n == nil {
			return nil
		}
		if d, ok := st.numberType(n, st.data[start:st.pos]); ok {
			st.checkNumber(n, d)
		}
	case c == 't' || c == 'f' || c == 'n':
		word := "null"
		bit := tNull
		switch c {
		case 't':
			word, bit = "true", tBoolean
		case 'f':
			word, bit = "false", tBoolean
		}
		if !bytes.HasPrefix(st.data[st.pos:], []byte(word)) {
			return st.syntax("invalid literal at byte %d", st.pos)
		}
		st.pos += len(word)
		if n != nil && st.typeOK(n, bit, c) && n.enum != nil {
			st.checkEnum(n, c, "", decimal{}, nil)
		}
	default:
		return st.syntax("invalid character %q at byte %d", c, st.pos)
	}
	return nil
}

// sub checks raw, a value already read at the current path, against n in
// a fresh pass. It allocates only to return violations.
func (st *state) sub(n *node, raw []byte, depth int) []Violation {
	s := statePool.Get().(*state)
	s.data, s.pos = raw, 0
	// The path so far, with its names copied: they are not in raw.
	s.path, s.names = s.path[:0], s.names[:0]
	for _, g := range st.path {
		if g.isKey {
			at := span{start: len(s.names), own: true}
			s.names = append(s.names, st.bytesOf(g.name())...)
			at.end = len(s.names)
			g = keySeg(at)
		}
		s.path = append(s.path, g)
	}
	s.violations, s.keys = s.violations[:0], s.keys[:0]
	var out []Violation
	if err := s.value(n, depth); err != nil {
		out = []Violation{{Path: s.pathString(), Rule: "syntax", Message: err.Error()}}
	} else if len(s.violations) > 0 {
		out = slices.Clone(s.violations)
	}
	putState(s)
	return out
}

// composite checks a value already read against the subschemas that apply
// to it as a whole.
func (st *state) composite(n *node, raw []byte, depth int) {
	for _, a := range n.allOf {
		st.addAll(st.sub(a, raw, depth))
	}
	if len(n.anyOf) > 0 {
		var best []Violation
		ok := false
		for i, a := range n.anyOf {
			vs := st.sub(a, raw, depth)
			if len(vs) == 0 {
				ok = true
				break
			}
			if i == 0 || len(vs) < len(best) {
				best = vs
			}
		}
		if !ok {
			st.addAll(best)
		}
	}
	if len(n.oneOf) > 0 {
		first := -1
		var best []Violation
		for i, a := range n.oneOf {
			vs := st.sub(a, raw, depth)
			if len(vs) > 0 {
				if best == nil || len(vs) < len(best) {
					best = vs
				}
				continue
			}
			if first >= 0 {
				st.failf("oneOf", "must match exactly one schema in oneOf, but matches %d and %d", first, i)
				first = -2
				break
			}
			first = i
		}
		if first == -1 {
			st.addAll(best)
		}
	}
	if n.not != nil && len(st.sub(n.not, raw, depth)) == 0 {
		st.fail("not", "must not match the \"not\" schema")
	}
	if n.ifS != nil && (n.thenS != nil || n.elseS != nil) {
		if len(st.sub(n.ifS, raw, depth)) == 0 {
			if n.thenS != nil {
				st.addAll(st.sub(n.thenS, raw, depth))
			}
		} else if n.elseS != nil {
			st.addAll(st.sub(n.elseS, raw, depth))
		}
	}
}
