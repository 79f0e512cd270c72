package check_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/schema"
)

// The arguments FuzzPlan decodes: every kind the plan decodes in place
// through unsafe pointers (scalars of each size, strings, slices grown in
// place, pointers, maps, nested and embedded structs) and two values it
// hands to the codec.
type pzInner struct {
	S    string           `json:"s,omitempty" jsonschema:"maxLength=8"`
	I8   int8             `json:"i8,omitempty"`
	U16  uint16           `json:"u16,omitempty"`
	F32  float32          `json:"f32,omitempty"`
	Next *pzInner         `json:"next,omitempty"`
	M    map[string]int32 `json:"m,omitempty"`
}

type PzEmbedded struct {
	E string `json:"e,omitempty"`
}

type pzArgs struct {
	PzEmbedded
	Name  string            `json:"name" jsonschema:"minLength=1"`
	Kind  string            `json:"kind,omitempty" jsonschema:"enum=alpha,enum=beta"`
	N     int               `json:"n,omitempty" jsonschema:"minimum=-5,maximum=1000"`
	I64   int64             `json:"i64,omitempty"`
	I32   int32             `json:"i32,omitempty" jsonschema:"exclusiveMinimum=-100,exclusiveMaximum=100"`
	U     uint              `json:"u,omitempty"`
	U8    uint8             `json:"u8,omitempty" jsonschema:"multipleOf=1"`
	U64   uint64            `json:"u64,omitempty"`
	F     float64           `json:"f,omitempty"`
	B     bool              `json:"b,omitempty"`
	Strs  []string          `json:"strs,omitempty" jsonschema:"maxItems=6"`
	Ints  []int16           `json:"ints,omitempty"`
	Fs    []float32         `json:"fs,omitempty"`
	Bs    []bool            `json:"bs,omitempty"`
	Grid  [][]string        `json:"grid,omitempty"`
	Items []pzInner         `json:"items,omitempty"`
	Ptrs  []*pzInner        `json:"ptrs,omitempty"`
	P     *string           `json:"p,omitempty"`
	PI    *int              `json:"pi,omitempty"`
	In    pzInner           `json:"in,omitzero"`
	ByKey map[string]string `json:"by_key,omitempty"`
	Any   any               `json:"any,omitempty"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
}

type planFuzz struct {
	chk  *check.Schema
	plan *check.Plan
	doc  any // the schema parsed with json.Number, for diffGen
}

var planFuzzSetup = sync.OnceValues(func() (*planFuzz, error) {
	t := reflect.TypeFor[pzArgs]()
	ts, err := schema.Build(t)
	if err != nil {
		return nil, err
	}
	chk, err := check.Compile(ts.Plain)
	if err != nil {
		return nil, err
	}
	p := chk.Plan(t)
	if p == nil {
		return nil, fmt.Errorf("no plan for %s", t)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ts.Plain))
	if err != nil {
		return nil, err
	}
	return &planFuzz{chk: chk, plan: p, doc: doc}, nil
})

// FuzzPlan checks the one-pass plan, which decodes through unsafe
// pointers, against the validator and two decoders: the plan never
// accepts what Validate refuses; its verdict is that of Validate followed
// by the codec (check.Decode); and arguments it accepts decode as the codec
// decodes them and, when encoding/json accepts them too, as encoding/json
// decodes them.
//
// Each input is compared as given, then steers diffGen to build arguments
// that mostly fit the schema, written with escapes and spacing the input
// also picks.
//
// Deliberate divergences from encoding/json, where it accepts what the
// plan refuses and no value is compared: the schema's constraints,
// duplicate keys, invalid UTF-8 and unpaired surrogates (encoding/json
// substitutes U+FFFD), keys in another case. The plan accepts integral
// numbers such as 2.0 or 1e2 for integers, which encoding/json refuses.
func FuzzPlan(f *testing.F) {
	for _, s := range []string{
		`{"name":"x"}`, `{}`, ``, `null`, `[1]`, `{"name":"x",}`, `{"name":"x"}x`,
		`{"name":"Copenhagen","kind":"alpha","n":3,"strs":["a","bc"],"in":{"s":"s","i8":-3,"m":{"k":7}}}`,
		`{"name":"\u00e9\"\\\/\b\f\n\r\t\ud83d\ude42","e":"\u0041","p":"\u2028"}`,
		`{"n\u0061me":"x","by_key":{"\u006b":"v","":""}}`,
		`{"name":"x","i64":-9223372036854775808,"u64":18446744073709551615,"i32":2147483648}`,
		`{"name":"x","u8":256,"u":-1,"i64":1e2,"n":2.0,"n":3}`,
		`{"name":"x","f":1e308,"fs":[3.4028235e38,3.4028236e38,1e-50,-0]}`,
		`{"name":"x","fs":[1.0000000596046447762579867379884035472059622406959533691406250]}`,
		`{"name":"x","grid":[[],["a"],null],"items":[{"next":{"next":{"s":"deep"}}}],"ptrs":[null,{}]}`,
		`{"name":"x","pi":null,"p":null,"strs":null,"ints":[1,-32768,32767],"bs":[true,false]}`,
		`{"name":"x","any":{"a":[1,"b",null,{"c":true}]},"raw":[1, 2, {"x" : null}]}`,
		`{"name":"x","raw":null,"any":null}`,
		`{"name":"x","in":{"s":"s","u16":0.0},"raw":[1.0, "\u0061" , 2e0]}`,
		`{"name":"x","i64":-9223372036854775810,"u64":1.8446744073709551615e19,"i32":-9.9e1}`,
		`{"name":"x","i64":4503599627370496.25,"u":1e-400,"n":1e2}`,
		"{\"name\":\"\xff\"}", `{"name":"\ud800"}`, `{"NAME":"x"}`, `{"name":"x","extra":1}`,
		` { "name" : "x" , "strs" : [ "a" , "b" ] } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := planFuzzSetup()
		if err != nil {
			t.Fatal(err)
		}
		if msg := planCompare(pf, b); msg != "" {
			t.Fatal(msg)
		}
		pick := diffStream(b)
		var v any
		if pick(2) == 0 {
			g := &diffGen{pick: pick, root: pf.doc}
			v = g.value(pf.doc, 0)
		} else {
			v = planTame(reflect.TypeFor[pzArgs](), pick, 0)
		}
		w := &planWriter{pick: pick}
		w.value(v)
		if msg := planCompare(pf, w.buf.Bytes()); msg != "" {
			t.Fatal(msg)
		}
	})
}

func planCompare(pf *planFuzz, b []byte) string {
	planned := new(pzArgs)
	args := bytes.Clone(b)
	vsPlan := pf.plan.Decode(args, planned, false)
	vsVal := pf.chk.Validate(b)
	if vsPlan == nil && vsVal != nil {
		return fmt.Sprintf("plan accepts %q, which Validate refuses: %v", b, vsVal)
	}
	var coded pzArgs
	vsCodec := vsVal
	if vsVal == nil {
		vsCodec = check.Decode(b, &coded, false)
	}
	if (vsPlan == nil) != (vsCodec == nil) {
		return fmt.Sprintf("verdicts differ on %q:\nplan      %v\nvalidate  %v\ntwo-pass  %v", b, vsPlan, vsVal, vsCodec)
	}
	if vsPlan != nil {
		return ""
	}
	planSameRaw(&coded, planned)
	if !reflect.DeepEqual(*planned, coded) {
		return fmt.Sprintf("plan and codec decode %q differently:\nplan  %+v\ncodec %+v", b, *planned, coded)
	}
	// The value shares no memory with the arguments.
	clear(args)
	if !reflect.DeepEqual(*planned, coded) {
		return fmt.Sprintf("the value decoded from %q changed with the arguments:\nplan  %+v\ncodec %+v", b, *planned, coded)
	}
	var std pzArgs
	if err := json.Unmarshal(b, &std); err == nil {
		planFixRaw(&std, planned)
		if !reflect.DeepEqual(*planned, std) {
			return fmt.Sprintf("plan and encoding/json decode %q differently:\nplan          %+v\nencoding/json %+v", b, *planned, std)
		}
	}
	return ""
}

// planSameRaw accounts for the codec's retry for integer fields, which
// writes every integral number of the arguments such as 1.0 as 1, those
// in a json.RawMessage too, where the plan, like encoding/json, keeps the
// arguments' text: the same JSON value either way.
func planSameRaw(coded, planned *pzArgs) {
	a, b := jsontext.Value(bytes.Clone(coded.Raw)), jsontext.Value(bytes.Clone(planned.Raw))
	if a.Canonicalize() == nil && b.Canonicalize() == nil && bytes.Equal(a, b) {
		coded.Raw = bytes.Clone(planned.Raw) // a copy: the check below that nothing aliases the arguments still holds
	}
}

// planFixRaw accounts for encoding/json's json.RawMessage holding "null"
// for null, where the codec leaves it empty: the codec's rule, not the
// plan's (which hands the value to the codec).
func planFixRaw(std, planned *pzArgs) {
	if string(std.Raw) == "null" && planned.Raw == nil {
		std.Raw = nil
	}
}

// planTame builds arguments for a value of type t that mostly fit
// pzArgs's schema, where diffGen's mostly break one rule somewhere: values
// of the Go type (numbers at the edges of its range too), the schema's few
// constraints respected most of the time.
func planTame(t reflect.Type, pick func(int) int, depth int) any {
	if t.Kind() == reflect.Pointer {
		if pick(20) == 0 || depth > 3 {
			return nil // refused: the schema does not take null
		}
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return diffStringPool[pick(len(diffStringPool))]
	case reflect.Bool:
		return pick(2) == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lo, hi := int64(-1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1
		cands := []int64{0, 1, -1, 7, 100, lo, hi, lo + 1, hi - 1}
		return json.Number(strconv.FormatInt(cands[pick(len(cands))], 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		hi := uint64(1)<<(t.Bits()-1)<<1 - 1
		cands := []uint64{0, 1, 7, 100, hi, hi - 1}
		return json.Number(strconv.FormatUint(cands[pick(len(cands))], 10))
	case reflect.Float32, reflect.Float64:
		g := &diffGen{pick: pick}
		if pick(6) == 0 {
			return g.literal()
		}
		cands := []string{"0", "-0", "1.5", "21.5", "1e-7", "3.4028234663852886e38", "0.1", "-2.25", "1e21", "5e-324"}
		return json.Number(cands[pick(len(cands))])
	case reflect.Slice:
		if t == reflect.TypeFor[json.RawMessage]() || pick(20) == 0 {
			return nil
		}
		out := []any{}
		for range pick(7 >> min(depth, 2)) {
			out = append(out, planTame(t.Elem(), pick, depth+1))
		}
		return out
	case reflect.Map:
		if pick(20) == 0 {
			return nil
		}
		out := map[string]any{}
		for range pick(4) {
			out[diffKeyPool[pick(len(diffKeyPool))]] = planTame(t.Elem(), pick, depth+1)
		}
		return out
	case reflect.Interface:
		return (&diffGen{pick: pick}).wild()
	case reflect.Struct:
		out := map[string]any{}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				for k, v := range planTame(f.Type, pick, depth).(map[string]any) {
					out[k] = v
				}
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if k := f.Type.Kind(); name != "name" && (pick(3) == 0 || depth > 2 && (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map)) {
				continue
			}
			v := planTame(f.Type, pick, depth+1)
			switch name {
			case "name":
				if v == "" {
					v = "x"
				}
			case "kind":
				v = []any{"alpha", "beta", "gamma"}[pick(3)]
			case "n":
				v = json.Number(strconv.Itoa(pick(1006) - 5))
			case "s":
				if s, _ := v.(string); utf8.RuneCountInString(s) > 8 {
					v = "short"
				}
			case "strs":
				if l, _ := v.([]any); len(l) > 6 {
					v = l[:6]
				}
			case "raw":
				v = (&diffGen{pick: pick}).wild()
			}
			out[name] = v
		}
		return out
	}
	panic("planTame: " + t.String())
}

// planWriter writes a value diffGen made as JSON text, with choices of its
// own: \u escapes for some characters, spacing between tokens.
type planWriter struct {
	pick func(int) int
	buf  bytes.Buffer
}

func (w *planWriter) space() {
	if w.pick(8) == 0 {
		w.buf.WriteString([]string{" ", "\n", "\t", "\r\n  "}[w.pick(4)])
	}
}

func (w *planWriter) value(v any) {
	w.space()
	switch v := v.(type) {
	case nil:
		w.buf.WriteString("null")
	case bool:
		w.buf.WriteString(strconv.FormatBool(v))
	case json.Number:
		w.buf.WriteString(string(v))
	case string:
		w.str(v)
	case []any:
		w.buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.value(x)
		}
		w.space()
		w.buf.WriteByte(']')
	case map[string]any:
		w.buf.WriteByte('{')
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.space()
			w.str(k)
			w.space()
			w.buf.WriteByte(':')
			w.value(v[k])
		}
		w.space()
		w.buf.WriteByte('}')
	default:
		panic(fmt.Sprintf("planWriter: %T", v))
	}
}

// str writes s quoted, escaping what JSON requires and, by choice, other
// characters as \u escapes (surrogate pairs beyond the BMP) or short
// escapes.
func (w *planWriter) str(s string) {
	mode := w.pick(4) // 0: plain, 1: some escaped, 2: all non-ASCII escaped, 3: both
	w.buf.WriteByte('"')
	for _, r := range s {
		escape := mode&1 != 0 && w.pick(4) == 0 || mode&2 != 0 && r >= utf8.RuneSelf
		switch {
		case r == '"' || r == '\\':
			w.buf.WriteByte('\\')
			w.buf.WriteRune(r)
		case r == '/' && escape:
			w.buf.WriteString(`\/`)
		case r == '\n':
			w.buf.WriteString(`\n`)
		case r == '\t':
			w.buf.WriteString(`\t`)
		case r < 0x20 || escape:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&w.buf, `\u%04x\u%04X`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(&w.buf, `\u%04x`, r)
			}
		default:
			w.buf.WriteRune(r)
		}
	}
	w.buf.WriteByte('"')
}

// TestPlanFloat32 pins the literal that rounding through float64 decodes
// one unit in the last place away from encoding/json.
func TestPlanFloat32(t *testing.T) {
	pf, err := planFuzzSetup()
	if err != nil {
		t.Fatal(err)
	}
	const lit = "1.0000000596046447762579867379884035472059622406959533691406250"
	b := []byte(`{"name":"x","fs":[` + lit + `],"in":{"f32":` + lit + `}}`)
	var a pzArgs
	if vs := pf.plan.Decode(b, &a, false); vs != nil {
		t.Fatal(vs)
	}
	want, _ := strconv.ParseFloat(lit, 32)
	if a.Fs[0] != float32(want) || a.In.F32 != float32(want) || a.Fs[0] == 1 {
		t.Errorf("decoded %v and %v, want %v", a.Fs[0], a.In.F32, float32(want))
	}
	if msg := planCompare(pf, b); msg != "" {
		t.Error(msg)
	}
}

// TestPlanIntegers pins integers written with a fraction or an exponent,
// or out of range: the plan reads them exactly, as the codec does, never
// as rounded to a float64.
func TestPlanIntegers(t *testing.T) {
	pf, err := planFuzzSetup()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field, lit string
		want       any // nil: refused
	}{
		{"i64", "2.0", int64(2)},
		{"i64", "-0.0", int64(0)},
		{"i64", "1e15", int64(1e15)},
		{"i64", "-9007199254740991.0", int64(-9007199254740991)},
		{"i64", "-9223372036854775808", int64(math.MinInt64)},
		{"i64", "-9223372036854775810", nil}, // a float64 rounds it into range
		{"i64", "9223372036854775808", nil},
		{"i64", "9007199254740993.0", nil}, // a float64 rounds it to 2^53
		{"i64", "1e17", nil},
		{"i64", "4503599627370496.25", nil}, // a float64 rounds it to an integer
		{"i64", "1e-400", nil},              // a float64 rounds it to 0
		{"u8", "2.55e2", uint8(255)},
		{"u8", "2.56e2", nil},
		{"u64", "18446744073709551615", uint64(math.MaxUint64)},
		{"u64", "18446744073709551616", nil},
		{"u64", "-0", nil}, // as the codec and encoding/json
		{"u64", "-0.0", uint64(0)},
		{"u64", "-1.0", nil},
	} {
		b := []byte(`{"name":"x","` + c.field + `":` + c.lit + `}`)
		var a pzArgs
		vs := pf.plan.Decode(b, &a, false)
		if c.want == nil {
			if vs == nil {
				t.Errorf("%s: %s accepted", c.field, c.lit)
			}
		} else {
			got := map[string]any{"i64": a.I64, "u8": a.U8, "u64": a.U64}[c.field]
			if vs != nil || got != c.want {
				t.Errorf("%s: %s decoded %v (%v), want %v", c.field, c.lit, got, vs, c.want)
			}
		}
		if msg := planCompare(pf, b); msg != "" {
			t.Error(msg)
		}
	}
	// The codec, for arguments without a plan, reads them exactly too.
	for lit, want := range map[string]int64{"2.0": 2, "1e3": 1000, "4503599627370496.25": -1, "1e-400": -1, "9007199254740993.0": -1} {
		var v struct{ N int64 }
		vs := check.Decode([]byte(`{"N":`+lit+`}`), &v, false)
		if want < 0 && vs == nil || want >= 0 && (vs != nil || v.N != want) {
			t.Errorf("codec: %s decoded %d (%v)", lit, v.N, vs)
		}
	}
	// Rewriting them keeps the other bytes: a json.RawMessage beside gets
	// the arguments' own text, spacing and escapes.
	var v struct {
		N   int64
		Raw json.RawMessage
	}
	if vs := check.Decode([]byte(`{"N" : 2.0 , "Raw":[1.5, "\u0061" , true] }`), &v, false); vs != nil || v.N != 2 || string(v.Raw) != `[1.5, "\u0061" , true]` {
		t.Errorf("codec: decoded %d and raw %s (%v)", v.N, v.Raw, vs)
	}
}
