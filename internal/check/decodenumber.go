package check

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"unsafe"
)

// intBounds reports whether n, a schema without subschemas, checks an
// integer with at most bounds that are integers of at most 18 digits.
func intBounds(n *node) bool {
	if n == nil {
		return true
	}
	ok := func(b *bound) bool { return b == nil || b.isInt }
	return !n.never && !n.composite && n.enum == nil && n.multipleOf == nil &&
		ok(n.min) && ok(n.max) && ok(n.xmin) && ok(n.xmax)
}

// decodeNumber is decode for a number where the plan wants one, with a
// schema without subschemas: value1's checks of numbers, then the store.
func (st *state) decodeNumber(p *Plan, ptr unsafe.Pointer) error {
	start := st.pos
	if err := st.number(); err != nil {
		return err
	}
	raw := st.data[start:st.pos]
	if p.intBounds {
		if x, ok := smallInt(raw); ok {
			return st.decodeInt(p, ptr, x, raw)
		}
	}
	if n := p.check; n != nil {
		d, ok := st.numberType(n, raw)
		if !ok {
			return nil
		}
		before := len(st.violations)
		st.checkNumber(n, d)
		if len(st.violations) > before {
			return nil
		}
	}
	st.storeNumber(p, ptr, raw)
	return nil
}

// decodeInt is decodeNumber for a literal that is an integer of at most
// 18 digits, x (raw), where the plan has intBounds: the checks of
// checkNumber, in its order, on int64s; then the store.
func (st *state) decodeInt(p *Plan, ptr unsafe.Pointer, x int64, raw []byte) error {
	if n := p.check; n != nil {
		if !st.typeOK(n, tInteger, '0') {
			return nil
		}
		before := len(st.violations)
		if n.min != nil && x < n.min.i {
			st.fail("minimum", "must be >= "+n.min.text)
		}
		if n.max != nil && x > n.max.i {
			st.fail("maximum", "must be <= "+n.max.text)
		}
		if n.xmin != nil && x <= n.xmin.i {
			st.fail("exclusiveMinimum", "must be > "+n.xmin.text)
		}
		if n.xmax != nil && x >= n.xmax.i {
			st.fail("exclusiveMaximum", "must be < "+n.xmax.text)
		}
		if len(st.violations) > before {
			return nil
		}
	}
	bits := p.typ.Bits()
	if p.kind == dInt && (bits == 64 || -1<<(bits-1) <= x && x < 1<<(bits-1)) {
		storeInt(ptr, bits, x)
		return nil
	}
	if p.kind == dUint && raw[0] != '-' && (bits == 64 || x < 1<<bits) {
		storeUint(ptr, bits, uint64(x))
		return nil
	}
	st.storeNumber(p, ptr, raw) // out of the type's range: its message
	return nil
}

func (st *state) storeNumber(p *Plan, ptr unsafe.Pointer, raw []byte) {
	k := p.typ.Kind()
	if p.kind == dFloat {
		// A float32 is parsed as one: rounding to float64 first would
		// round twice, and differ from encoding/json by one unit in the
		// last place on literals near a float32 midpoint.
		f, err := strconv.ParseFloat(string(raw), p.typ.Bits())
		if err != nil {
			st.failf("type", "number %s is out of range for %s", raw, p.typ)
			return
		}
		// Rule: (*T)(p) to the float type reflect says is there.
		if k == reflect.Float32 {
			*(*float32)(ptr) = float32(f)
		} else {
			*(*float64)(ptr) = f
		}
		return
	}
	bits := p.typ.Bits()
	if p.kind == dInt {
		i, ok := smallInt(raw)
		var err error
		if !ok || bits < 64 && (i < -1<<(bits-1) || i >= 1<<(bits-1)) {
			i, err = strconv.ParseInt(string(raw), 10, bits)
		}
		if err != nil && !fractionOrExponent(raw) {
			// As the codec: an integer literal the type cannot hold.
			st.failf("maximum", "must be between %d and %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
			return
		}
		if err != nil {
			lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
			v, ok := st.integral(raw, strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10))
			if !ok {
				return
			}
			i = v
		}
		storeInt(ptr, bits, i)
		return
	}
	var u uint64
	var err error
	if i, ok := smallInt(raw); ok && raw[0] != '-' && (bits == 64 || i < 1<<bits) {
		u = uint64(i)
	} else {
		u, err = strconv.ParseUint(string(raw), 10, bits)
	}
	if err != nil && !fractionOrExponent(raw) {
		// As the codec: an integer literal the type cannot hold, -0 too.
		st.failf("maximum", "must be between 0 and %d", uint64(math.MaxUint64)>>(64-bits))
		return
	}
	if err != nil {
		v, ok := st.integral(raw, "0", strconv.FormatUint(uint64(math.MaxUint64)>>(64-bits), 10))
		if !ok {
			return
		}
		u = uint64(v)
	}
	storeUint(ptr, bits, u)
}

// storeInt stores i in the integer at ptr, of a signed kind of the given
// bits.
func storeInt(ptr unsafe.Pointer, bits int, i int64) {
	// Rule: (*T)(p) to the signed integer of the size reflect says is there.
	switch bits {
	case 8:
		*(*int8)(ptr) = int8(i)
	case 16:
		*(*int16)(ptr) = int16(i)
	case 32:
		*(*int32)(ptr) = int32(i)
	default:
		*(*int64)(ptr) = i
	}
}

// storeUint stores u in the integer at ptr, of an unsigned kind of the
// given bits.
func storeUint(ptr unsafe.Pointer, bits int, u uint64) {
	// Rule: (*T)(p) to the unsigned integer of the size reflect says is there.
	switch bits {
	case 8:
		*(*uint8)(ptr) = uint8(u)
	case 16:
		*(*uint16)(ptr) = uint16(u)
	case 32:
		*(*uint32)(ptr) = uint32(u)
	default:
		*(*uint64)(ptr) = u
	}
}

// fractionOrExponent reports whether a number literal has a fraction or
// an exponent.
func fractionOrExponent(raw []byte) bool { return bytes.ContainsAny(raw, ".eE") }

// integral reads a number literal with a fraction or an exponent, such as
// 2.0 or 1e3, for the Go integer type whose range is [lo, hi]. It accepts
// an integer of magnitude below 2^53 in the range, the integers the codec
// accepts written so (see integralNumbers), exactly; otherwise it records
// why not.
func (st *state) integral(raw []byte, lo, hi string) (int64, bool) {
	d := parseDecimal(raw)
	switch {
	case !d.isInt():
		st.failf("type", "expected integer, got %s", raw)
	case cmpDecimal(d, parseDecimal([]byte(lo))) < 0 || cmpDecimal(d, parseDecimal([]byte(hi))) > 0:
		st.failf("maximum", "must be between %s and %s", lo, hi)
	default:
		if v, ok := d.int64(); ok && -1<<53 < v && v < 1<<53 {
			return v, true
		}
		st.failf("type", "expected integer, got %s: write it without a fraction or exponent", raw)
	}
	return 0, false
}

// smallInt parses a JSON integer literal of at most 18 digits, the most
// that cannot overflow an int64; other literals report false.
func smallInt(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
