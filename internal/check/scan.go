package check

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

func (st *state) ws() {
	for st.pos < len(st.data) {
		c := st.data[st.pos]
		if c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' { // most often the first test
			return
		}
		st.pos++
	}
}

// strValue returns the string read from start. Without escapes it shares
// the arguments' memory: it must not outlive the pass.
func (st *state) strValue(start int, escaped bool) string {
	raw := st.data[start+1 : st.pos-1]
	if escaped {
		return unescape(raw)
	}
	if len(raw) == 0 {
		return ""
	}
	// Rule: unsafe.String over arguments no pass writes, used within the pass.
	return unsafe.String(&raw[0], len(raw))
}

// str consumes a string and reports whether it had escapes. Invalid
// UTF-8 and unpaired surrogate escapes are refused, as the tool's own
// decoder refuses them.
func (st *state) str() (escaped bool, err error) {
	d := st.data
	i := st.pos + 1 // after the opening quote
	start, ascii := i, true
	for {
		for i < len(d) && !strSpecial[d[i]] {
			i++
		}
		if i >= len(d) {
			st.pos = i
			return false, st.syntax("unexpected end of input")
		}
		switch c := d[i]; {
		case c == '"':
			st.pos = i
			if !ascii && !utf8.Valid(d[start:i]) {
				return false, st.syntax("invalid UTF-8 in string")
			}
			st.pos++
			return escaped, nil
		case c >= 0x80:
			ascii = false
			i++
		case c == '\\':
			escaped = true
			st.pos = i
			if i+1 >= len(d) {
				return false, st.syntax("unexpected end of input")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(d, i+2)
				if !ok {
					return false, st.syntax("invalid escape at byte %d", i)
				}
				at := i
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(0), false
					if r < 0xdc00 && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' {
						r2, ok = hex4(d, i+2)
					}
					if !ok || utf16.DecodeRune(r, r2) == utf8.RuneError {
						return false, st.syntax("unpaired surrogate escape at byte %d", at)
					}
					i += 6
				}
			default:
				return false, st.syntax("invalid escape at byte %d", i)
			}
		default: // a control character
			st.pos = i
			return false, st.syntax("control character in string at byte %d", i)
		}
	}
}

// strSpecial marks the bytes that end the fast scan of a string: the
// closing quote, an escape, control characters, and non-ASCII bytes, whose
// UTF-8 is checked at the end.
var strSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, h := range d[i : i+4] {
		switch {
		case '0' <= h && h <= '9':
			r = r<<4 | rune(h-'0')
		case 'a' <= h && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case 'A' <= h && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unescape decodes the inside of a string str has accepted.
func unescape(raw []byte) string {
	return string(appendUnescaped(make([]byte, 0, len(raw)), raw))
}

// appendUnescaped appends the inside of a string str has accepted, decoded.
func appendUnescaped(b, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, _ := hex4(raw, i+1)
			i += 4
			if utf16.IsSurrogate(r) {
				r2, _ := hex4(raw, i+3)
				r = utf16.DecodeRune(r, r2)
				i += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, raw[i])
		}
	}
	return b
}

// number consumes a number per the JSON grammar.
func (st *state) number() error {
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
		return st.syntax("invalid number at byte %d", st.pos)
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return st.syntax("invalid number at byte %d", st.pos)
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return st.syntax("invalid number at byte %d", st.pos)
		}
	}
	st.pos = i
	return nil
}

// next consumes ',' (false) or the closing byte (true).
func (st *state) next(closing byte) (bool, error) {
	st.ws()
	if st.pos >= len(st.data) {
		return false, st.syntax("unexpected end of input")
	}
	switch st.data[st.pos] {
	case ',':
		st.pos++
		return false, nil
	case closing:
		st.pos++
		return true, nil
	}
	return false, st.syntax("expected ',' or '%c' at byte %d", closing, st.pos)
}
