package encode

import (
	"math"
	"reflect"
	"sync"
	"testing"
)

type fuzzRow struct {
	S     string     `json:"s"`
	F     float64    `json:"f"`
	F32   float32    `json:"f32"`
	I     int64      `json:"i"`
	I8    int8       `json:"i8"`
	U16   uint16     `json:"u16"`
	B     bool       `json:"b"`
	P     *string    `json:"p"`
	Q     int        `json:"q,string"`
	QS    string     `json:"qs,string"`
	QF    *float64   `json:"qf,string"`
	Bytes []byte     `json:"bytes"`
	Arr   [2]float64 `json:"arr"`
	O     string     `json:"o,omitempty"`
	OF    float64    `json:"of,omitempty"`
	Any   any        `json:"any"`
	Inner fuzzInner
	Next  *fuzzRow `json:"next,omitempty"`
}

type fuzzInner struct {
	X []int8
	Y map[string]float32 `json:",omitempty"`
}

// FuzzString compares String with encoding/json on values built from the
// input, through both the reflect encoders (top-level scalars, maps,
// interfaces) and the addressed, unsafe ones (structs in slices and behind
// pointers).
func FuzzString(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string, bits uint64, i int64, k uint8, b bool) {
		for _, v := range fuzzValues(s, bits, i, k, b) {
			fuzzCompare(t, v, String)
		}
	})
}

// FuzzEncoder is FuzzString for Encoder, which reads every value in place
// through an unsafe pointer: top-level scalars, strings, slices and
// pointers too, which String reaches through reflect.
func FuzzEncoder(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string, bits uint64, i int64, k uint8, b bool) {
		for _, v := range fuzzValues(s, bits, i, k, b) {
			fuzzCompare(t, v, typed)
			fuzzCompare(t, v, typedScratch)
		}
	})
}

// typed encodes v with the Encoder of its type, from a copy of it.
func typed(v any) (string, error) {
	if v == nil {
		return String(v)
	}
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return For(p.Type().Elem()).String(p.UnsafePointer())
}

// typedScratch is typed with a Scratch that earlier encodes used, as a
// caller that keeps one does.
func typedScratch(v any) (string, error) {
	if v == nil {
		return String(v)
	}
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	sc := scratches.Get().(*Scratch)
	defer scratches.Put(sc)
	return For(p.Type().Elem()).StringWith(sc, p.UnsafePointer())
}

var scratches = sync.Pool{New: func() any { return new(Scratch) }}

func fuzzSeeds(f *testing.F) {
	f.Add("hello", uint64(math.Float64bits(21.5)), int64(1025), uint8(2), true)
	f.Add("a\"\\\n\x00\u2028\xff<>&", uint64(math.Float64bits(1e21)), int64(-7), uint8(7), false)
	f.Add("", uint64(math.Float64bits(math.NaN())), int64(math.MinInt64), uint8(255), true)
	f.Add("日本", uint64(math.Float64bits(1e-7)), int64(123456789), uint8(9), false)
	f.Add("x", uint64(0x8000000000000000), int64(3), uint8(1), true)
}

func fuzzCompare(t *testing.T, v any, encode func(any) (string, error)) {
	t.Helper()
	want, wantErr := ref(v)
	got, gotErr := encode(v)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%#v: error %v, want %v", v, gotErr, wantErr)
	}
	if wantErr != nil {
		if wantErr.Error() != gotErr.Error() {
			t.Fatalf("%#v: error %q, want %q", v, gotErr, wantErr)
		}
		return
	}
	if got != want {
		t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
	}
}

func fuzzValues(s string, bits uint64, i int64, k uint8, b bool) []any {
	fl := math.Float64frombits(bits)
	// Decimals with few digits take the short decimal path.
	dec := float64(i%(1<<53)) / math.Pow10(int(k%12))
	f32 := math.Float32frombits(uint32(bits))
	row := fuzzRow{
		S: s, F: fl, F32: f32, I: i, I8: int8(i), U16: uint16(i), B: b, P: &s,
		Q: int(i), QS: s, QF: &dec, Bytes: []byte(s), Arr: [2]float64{dec, -dec}, O: s, OF: dec,
		Any:   []any{s, dec, i, b, nil, map[string]any{s: fl}},
		Inner: fuzzInner{X: []int8{int8(k)}, Y: map[string]float32{s: f32, "k": float32(dec)}},
	}
	if b {
		row.Next = &fuzzRow{S: s, F: dec, Any: row.Inner}
	}
	n := int(k % 4)
	rows := make([]fuzzRow, n)
	for j := range rows {
		rows[j] = row
		rows[j].I += int64(j)
	}
	var nilRow *fuzzRow
	return []any{
		s, fl, dec, -dec, f32, float32(dec), i, int8(i), uint16(i), uint64(bits), b, []byte(s),
		&s, &dec, nilRow, [2]string{s, s}, []string{s}, []float32{f32},
		[]any{s, fl, dec, i, b},
		map[string]any{s: dec, "x": []any{s, i}, "y": map[string]float64{s: fl}},
		[][]float64{{dec, fl}, nil, {}},
		row, &row, rows, &rows, map[string]fuzzRow{s: row, "z": {}},
		[3]fuzzRow{row}, []*fuzzRow{&row, nil}, row.Inner, &row.Inner,
	}
}
