package encode

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ref is the root package's encodeResult without its error wrapping: the
// behaviour String must reproduce byte for byte.
func ref(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

func catch(f func(any) (string, error), v any) (s string, p any, err error) {
	defer func() { p = recover() }()
	s, err = f(v)
	return s, nil, err
}

// compiled runs the compiled encoders alone, without the fallback.
func compiled(v any) (string, error) {
	s := new(state)
	if err := s.encode(v); err != nil {
		return "", err
	}
	return string(s.buf), nil
}

// assertSame checks String(v) against the reference, output and error.
func assertSame(t *testing.T, v any, fallsBack bool) {
	t.Helper()
	assertTyped(t, v)
	want, wantPanic, wantErr := catch(ref, v)
	got, gotPanic, gotErr := catch(String, v)
	// A panicking MarshalJSON panics through both.
	require.Equal(t, fmt.Sprint(wantPanic), fmt.Sprint(gotPanic))
	if wantPanic != nil {
		return
	}
	// The compiled encoders must get there by themselves, or give up
	// exactly when encoding/json fails; only listed values fall back.
	// (With a pre-release encoding/json/v2, String does not use them.)
	c, cErr := compiled(v)
	switch {
	case preReleaseV2:
	case wantErr != nil || fallsBack:
		assert.ErrorIs(t, cErr, errFallback)
	default:
		require.NoError(t, cErr)
		assert.Equal(t, want, c)
	}
	if wantErr != nil {
		require.Error(t, gotErr, "want error %v, got %s", wantErr, got)
		assert.Equal(t, wantErr.Error(), gotErr.Error())
		assert.IsType(t, wantErr, gotErr)
		return
	}
	require.NoError(t, gotErr)
	assert.Equal(t, want, got)
}

// assertTyped checks the Encoder of v's type, from a copy of v, against
// the reference, output and error.
func assertTyped(t *testing.T, v any) {
	t.Helper()
	want, wantPanic, wantErr := catch(ref, v)
	got, gotPanic, gotErr := catch(typed, v)
	require.Equal(t, fmt.Sprint(wantPanic), fmt.Sprint(gotPanic))
	if wantErr != nil {
		require.Error(t, gotErr, "want error %v, got %s", wantErr, got)
		assert.Equal(t, wantErr.Error(), gotErr.Error())
		assert.IsType(t, wantErr, gotErr)
		return
	}
	require.NoError(t, gotErr)
	assert.Equal(t, want, got)
}

type inner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type tagged struct {
	Name string `json:"name"`
	Skip string `json:"-"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	Dash     string      `json:"-,"`
	Lower    int         `json:"lower,omitempty"`
	Untagged bool        //
	private  int         //nolint:unused // must not be encoded
	Quoted   int         `json:"quoted,string"`
	QFloat   float64     `json:",string"`
	QBool    bool        `json:",string"`
	QStr     string      `json:",string"`
	QPtr     *int        `json:",string"`
	QUint    uint8       `json:",string,omitempty"`
	QNum     json.Number `json:",string"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	QSlice []int `json:",string"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	Bad      string                     `json:"a\"b"`
	Punct    string                     `json:"x-y.z@1"`
	Inner    inner                      `json:"inner"`
	PInner   *inner                     `json:"pinner"`
	Map      map[string]int             `json:"map,omitempty"`
	Slice    []string                   `json:"slice,omitempty"`
	Arr      [2]int                     `json:"arr,omitempty"`
	Iface    any                        `json:"iface,omitempty"`
	OZTime   time.Time                  `json:"oztime,omitzero"`
	OZStruct inner                      `json:"ozstruct,omitzero"`
	OZPtr    *inner                     `json:"ozptr,omitzero"`
	OZZeroer zeroer                     `json:"ozzeroer,omitzero"`
	OZPZero  pzeroer                    `json:"ozpzero,omitzero"`
	OZIface  interface{ IsZero() bool } `json:"oziface,omitzero"`
	Both     []int                      `json:"both,omitempty,omitzero"`
	Bytes    []byte                     `json:"bytes"`
	Nested   map[string][]any           `json:"nested"`
	Unicode  string                     `json:"ünï"`
}

type zeroer int

func (z zeroer) IsZero() bool { return z == 42 }

type pzeroer struct{ N int }

func (z *pzeroer) IsZero() bool { return z.N == 7 }

type Embedded struct {
	E1 int `json:"e1"`
	E2 string
	X  int // conflicts with outer X: hidden
}

type embeddedPtr struct {
	P1 int
	P2 string `json:"p2,omitempty"`
}

type Conflict1 struct{ Same int }
type Conflict2 struct{ Same int }
type TaggedConflict struct {
	Same int `json:"Same"`
}

type withEmbedded struct {
	Embedded
	*embeddedPtr
	X int
}

type withConflict struct {
	Conflict1
	Conflict2
	Other int
}

type withTaggedConflict struct {
	Conflict1
	TaggedConflict
}

type embeddedNamed struct {
	Embedded `json:"emb"`
}

type MyInt int

type embeddedNonStruct struct {
	MyInt
	myString
}

type myString string

type node struct {
	Val  int              `json:"val"`
	Next *node            `json:"next,omitempty"`
	Kids []node           `json:"kids,omitempty"`
	Meta map[string]*node `json:"meta,omitempty"`
}

// valMarshaler marshals through a value receiver.
type valMarshaler struct{ N int }

func (m valMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(" { \"n\" : %d , \"s\": \"<a> & \u2028\" } ", m.N)), nil
}

// ptrMarshaler marshals only when addressable.
type ptrMarshaler struct{ N int }

func (m *ptrMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`"ptr %d"`, m.N)), nil
}

type ptrText struct{ S string }

func (m *ptrText) MarshalText() ([]byte, error) { return []byte("text:" + m.S), nil }

type valText struct{ S string }

func (m valText) MarshalText() ([]byte, error) { return []byte("\"" + m.S + "\"\n"), nil }

type errMarshaler struct{}

func (errMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

type badJSONMarshaler struct{}

func (badJSONMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{"a":}`), nil }

type errText struct{}

func (errText) MarshalText() ([]byte, error) { return nil, errors.New("no text") }

type textKey struct{ A, B int }

func (k textKey) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%d-%d", k.A, k.B), nil }

type marshalInt int

func (m marshalInt) MarshalJSON() ([]byte, error) { return []byte(`"mi"`), nil }

type withMarshalers struct {
	V   valMarshaler    `json:"v"`
	P   ptrMarshaler    `json:"p"`
	PP  *ptrMarshaler   `json:"pp"`
	T   ptrText         `json:"t"`
	VT  valText         `json:"vt"`
	Arr [2]ptrMarshaler `json:"arr"`
	Raw json.RawMessage `json:"raw"`
	Tm  time.Time       `json:"tm"`
	MI  marshalInt      `json:"mi,string"`
	IM  json.Marshaler  `json:"im"`
}

type byteLike uint8

type cyclic struct {
	Self *cyclic
	Any  any
}

// v2Tags are tags that encoding/json/v2's parser reads differently.
type v2Tags struct {
	A int `json:"a→b"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	B int `json:"c'd"`
	C int `json:"'q'"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	D int `json:"e\\f"`
	E int `json:"ctl\x01x"`
	F int `json:"ls\u2028x"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	G int `json:"bad\xffutf"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	H int   `json:"h,omitempty;,string"`
	I inner `json:"i,embed"`
	J inner `json:",embed"`
	K int   `json:"🎉"`
	L int   `json:"<&>"`
	//lint:ignore SA5008 encoding/json's handling of this odd tag is under test
	M int        `json:"m,omitEmpty,case:ignore,x"`
	N int        `json:"'n',string"`
	O hiddenText `json:"o"`
}

type hiddenText struct{ S string }

func (h hiddenText) MarshalText() ([]byte, error) { return []byte("hidden " + h.S), nil }

type hiddenText2 struct{ S string }

func (h hiddenText2) MarshalText() ([]byte, error) { return []byte("hidden2 " + h.S), nil }

// hiddenNamed embeds unexported types with methods under a name; the two
// MarshalText methods cancel out, so the struct itself has none.
type hiddenNamed struct {
	hiddenText  `json:"hidden"`
	hiddenText2 `json:"hidden2"`
	Z           int
}

// v2Format fails to encode under encoding/json/v2's rules.
type v2Format struct {
	T time.Time `json:"t,format:RFC3339"`
}

// v2EmbedMap inlines a map under encoding/json/v2's rules.
type v2EmbedMap struct {
	M map[string]int `json:",embed"`
}

// appender has both text methods: encoding/json/v2 prefers AppendText.
type appender struct{ S string }

func (a appender) MarshalText() ([]byte, error) { return []byte("text " + a.S), nil }
func (a appender) AppendText(b []byte) ([]byte, error) {
	return append(b, "append "+a.S+"\xff"...), nil
}

// ptrAppender appends only when addressable.
type ptrAppender struct{ N int }

func (a *ptrAppender) AppendText(b []byte) ([]byte, error) {
	return fmt.Appendf(b, "ptr app %d", a.N), nil
}

type textBoth interface {
	MarshalText() ([]byte, error)
	AppendText([]byte) ([]byte, error)
}

// lineSep writes U+2028 raw and escaped, with invalid UTF-8 and escapes.
type lineSep struct{}

func (lineSep) MarshalJSON() ([]byte, error) {
	return []byte(`["a\u2028b` + "\u2028\u2029" + `\ud800 x` + "\xff" + `<\/", 1.50, -0]`), nil
}

// rawNested returns JSON nested n deep.
type rawNested int

func (n rawNested) MarshalJSON() ([]byte, error) {
	return []byte(strings.Repeat("[", int(n)) + strings.Repeat("]", int(n))), nil
}

// ifaceNest nests through interfaces alone, no pointer, map or slice.
type ifaceNest struct{ X any }

func TestString(t *testing.T) {
	seven := 7
	var nilPtr *inner
	var nilMap map[string]int
	var nilSlice []int
	tm := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", 3600))
	list := &node{Val: 1, Next: &node{Val: 2, Kids: []node{{Val: 3}}, Meta: map[string]*node{"b": {Val: 5}, "a": nil}}}
	cyc := &cyclic{}
	cyc.Self = cyc
	cycMap := map[string]any{}
	cycMap["me"] = cycMap
	cycSlice := []any{nil}
	cycSlice[0] = cycSlice
	deep := &node{}
	for d, n := 0, deep; d < 1500; d++ {
		n.Next = &node{Val: d}
		n = n.Next
	}
	var ifaceDeep any = 1
	for range 10001 {
		ifaceDeep = ifaceNest{ifaceDeep}
	}
	fl := 1.5
	// The rows encoded by encoding/json in the end, on purpose: all under
	// the nesting limits, and those jsonv2.go lists under encoding/json/v2.
	fallsBack := map[string]bool{"deep": true, "interface nesting": true}
	if jsonv2Rules {
		for _, name := range []string{"v2 embed map", "map float keys", "map pointer keys", "map any keys", "marshaler output too deep for its place"} {
			fallsBack[name] = true
		}
	}

	cases := []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"true", true},
		{"false", false},
		{"int", 42},
		{"int8 min", int8(math.MinInt8)},
		{"int64 min", int64(math.MinInt64)},
		{"int64 max", int64(math.MaxInt64)},
		{"uint64 max", uint64(math.MaxUint64)},
		{"uintptr", uintptr(9)},
		{"named int", MyInt(-3)},
		{"float 0", 0.0},
		{"float -0", math.Copysign(0, -1)},
		{"float32 -0", float32(math.Copysign(0, -1))},
		{"float 1e20", 1e20},
		{"float 1e21", 1e21},
		{"float -1e21", -1e21},
		{"float 1e-6", 1e-6},
		{"float 1e-7", 1e-7},
		{"float 1.5e-300", 1.5e-300},
		{"float 123456.789", 123456.789},
		{"float 2^53", float64(1 << 53)},
		{"float 2^53-1", float64(1<<53 - 1)},
		{"float 2^60", float64(1 << 60)},
		{"float max", math.MaxFloat64},
		{"float smallest", math.SmallestNonzeroFloat64},
		{"float 0.1+0.2", 0.1 + 0.2},
		{"float -21.5", -21.5},
		{"float32 3.14", float32(3.14)},
		{"float32 1e21", float32(1e21)},
		{"float32 1e-7", float32(1e-7)},
		{"float32 16777217", float32(16777217)},
		{"float32 max", float32(math.MaxFloat32)},
		{"float32 integral", float32(1 << 23)},
		{"NaN", math.NaN()},
		{"+Inf", math.Inf(1)},
		{"-Inf float32", float32(math.Inf(-1))},
		{"NaN in struct", struct{ F float64 }{math.NaN()}},
		{"string empty", ""},
		{"string plain", "hello, world"},
		{"string escapes", "q\" b\\ n\n r\r t\t b\b f\f nul\x00 esc\x1b del\x7f"},
		{"string html", "<script>&amp;</script>"},
		{"string unicode", "héllo wörld 日本語 🎉"},
		{"string line sep", "a\u2028b\u2029c"},
		{"string invalid utf8", "a\xffb\xc3(c\xed\xa0\x80d\xf0\x9f\x98"},
		{"string named", myString("x\ty")},
		{"bytes", []byte("hello\x00\xff")},
		{"bytes empty", []byte{}},
		{"bytes nil", []byte(nil)},
		{"bytes named elem", []byteLike{1, 2, 3}},
		{"byte array", [3]byte{1, 2, 3}},
		{"nil ptr", nilPtr},
		{"ptr to int", &seven},
		{"ptr to ptr", func() **int { p := &seven; return &p }()},
		{"nil map", nilMap},
		{"nil slice", nilSlice},
		{"empty slice", []int{}},
		{"empty map", map[string]int{}},
		{"array", [3]string{"a", "b", "c"}},
		{"empty array", [0]int{}},
		{"map sorted", map[string]int{"b": 2, "a": 1, "c": 3, "": 0, "aa": 4, "é": 5, "Z": 6}},
		{"map escaped keys", map[string]string{"a\"b": "1", "\n": "2", "<": "3"}},
		{"map named key", map[myString]int{"y": 1, "x": 2}},
		{"map int keys", map[int]string{10: "ten", -1: "minus", 2: "two"}},
		{"map uint8 keys", map[uint8]bool{255: true, 0: false}},
		{"map text keys", map[textKey]int{{1, 2}: 3, {0, 9}: 4}},
		{"map bool keys", map[bool]int{true: 1}},
		{"map nil bool keys", map[bool]int(nil)},
		{"map any", map[string]any{"s": "x", "n": 1.5, "b": true, "nil": nil, "l": []any{1, "2", nil}, "m": map[string]any{"k": []int{}}}},
		{"map of structs", map[string]inner{"x": {A: 1}, "y": {A: 2, B: "b"}}},
		{"map of ptr marshalers", map[string]ptrMarshaler{"x": {N: 1}}},
		{"map of ptrs to ptr marshalers", map[string]*ptrMarshaler{"x": {N: 1}, "y": nil}},
		{"map of arrays of ptr marshalers", map[string][1]ptrMarshaler{"x": {{N: 1}}}},
		{"map of time", map[string]time.Time{"t": tm}},
		{"slice of any", []any{nil, 1, "two", 3.5, true, []byte("x"), map[string]int{"a": 1}, &seven, inner{A: 1}}},
		{"nested slices", [][]int{{1, 2}, nil, {}}},
		{"slice of ptr marshalers", []ptrMarshaler{{N: 1}, {N: 2}}},
		{"array of ptr marshalers", [2]ptrMarshaler{{N: 1}, {N: 2}}},
		{"ptr marshaler top-level", ptrMarshaler{N: 1}},
		{"ptr to ptr marshaler", &ptrMarshaler{N: 1}},
		{"nil ptr marshaler", (*ptrMarshaler)(nil)},
		{"val marshaler", valMarshaler{N: 3}},
		{"ptr to val marshaler", &valMarshaler{N: 3}},
		{"nil ptr to val marshaler", (*valMarshaler)(nil)},
		{"ptr text", ptrText{S: "a"}},
		{"ptr to ptr text", &ptrText{S: "a"}},
		{"val text", valText{S: "q"}},
		{"with marshalers", withMarshalers{P: ptrMarshaler{N: 4}, PP: &ptrMarshaler{N: 5}, Tm: tm, Raw: json.RawMessage(" [1, 2 ,\n3] ")}},
		{"ptr with marshalers", &withMarshalers{P: ptrMarshaler{N: 4}, Arr: [2]ptrMarshaler{{N: 7}}, IM: valMarshaler{N: 1}, Raw: json.RawMessage(`{"a" : "b"}`)}},
		{"marshaler iface nil ptr", withMarshalers{IM: (*valMarshaler)(nil)}},
		{"raw message nil", json.RawMessage(nil)},
		{"raw message", json.RawMessage(` { "a" : [ 1 , "x y" ] } `)},
		{"raw message invalid", json.RawMessage(`{"a":`)},
		{"bad json marshaler", badJSONMarshaler{}},
		{"error marshaler", errMarshaler{}},
		{"error marshaler in slice", []any{1, errMarshaler{}}},
		{"error text marshaler", errText{}},
		{"error text key", map[errText]int{{}: 1}},
		{"time", tm},
		{"time ptr", &tm},
		{"time zero", time.Time{}},
		{"netip addr", netip.MustParseAddr("::1")},
		{"duration", 3 * time.Second},
		{"json number", json.Number("12.5e3")},
		{"json number empty", json.Number("")},
		{"json number invalid", json.Number("12a")},
		{"tagged zero", tagged{}},
		{"tagged full", tagged{
			Name: "n", Skip: "s", Dash: "d", Lower: 1, Untagged: true, private: 1,
			Quoted: -5, QFloat: 1e-9, QBool: true, QStr: "a\"b\n", QPtr: &seven, QUint: 3, QNum: "1.5",
			QSlice: []int{1}, Bad: "bad", Punct: "p", Inner: inner{A: 1, B: "b"}, PInner: &inner{},
			Map: map[string]int{"z": 1}, Slice: []string{"s"}, Arr: [2]int{1, 2}, Iface: []any{"x"},
			OZTime: tm, OZStruct: inner{A: 1}, OZPtr: &inner{}, OZZeroer: 42, OZPZero: pzeroer{N: 7},
			OZIface: zeroer(1), Both: []int{}, Bytes: []byte{1}, Nested: map[string][]any{"k": {nil}}, Unicode: "ü",
		}},
		{"tagged ptr", &tagged{OZPZero: pzeroer{N: 7}, OZZeroer: 1, OZIface: (*time.Time)(nil)}},
		{"embedded", withEmbedded{Embedded: Embedded{E1: 1, E2: "two", X: 3}, X: 4}},
		{"embedded ptr set", withEmbedded{embeddedPtr: &embeddedPtr{P1: 5}}},
		{"embedded conflict", withConflict{Other: 1}},
		{"embedded tagged conflict", withTaggedConflict{TaggedConflict: TaggedConflict{Same: 9}}},
		{"embedded named", embeddedNamed{Embedded{E1: 1}}},
		{"embedded non-struct", embeddedNonStruct{MyInt: 3, myString: "x"}},
		{"anonymous struct", struct {
			A int
			B struct{ C []string }
		}{1, struct{ C []string }{[]string{"c"}}}},
		{"empty struct", struct{}{}},
		{"recursive", list},
		{"recursive value", *list},
		{"unsupported chan", make(chan int)},
		{"unsupported func", func() {}},
		{"unsupported complex", complex(1, 2)},
		{"unsupported in slice", []any{1, make(chan int)}},
		{"unsupported map key", map[[2]int]int{{1, 2}: 3}},
		{"unsupported omitted", struct {
			C chan int `json:",omitempty"`
		}{}},
		{"cycle ptr", cyc},
		{"cycle map", cycMap},
		{"cycle slice", cycSlice},
		{"deep", deep},
		{"interface holding ptr marshaler value", any(ptrMarshaler{N: 9})},
		{"slice of interfaces holding ptr marshalers", []any{ptrMarshaler{N: 1}, &ptrMarshaler{N: 2}}},
		{"bench", benchValue},
		{"string invalid utf8 and line sep", "\xff\u2028\xfe\u2029\ufffd\xef\xbf"},
		{"map keys invalid utf8", map[string]int{"\xff": 1, "\uffff": 2, "\ufffd": 3, "a\xfeb": 4}},
		{"marshaler line sep", lineSep{}},
		{"marshaler line sep in map", map[string]any{"l": []lineSep{{}}}},
		{"marshaler output nested", []any{[]any{[]any{rawNested(9990)}}}},
		{"marshaler output too deep for its place", []any{[]any{[]any{rawNested(9999)}}}},
		{"marshaler output too deep", rawNested(10001)},
		{"interface nesting", ifaceDeep},
		{"v2 tags", v2Tags{H: 0, I: inner{A: 1}, J: inner{A: 2, B: "b"}, O: hiddenText{"o"}}},
		{"unexported named embedded with methods", hiddenNamed{hiddenText{"h"}, hiddenText2{"h2"}, 1}},
		{"v2 format", v2Format{}},
		{"v2 format nil", (*v2Format)(nil)},
		{"v2 embed map", v2EmbedMap{M: map[string]int{"a": 1}}},
		{"appender", appender{"a"}},
		{"appender in struct", struct{ A, B appender }{appender{"a"}, appender{"b"}}},
		{"appender keys", map[appender]int{{"k"}: 1}},
		{"appender in interface types", struct {
			T textBoth
			M encoding.TextMarshaler
			N encoding.TextMarshaler
		}{appender{"t"}, appender{"m"}, nil}},
		{"ptr appender", ptrAppender{1}},
		{"ptr appenders in slice", []ptrAppender{{1}, {2}}},
		{"ptr appender in map", map[string]ptrAppender{"x": {3}}},
		{"ptr appender bytes", []struct{ P ptrAppender }{{ptrAppender{4}}}},
		{"map nil bool keys in struct", struct{ M map[bool]int }{}},
		{"map empty bool keys", map[bool]int{}},
		{"map empty struct keys", map[struct{ A int }]chan int{}},
		{"map struct keys", map[struct{ A int }]int{{1}: 1}},
		{"map nil float keys", map[float64]int(nil)},
		{"map float keys", map[float64]int{1e21: 1, 0.1: 2, -1: 3}},
		{"map NaN key", map[float64]int{math.NaN(): 1}},
		{"map pointer keys", map[*float64]int{&fl: 1}},
		{"map empty pointer keys", map[*int]int{}},
		{"map any keys", map[any]int{1: 1, "a": 2}},
		{"map nil chan keys", map[chan int]int(nil)},
		{"map empty complex keys", map[complex64]bool{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertSame(t, c.v, fallsBack[c.name]) })
	}
}

func TestStringConcurrent(t *testing.T) {
	// Compiles recursive types from many goroutines at once.
	type tree struct {
		L, R *tree
		M    map[string]tree
		V    []tree
	}
	v := tree{L: &tree{R: &tree{}}, M: map[string]tree{"a": {V: []tree{{}}}}}
	want, err := ref(v)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 100 {
				got, err := String(v)
				assert.NoError(t, err)
				assert.Equal(t, want, got)
			}
		})
	}
	wg.Wait()
}

func TestStringBigBuffersNotPooled(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	got, err := String(big)
	require.NoError(t, err)
	assert.Len(t, got, len(big)+2)
	got, err = String("small")
	require.NoError(t, err)
	assert.Equal(t, `"small"`, got)
}

type benchDay struct {
	Day  int     `json:"day"`
	High float64 `json:"high"`
	Low  float64 `json:"low"`
}

type benchResult struct {
	City    string     `json:"city"`
	TempC   float64    `json:"temp_c"`
	Unit    string     `json:"unit"`
	Summary string     `json:"summary"`
	Days    []benchDay `json:"days"`
}

var benchValue = benchResult{
	City: "Copenhagen", TempC: 21.5, Unit: "C", Summary: "mild and dry",
	Days: []benchDay{{1, 20, 10.25}, {2, 21, 11.25}, {3, 22, 12.25}},
}

func TestStringAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool is randomized under the race detector")
	}
	if preReleaseV2 {
		t.Skip("String is encoding/json with a pre-release encoding/json/v2")
	}
	var v any = benchValue
	_, _ = String(v) // compile and warm the pool
	allocs := testing.AllocsPerRun(100, func() { _, _ = String(v) })
	assert.LessOrEqual(t, allocs, 1.0, "only the returned string")
}

var sink string

func BenchmarkString(b *testing.B) {
	// Boxed once, as tool results reach the encoder already as an any.
	var v any = benchValue
	b.Run("compiled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := String(v)
			if err != nil {
				b.Fatal(err)
			}
			sink = s
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := reference(v)
			if err != nil {
				b.Fatal(err)
			}
			sink = s
		}
	})
}

// TestAppendFloat checks the float fast paths against encoding/json's
// algorithm on many short decimals, integers and random bit patterns.
func TestAppendFloat(t *testing.T) {
	want := func(f float64, bits int) string {
		s, err := json.Marshal(f)
		if bits == 32 {
			s, err = json.Marshal(float32(f))
		}
		require.NoError(t, err)
		return string(s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(f float64) {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
		require.Equal(t, want(f, 64), string(appendFloat(nil, f, 64)), "%v", f)
		f32 := float64(float32(f))
		if !math.IsInf(f32, 0) {
			require.Equal(t, want(f32, 32), string(appendFloat(nil, f32, 32)), "float32 %v", f32)
		}
	}
	for range 100000 {
		n := rng.Int64N(1 << uint(rng.IntN(54)))
		if rng.IntN(2) == 0 {
			n = -n
		}
		check(float64(n) / math.Pow10(rng.IntN(12)))
		check(float64(n))
		check(math.Float64frombits(rng.Uint64()))
		check(math.Nextafter(float64(n)/math.Pow10(rng.IntN(12)), math.Inf(1)))
	}
	for _, f := range []float64{1 << 50, 1<<50 - 0.5, 1<<50 + 1, 1 << 53, 1e-6, 0.000001, 1.0000000000000002, 0.1, 0.2, 0.3, 0.30000000000000004, 9.999999999999998} {
		check(f)
		check(-f)
	}
}

// TestScratchDropsHugeBuffers: a Scratch keeps its buffers between encodes,
// except one grown by a huge result, which it drops.
func TestScratchDropsHugeBuffers(t *testing.T) {
	if preReleaseV2 {
		t.Skip("String is encoding/json with a pre-release encoding/json/v2")
	}
	var sc Scratch
	enc := For(reflect.TypeFor[benchResult]())
	small := benchValue
	got, err := enc.StringWith(&sc, unsafe.Pointer(&small))
	require.NoError(t, err)
	want, _ := reference(small)
	assert.Equal(t, want, got)
	assert.Positive(t, cap(sc.s.buf), "kept for the next encode")

	huge := benchValue
	huge.Summary = strings.Repeat("x", 100<<10)
	got, err = enc.StringWith(&sc, unsafe.Pointer(&huge))
	require.NoError(t, err)
	assert.Len(t, got, len(want)+len(huge.Summary)-len(small.Summary))
	assert.Zero(t, cap(sc.s.buf), "a huge buffer is dropped")

	got, err = enc.StringWith(&sc, unsafe.Pointer(&small))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
