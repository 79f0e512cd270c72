package check

import (
	"reflect"
	"unsafe"
)

func (st *state) decodeStruct(p *Plan, ptr unsafe.Pointer, depth int) error {
	// members, with the member's handling inline. A name that is a field's
	// is told from a duplicate by a bit per field; other names go through
	// st.keys as in members.
	n := p.check
	start := st.pos
	var seen seenSet
	var fieldSeen uint64
	bits := len(p.fields) <= 64
	hint, count := 0, 0
	st.pos++ // '{'
	base := len(st.keys)
	var set map[string]struct{}
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == '}' {
		st.pos++
	} else {
		for {
			// The name of the field expected next, as it is written, is
			// read without scanning the string; any other name is read
			// and looked up.
			var (
				name []byte
				at   span
				err  error
			)
			i := -1
			st.ws()
			if hint < len(p.fields) {
				q := p.fields[hint].quoted
				if end := st.pos + len(q); q != "" && end <= len(st.data) && string(st.data[st.pos:end]) == q {
					at = span{start: st.pos + 1, end: end - 1}
					name, i = st.data[at.start:at.end], hint
					st.pos = end
				}
			}
			if i < 0 {
				if name, _, at, err = st.memberName(); err != nil {
					return err
				}
				i = p.field(name, hint)
			}
			if i >= 0 && bits {
				if fieldSeen&(1<<i) != 0 {
					return st.duplicate(at)
				}
				fieldSeen |= 1 << i
			} else if err := st.unique(base, &set, name, at); err != nil {
				return err
			}
			if err := st.colon(); err != nil {
				return err
			}
			count++
			st.push(keySeg(at))
			if i < 0 {
				err = st.value(st.memberSchema(n, name, &seen), depth+1)
			} else {
				f := &p.fields[i]
				hint = i + 1
				if !f.inProps {
					st.memberSchema(n, name, &seen)
				} else if f.track >= 0 {
					seen.set(f.track)
				}
				// Rule: unsafe.Add inside one struct, by reflect's field offset.
				err = st.decode(f.plan, unsafe.Add(ptr, f.offset), depth+1)
			}
			if err != nil {
				return err
			}
			st.path = st.path[:len(st.path)-1]
			if done, err := st.next('}'); err != nil {
				return err
			} else if done {
				break
			}
		}
		st.keys = st.keys[:base]
	}
	st.objectEnd(n, &seen, count, st.data[start:st.pos], depth)
	return nil
}

// decodeSlice appends the array's items to the slice at ptr in place: the
// slice is read and written through reflect, and the items are decoded
// where they lie in its backing array.
func (st *state) decodeSlice(p *Plan, ptr unsafe.Pointer, depth int) error {
	st.pos++ // '['
	s := reflect.NewAt(p.typ, ptr).Elem()
	count := 0
	st.ws()
	if st.pos < len(st.data) && st.data[st.pos] == ']' {
		st.pos++
		s.Set(p.empty)
	} else {
		size := p.elem.typ.Size()
		// Items of the backing array the slice came with may hold values;
		// those of arrays grown here start zero.
		reused := s.Cap()
		s.SetLen(0)
		for {
			if count == s.Cap() {
				s.Grow(max(4, count))
			}
			s.SetLen(count + 1)
			if count < reused {
				s.Index(count).SetZero()
			}
			// Rule: unsafe.Add to an element of one slice, within its length.
			el := unsafe.Add(s.UnsafePointer(), uintptr(count)*size)
			st.push(seg{start: count})
			if err := st.decode(p.elem, el, depth+1); err != nil {
				return err
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
	if p.check != nil {
		st.checkItemCount(p.check, count)
	}
	return nil
}

func (st *state) decodeMap(p *Plan, ptr unsafe.Pointer, depth int) error {
	start := st.pos
	mv := reflect.NewAt(p.typ, ptr).Elem()
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(p.typ))
	}
	var seen seenSet
	count, err := st.members(func(name, _ []byte) error {
		if p.check != nil {
			st.memberSchema(p.check, name, &seen)
		}
		v := reflect.New(p.typ.Elem())
		if err := st.decode(p.elem, v.UnsafePointer(), depth+1); err != nil {
			return err
		}
		mv.SetMapIndex(reflect.ValueOf(st.newString(name)), v.Elem())
		return nil
	})
	if err == nil && p.check != nil {
		st.objectEnd(p.check, &seen, count, st.data[start:st.pos], depth)
	}
	return err
}
