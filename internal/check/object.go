package check

import (
	"bytes"
	"strconv"
)

// smallObject is how many names an object may have before duplicates are
// found with a map rather than a linear scan.
const smallObject = 32

// member reads `"name":`, refusing a name seen before in the object whose
// names start at st.keys[base] (or are in *set, for large objects). It
// returns the unescaped name, its raw text with quotes, and where the name
// lies (for the path).
func (st *state) member(base int, set *map[string]struct{}) (name, raw []byte, at span, err error) {
	if name, raw, at, err = st.memberName(); err != nil {
		return nil, nil, span{}, err
	}
	if err := st.unique(base, set, name, at); err != nil {
		return nil, nil, span{}, err
	}
	if err := st.colon(); err != nil {
		return nil, nil, span{}, err
	}
	return name, raw, at, nil
}

// memberName reads the name of a member, as member does, up to the ':'.
func (st *state) memberName() (name, raw []byte, at span, err error) {
	st.ws()
	if st.pos >= len(st.data) || st.data[st.pos] != '"' {
		return nil, nil, span{}, st.syntax("expected a field name at byte %d", st.pos)
	}
	start := st.pos
	escaped, err := st.str()
	if err != nil {
		return nil, nil, span{}, err
	}
	raw = st.data[start:st.pos]
	name = raw[1 : len(raw)-1]
	at = span{start: start + 1, end: st.pos - 1}
	if escaped {
		at = span{start: len(st.names), own: true}
		st.names = appendUnescaped(st.names, name)
		at.end = len(st.names)
		name = st.names[at.start:at.end]
	}
	return name, raw, at, nil
}

// unique refuses name, at at, when the object whose names start at
// st.keys[base] (or are in *set) has it already, and records it.
func (st *state) unique(base int, set *map[string]struct{}, name []byte, at span) error {
	if *set != nil {
		if _, dup := (*set)[string(name)]; dup {
			return st.duplicate(at)
		}
		(*set)[string(name)] = struct{}{}
		return nil
	}
	for _, k := range st.keys[base:] {
		if bytes.Equal(st.bytesOf(k), name) {
			return st.duplicate(at)
		}
	}
	st.keys = append(st.keys, at)
	if len(st.keys)-base > smallObject {
		*set = make(map[string]struct{}, 2*smallObject)
		for _, k := range st.keys[base:] {
			(*set)[string(st.bytesOf(k))] = struct{}{}
		}
		st.keys = st.keys[:base]
	}
	return nil
}

// colon reads the ':' after a member's name.
func (st *state) colon() error {
	st.ws()
	if st.pos >= len(st.data) || st.data[st.pos] != ':' {
		return st.syntax("expected ':' after field name at byte %d", st.pos)
	}
	st.pos++
	return nil
}

// seenSet records which tracked names an object has.
type seenSet struct {
	bits uint64
	more []bool
}

func (s *seenSet) set(i int) {
	if i < 64 {
		s.bits |= 1 << i
		return
	}
	for len(s.more) <= i-64 {
		s.more = append(s.more, false)
	}
	s.more[i-64] = true
}

func (s *seenSet) has(i int) bool {
	if i < 64 {
		return s.bits&(1<<i) != 0
	}
	return i-64 < len(s.more) && s.more[i-64]
}

// memberSchema returns the schema for the value of field name, recording
// an unknown field.
func (st *state) memberSchema(n *node, name []byte, seen *seenSet) *node {
	if n.track != nil {
		if i, ok := n.track[string(name)]; ok {
			seen.set(i)
		}
	}
	if c, ok := n.props[string(name)]; ok {
		return c
	}
	for _, p := range n.patProps {
		if p.re.Match(name) {
			return p.n
		}
	}
	if n.addl != nil {
		return n.addl
	}
	if n.noAddl {
		st.fail("additionalProperties", "unknown field; remove it")
	}
	return nil
}

// extraSchemas checks a member's value against the patternProperties
// beyond the one memberSchema chose.
func (st *state) extraSchemas(n *node, name, raw []byte, depth int) {
	_, first := n.props[string(name)]
	first = !first
	for _, p := range n.patProps {
		if p.re.Match(name) {
			if first {
				first = false
				continue
			}
			st.addAll(st.sub(p.n, raw, depth))
		}
	}
}

// checkName checks a field name against propertyNames.
func (st *state) checkName(n *node, raw []byte, depth int) {
	for _, v := range st.sub(n, raw, depth) {
		st.add(Violation{Path: v.Path, Rule: "propertyNames", Message: "field name: " + v.Message})
	}
}

func (st *state) object(n *node, depth int) error {
	start := st.pos
	var seen seenSet
	count, err := st.members(func(name, raw []byte) error {
		var child *node
		if n != nil {
			if n.propNames != nil {
				st.checkName(n.propNames, raw, depth+1)
			}
			child = st.memberSchema(n, name, &seen)
		}
		st.ws()
		vstart := st.pos
		if err := st.value(child, depth+1); err != nil {
			return err
		}
		if n != nil && len(n.patProps) > 0 {
			st.extraSchemas(n, name, st.data[vstart:st.pos], depth+1)
		}
		return nil
	})
	if err == nil && n != nil {
		st.objectEnd(n, &seen, count, st.data[start:st.pos], depth)
	}
	return err
}

// members reads an object, calling each for every member with the member's
// name and its quoted form (the path then ends with the name), and returns
// how many there were. A duplicate name is a syntax error.
func (st *state) members(each func(name, raw []byte) error) (int, error) {
	st.pos++ // '{'
	base := len(st.keys)
	var set map[string]struct{}
	count := 0
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == '}' {
		st.pos++
		return 0, nil
	}
	for {
		name, raw, at, err := st.member(base, &set)
		if err != nil {
			return count, err
		}
		count++
		st.push(keySeg(at))
		if err := each(name, raw); err != nil {
			return count, err
		}
		st.path = st.path[:len(st.path)-1]
		if done, err := st.next('}'); err != nil {
			return count, err
		} else if done {
			break
		}
	}
	st.keys = st.keys[:base]
	return count, nil
}

// objectEnd checks the keywords about the object as a whole.
func (st *state) objectEnd(n *node, seen *seenSet, count int, raw []byte, depth int) {
	for i, r := range n.required {
		if !seen.has(n.reqIdx[i]) {
			st.missing(r, "required", "required field is missing")
		}
	}
	for _, d := range n.depReq {
		if !seen.has(d.key) {
			continue
		}
		for i, r := range d.names {
			if !seen.has(d.idx[i]) {
				st.missing(r, "dependentRequired", "required when "+strconv.Quote(d.text)+" is present")
			}
		}
	}
	if n.minProps >= 0 && count < n.minProps {
		st.failf("minProperties", "must have at least %d fields", n.minProps)
	}
	if n.maxProps >= 0 && count > n.maxProps {
		st.failf("maxProperties", "must have at most %d fields", n.maxProps)
	}
	for _, d := range n.depSchemas {
		if seen.has(d.key) {
			st.addAll(st.sub(d.n, raw, depth))
		}
	}
}

func (st *state) missing(name, rule, msg string) {
	at := span{start: len(st.names), own: true}
	st.names = append(st.names, name...)
	at.end = len(st.names)
	st.push(keySeg(at))
	st.fail(rule, msg)
	st.path = st.path[:len(st.path)-1]
}

func (st *state) array(n *node, depth int) error {
	st.pos++ // '['
	count, matches := 0, 0
	var items map[string]int
	dupA, dupB := -1, -1
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == ']' {
		st.pos++
	} else {
		for {
			var item *node
			if n != nil {
				if count < len(n.prefix) {
					item = n.prefix[count]
				} else {
					item = n.items
				}
			}
			st.push(seg{start: count})
			st.ws()
			istart := st.pos
			if err := st.value(item, depth+1); err != nil {
				return err
			}
			if n != nil && (n.contains != nil || n.unique) {
				raw := st.data[istart:st.pos]
				if n.contains != nil && len(st.sub(n.contains, raw, depth+1)) == 0 {
					matches++
				}
				if n.unique && dupA < 0 {
					if items == nil {
						items = map[string]int{}
					}
					c := canonRaw(raw)
					if j, ok := items[c]; ok {
						dupA, dupB = j, count
					}
					items[c] = count
				}
			}
			st.path = st.path[:len(st.path)-1]
			count++
			if done, err := st.next(']'); err != nil {
				return err
			} else if done {
				break
			}
		}
	}
	if n == nil {
		return nil
	}
	st.checkItemCount(n, count)
	if dupA >= 0 {
		st.failf("uniqueItems", "items must be unique, but items %d and %d are equal", dupA, dupB)
	}
	if n.contains != nil {
		switch {
		case n.minContains < 0 && matches == 0:
			st.fail("contains", "must contain an item that matches the \"contains\" schema")
		case n.minContains >= 0 && matches < n.minContains:
			st.failf("minContains", "must contain at least %d items that match the \"contains\" schema", n.minContains)
		}
		if n.maxContains >= 0 && matches > n.maxContains {
			st.failf("maxContains", "must contain at most %d items that match the \"contains\" schema", n.maxContains)
		}
	}
	return nil
}

// duplicate reports a field given twice, at its own path: the tool's parser
// would read one value and the checks another.
func (st *state) duplicate(name span) error {
	st.push(keySeg(name))
	return st.syntax("duplicate field %q", st.bytesOf(name))
}
