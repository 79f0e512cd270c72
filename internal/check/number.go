package check

import (
	"math/big"
	"strconv"
	"strings"
)

// A decimal is a JSON number literal in normal form: value = ±0.D × 10^exp,
// where D (the digits of a followed by those of b) has no leading or
// trailing zeros. Zero has no digits. The two segments let an instance
// number point into the arguments on both sides of its '.' without
// copying, so comparisons allocate nothing.
type decimal struct {
	neg  bool
	a, b []byte
	exp  int64
}

// maxExp saturates huge exponents; no bound a schema can write comes near.
const maxExp = 1 << 40

// parseDecimal normalises a literal already known to follow the JSON
// number grammar.
func parseDecimal(raw []byte) decimal {
	var d decimal
	i := 0
	if i < len(raw) && raw[i] == '-' {
		d.neg = true
		i++
	}
	s := i
	for i < len(raw) && '0' <= raw[i] && raw[i] <= '9' {
		i++
	}
	ip := raw[s:i]
	var fp []byte
	if i < len(raw) && raw[i] == '.' {
		i++
		s = i
		for i < len(raw) && '0' <= raw[i] && raw[i] <= '9' {
			i++
		}
		fp = raw[s:i]
	}
	var e int64
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		eneg := false
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			eneg = raw[i] == '-'
			i++
		}
		for ; i < len(raw); i++ {
			if e < maxExp {
				e = e*10 + int64(raw[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	point := int64(len(ip)) + e
	for len(ip) > 0 && ip[0] == '0' {
		ip = ip[1:]
		point--
	}
	if len(ip) == 0 {
		for len(fp) > 0 && fp[0] == '0' {
			fp = fp[1:]
			point--
		}
	}
	for len(fp) > 0 && fp[len(fp)-1] == '0' {
		fp = fp[:len(fp)-1]
	}
	if len(fp) == 0 {
		for len(ip) > 0 && ip[len(ip)-1] == '0' {
			ip = ip[:len(ip)-1]
		}
	}
	if len(ip) == 0 && len(fp) == 0 {
		return decimal{}
	}
	d.a, d.b, d.exp = ip, fp, point
	return d
}

func (d decimal) n() int      { return len(d.a) + len(d.b) }
func (d decimal) zero() bool  { return d.n() == 0 }
func (d decimal) isInt() bool { return d.zero() || d.exp >= int64(d.n()) }

func (d decimal) digit(i int) byte {
	if i < len(d.a) {
		return d.a[i]
	}
	return d.b[i-len(d.a)]
}

// cmpDecimal returns -1, 0 or +1 as x is less than, equal to or greater
// than y, exactly.
func cmpDecimal(x, y decimal) int {
	switch {
	case x.zero() && y.zero():
		return 0
	case x.zero():
		if y.neg {
			return 1
		}
		return -1
	case y.zero():
		if x.neg {
			return -1
		}
		return 1
	case x.neg != y.neg:
		if x.neg {
			return -1
		}
		return 1
	}
	c := cmpAbs(x, y)
	if x.neg {
		return -c
	}
	return c
}

func cmpAbs(x, y decimal) int {
	if x.exp != y.exp {
		if x.exp < y.exp {
			return -1
		}
		return 1
	}
	nx, ny := x.n(), y.n()
	for i := 0; i < nx && i < ny; i++ {
		if a, b := x.digit(i), y.digit(i); a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	switch {
	case nx < ny:
		return -1
	case nx > ny:
		return 1
	}
	return 0
}

func (d decimal) digits() string {
	return string(d.a) + string(d.b)
}

// canon writes d so that equal numbers have equal text.
func (d decimal) canon() string {
	if d.zero() {
		return "0"
	}
	s := "0." + d.digits() + "e" + strconv.FormatInt(d.exp, 10)
	if d.neg {
		s = "-" + s
	}
	return s
}

// multipleOf reports whether x is an integral multiple of m (m > 0),
// exactly. Huge exponents stay cheap: 10^k is only ever taken modulo m.
func multipleOf(x, m decimal) bool {
	if x.zero() {
		return true
	}
	dx, _ := new(big.Int).SetString(x.digits(), 10)
	dm, _ := new(big.Int).SetString(m.digits(), 10)
	// x = dx × 10^(x.exp-nx), m = dm × 10^(m.exp-nm)
	k := (x.exp - int64(x.n())) - (m.exp - int64(m.n()))
	if k >= 0 {
		t := new(big.Int).Exp(big.NewInt(10), big.NewInt(k), dm)
		t.Mul(t, dx)
		return t.Mod(t, dm).Sign() == 0
	}
	if -k > int64(x.n())+1 {
		return false // 0 < dx < 10^-k <= divisor
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(-k), nil)
	div.Mul(div, dm)
	return new(big.Int).Mod(dx, div).Sign() == 0
}

// A bound is a schema number with the text shown to the model.
type bound struct {
	d    decimal
	text string
	i    int64 // d, when isInt
	// isInt reports an integer of at most 18 digits: an instance that is
	// too compares to it as an int64.
	isInt bool
}

// int64 returns d when it is an integer of at most 18 digits.
func (d decimal) int64() (int64, bool) {
	if d.zero() {
		return 0, true
	}
	if !d.isInt() || d.exp > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < d.n(); i++ {
		v = v*10 + int64(d.digit(i)-'0')
	}
	for k := int64(d.n()); k < d.exp; k++ {
		v *= 10
	}
	if d.neg {
		v = -v
	}
	return v, true
}

func newBound(lit string) *bound {
	b := []byte(lit)
	d := parseDecimal(b)
	text := lit
	// Show a fraction or exponent as Go's %v of a float64 did, when exact.
	if f, err := strconv.ParseFloat(lit, 64); err == nil && strings.ContainsAny(lit, ".eE") {
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if cmpDecimal(parseDecimal([]byte(s)), d) == 0 {
			text = s
		}
	}
	bd := &bound{d: d, text: text}
	bd.i, bd.isInt = d.int64()
	return bd
}
