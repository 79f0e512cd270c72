package check

import (
	"encoding/json"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// A jvalue is an enum or const value, kept so an instance compares to it
// structurally: numbers by value, objects regardless of member order.
type jvalue struct {
	kind  byte // 'n', 't', 'f', '"', '0', '{' or '['
	str   string
	num   decimal
	canon string // objects and arrays
}

func newJValue(v any) jvalue {
	switch v := v.(type) {
	case nil:
		return jvalue{kind: 'n'}
	case bool:
		if v {
			return jvalue{kind: 't'}
		}
		return jvalue{kind: 'f'}
	case string:
		return jvalue{kind: '"', str: v}
	case json.Number:
		return jvalue{kind: '0', num: parseDecimal([]byte(v))}
	case []any:
		return jvalue{kind: '[', canon: canonical(v)}
	}
	return jvalue{kind: '{', canon: canonical(v)}
}

// canonical writes a JSON tree so that equal values have equal text.
func canonical(v any) string {
	var b strings.Builder
	writeCanon(&b, v)
	return b.String()
}

func writeCanon(b *strings.Builder, v any) {
	switch v := v.(type) {
	case *jsonnode.Object:
		ms := slices.Clone(v.Members)
		// Stable: members of one name keep their order, so that two
		// texts with the same repeated names in another order differ.
		slices.SortStableFunc(ms, func(x, y jsonnode.Member) int { return strings.Compare(x.Key, y.Key) })
		b.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(m.Key))
			b.WriteByte(':')
			writeCanon(b, m.Value)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanon(b, x)
		}
		b.WriteByte(']')
	case string:
		b.WriteString(strconv.Quote(v))
	case json.Number:
		b.WriteString(parseDecimal([]byte(v)).canon())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
}

// SameJSON reports whether a and b are the same JSON value: numbers
// compared exactly, object keys in any order. Text that is not exactly
// one JSON value equals nothing, not even itself.
func SameJSON(a, b []byte) bool {
	ta, errA := jsonnode.Parse(a)
	tb, errB := jsonnode.Parse(b)
	return errA == nil && errB == nil && canonical(ta) == canonical(tb)
}

// Canonical returns the exact canonical form of the JSON text raw: object
// members sorted by name (stably), numbers exactly, as decimals. Two texts
// have the same form exactly when SameJSON holds for them.
func Canonical(raw []byte) ([]byte, error) {
	tree, err := jsonnode.Parse(raw)
	if err != nil {
		return nil, err
	}
	return []byte(canonical(tree)), nil
}

// canonRaw is canonical for JSON text already checked.
func canonRaw(raw []byte) string {
	tree, err := jsonnode.Parse(raw)
	if err != nil {
		return string(raw)
	}
	return canonical(tree)
}

func checkFormat(f int, s string) string {
	switch f {
	case fmtDateTime:
		i := strings.IndexAny(s, "Tt")
		if i < 0 || !validDate(s[:i]) || !validTime(s[i+1:]) {
			return "must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z"
		}
	case fmtDate:
		if !validDate(s) {
			return "must be an RFC 3339 date such as 2006-01-02"
		}
	case fmtTime:
		if !validTime(s) {
			return "must be an RFC 3339 time such as 15:04:05Z or 15:04:05+02:00"
		}
	case fmtUUID:
		if !validUUID(s) {
			return "must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"
		}
	case fmtIPv4:
		if a, err := netip.ParseAddr(s); err != nil || !a.Is4() {
			return "must be an IPv4 address such as 192.0.2.1"
		}
	case fmtIPv6:
		if a, err := netip.ParseAddr(s); err != nil || !a.Is6() || a.Zone() != "" {
			return "must be an IPv6 address such as 2001:db8::1"
		}
	}
	return ""
}

// digits2 reads the two-digit number at s[i:].
func digits2(s string, i int) (int, bool) {
	if i+2 > len(s) || s[i] < '0' || s[i] > '9' || s[i+1] < '0' || s[i+1] > '9' {
		return 0, false
	}
	return int(s[i]-'0')*10 + int(s[i+1]-'0'), true
}

// validDate accepts RFC 3339 full-date: 2006-01-02, a real day.
func validDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y1, ok1 := digits2(s, 0)
	y2, ok2 := digits2(s, 2)
	m, ok3 := digits2(s, 5)
	d, ok4 := digits2(s, 8)
	if !ok1 || !ok2 || !ok3 || !ok4 || m < 1 || m > 12 || d < 1 {
		return false
	}
	y := y1*100 + y2
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// validTime accepts RFC 3339 full-time: 15:04:05, an optional fraction,
// and an offset (Z or ±hh:mm). A leap second must fall at 23:59 UTC.
func validTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits2(s, 0)
	m, ok2 := digits2(s, 3)
	sec, ok3 := digits2(s, 6)
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	i := 8
	if s[i] == '.' {
		i++
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	off := 0
	switch {
	case i == len(s)-1 && (s[i] == 'Z' || s[i] == 'z'):
	case i+6 == len(s) && (s[i] == '+' || s[i] == '-') && s[i+3] == ':':
		oh, ok1 := digits2(s, i+1)
		om, ok2 := digits2(s, i+4)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		off = oh*60 + om
		if s[i] == '-' {
			off = -off
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-off)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
