package check_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/big"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolcall-go/toolcall/internal/check"
)

// FuzzDiff compares check's verdict with the reference validator
// (santhosh-tekuri/jsonschema, format assertions off) on the schemas in
// testdata/diff.
//
// Instances are compared only inside the domain both share (diffDomain):
// a single JSON object, valid UTF-8, no duplicate key at any level,
// nesting at most check.MaxDepth, at most 1 MiB, and no number longer than
// diffMaxNumber bytes or with an exponent beyond ±diffMaxExp (the
// reference expands every number into a big.Rat). Outside it check must
// still not panic, must reject what encoding/json finds malformed, and
// must report duplicate keys as "syntax".
//
// Deliberate divergences:
//   - check asserts check.CheckedFormats, the reference runs with format
//     as an annotation: a disagreement is accepted when a second
//     reference, asserting exactly those formats, agrees with check.
//   - The reference checks the time part of date-time and time with Go's
//     time.Parse, which also takes a signed or one-digit hour such as
//     "+0:00:00Z"; check follows RFC 3339's grammar (two-digit fields).
//     A disagreement is accepted when every value check refused as a
//     date-time or time breaks that grammar (diffRFC3339).
//   - check rejects an unpaired UTF-16 surrogate escape ("\ud800") as
//     "syntax", since it names no character; encoding/json decodes it as
//     U+FFFD. Such instances are left out, and check must report syntax.
func FuzzDiff(f *testing.F) {
	corpus := diffLoad(f)
	for i, s := range corpus {
		for _, in := range diffSeeds(f, s) {
			f.Add(byte(i), []byte(in))
		}
		if strings.HasPrefix(s.name, "kw_") {
			for _, in := range diffOddSeeds() {
				f.Add(byte(i), []byte(in))
			}
		}
	}
	f.Fuzz(func(t *testing.T, idx byte, b []byte) {
		s := corpus[int(idx)%len(corpus)]
		if s.chk == nil || s.ref == nil {
			return
		}
		if msg := diffCompare(s, b); msg != "" {
			t.Fatal(msg)
		}
		// The same bytes also steer the schema-guided generator, so most
		// runs compare an instance inside the domain.
		g := &diffGen{pick: diffStream(b), root: s.doc}
		if v, ok := g.value(s.doc, 0).(map[string]any); ok {
			if gen, err := json.Marshal(v); err == nil {
				if msg := diffCompare(s, gen); msg != "" {
					t.Fatal(msg)
				}
			}
		}
	})
}

// TestDiffCorpus compiles every corpus schema with both validators, checks
// the verdicts written in seeds.txt, and compares every seed.
func TestDiffCorpus(t *testing.T) {
	corpus := diffLoad(t)
	count := map[string]int{}
	names := map[string]bool{}
	for _, s := range corpus {
		count[strings.SplitN(s.name, "_", 2)[0]]++
		names[s.name] = true
		if s.refErr != nil {
			t.Errorf("%s: reference refuses the schema: %v", s.name, s.refErr)
		}
		reason, refuse := diffRefusals[s.name]
		switch {
		case refuse && s.chk != nil:
			t.Errorf("%s: check.Compile accepts it now; drop it from diffRefusals (%s)", s.name, reason)
		case !refuse && s.chk == nil:
			t.Errorf("%s: check.Compile refuses it: %v", s.name, s.chkErr)
		}
	}
	if len(corpus) < 40 || count["golden"] < 15 || count["mcp"] < 10 || count["kw"] < 15 {
		t.Errorf("corpus too small: %d schemas, by kind %v", len(corpus), count)
	}
	for name := range diffRefusals {
		if !names[name] {
			t.Errorf("diffRefusals names %s, not in testdata/diff", name)
		}
	}

	used := map[string]bool{}
	for _, s := range corpus {
		diffWalk(s.doc, func(sub any) {
			m, ok := sub.(map[string]any)
			if !ok {
				used["boolean schema"] = true
				return
			}
			for k, v := range m {
				used[k] = true
				if _, ok := v.([]any); ok && k == "type" {
					used["type list"] = true
				}
			}
		})
	}
	for _, k := range diffKeywords {
		if !used[k] {
			t.Errorf("no corpus schema uses %s", k)
		}
	}

	seeds, err := diffHandSeeds()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*diffSchema{}
	for _, s := range corpus {
		byName[s.name] = s
	}
	for _, sd := range seeds {
		s := byName[sd.schema]
		if s == nil {
			t.Errorf("seeds.txt:%d: no schema %s", sd.line, sd.schema)
			continue
		}
		if s.ref == nil {
			continue
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(sd.instance))
		if err != nil {
			t.Errorf("seeds.txt:%d: %v", sd.line, err)
			continue
		}
		if got := s.ref.Validate(v) == nil; got != sd.valid {
			t.Errorf("seeds.txt:%d: reference says valid=%v, the file says %v", sd.line, got, sd.valid)
		}
	}

	valid, invalid := 0, 0
	for _, s := range corpus {
		if s.ref == nil {
			continue
		}
		nv, ni := 0, 0
		for _, in := range diffSeeds(t, s) {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
			if err != nil {
				continue
			}
			if s.ref.Validate(v) == nil {
				nv++
			} else {
				ni++
			}
			if s.chk != nil {
				if msg := diffCompare(s, []byte(in)); msg != "" {
					t.Error(msg)
				}
			}
		}
		if nv == 0 || (ni == 0 && strings.HasPrefix(s.name, "kw_")) {
			t.Errorf("%s: seeds hold %d valid and %d invalid instances", s.name, nv, ni)
		}
		valid, invalid = valid+nv, invalid+ni
	}
	t.Logf("%d schemas %v; seeds: %d valid, %d invalid", len(corpus), count, valid, invalid)
}

// diffRefusals lists the corpus schemas check.Compile refuses on purpose.
var diffRefusals = map[string]string{
	"kw_draft07_ref_siblings.json": "draft-07 ignores keywords beside $ref; check refuses them rather than drop them",
}

// diffKeywords must each appear in some corpus schema.
var diffKeywords = []string{
	"type", "type list", "properties", "required", "additionalProperties",
	"items", "prefixItems", "enum", "const", "minimum", "maximum",
	"exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
	"maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "contains",
	"minContains", "maxContains", "minProperties", "maxProperties",
	"dependentRequired", "dependentSchemas", "propertyNames", "anyOf", "oneOf",
	"allOf", "not", "if", "then", "else", "patternProperties", "$ref", "$defs",
	"definitions", "$schema", "boolean schema", "format",
}

const (
	diffMaxSize   = 1 << 20
	diffMaxNumber = 1000
	diffMaxExp    = 1000
)

type diffSchema struct {
	name   string
	doc    any                // parsed with json.Number
	ref    *jsonschema.Schema // format as annotation
	refFmt *jsonschema.Schema // asserting check.CheckedFormats
	refErr error
	chk    *check.Schema // nil when check.Compile refused it
	chkErr error
}

var diffCorpus = sync.OnceValues(func() ([]*diffSchema, error) {
	files, err := filepath.Glob(filepath.Join("testdata", "diff", "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	if len(files) > 256 {
		return nil, errors.New("more than 256 schemas: the fuzz index is one byte")
	}
	var out []*diffSchema
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		s := &diffSchema{name: filepath.Base(file)}
		if s.doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		s.ref, s.refErr = diffCompileRef(s.name, s.doc, nil)
		if s.refErr == nil {
			s.refFmt, s.refErr = diffCompileRef(s.name, s.doc, check.CheckedFormats)
		}
		s.chk, s.chkErr = check.Compile(raw)
		out = append(out, s)
	}
	return out, nil
})

func diffLoad(tb testing.TB) []*diffSchema {
	tb.Helper()
	corpus, err := diffCorpus()
	if err != nil {
		tb.Fatal(err)
	}
	return corpus
}

// diffCompileRef compiles doc with the reference, draft 2020-12 unless
// $schema says otherwise, asserting only the formats listed. Draft-07
// asserts format by default, so every other format name the schema uses
// gets a checker that accepts anything ("regex" cannot be overridden and
// the corpus does not use it).
func diffCompileRef(name string, doc any, formats []string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if formats != nil {
		c.AssertFormat()
	}
	diffWalk(doc, func(sub any) {
		m, _ := sub.(map[string]any)
		if f, ok := m["format"].(string); ok && !slices.Contains(formats, f) {
			c.RegisterFormat(&jsonschema.Format{Name: f, Validate: func(any) error { return nil }})
		}
	})
	loc := "mem:///diff/" + name
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// diffCompare checks one instance against one schema both compiled, and
// describes any disagreement.
func diffCompare(s *diffSchema, b []byte) string {
	got := s.chk.Validate(b)
	inDomain, dup := diffDomain(b)
	if !json.Valid(b) && len(got) == 0 {
		return fmt.Sprintf("schema %s: check accepts malformed JSON %s", s.name, diffShow(b))
	}
	syntax := slices.ContainsFunc(got, func(v check.Violation) bool { return v.Rule == "syntax" })
	if dup && !syntax {
		return fmt.Sprintf("schema %s: duplicate key in %s not reported as syntax: %+v", s.name, diffShow(b), got)
	}
	if inDomain && diffLoneSurrogate(b) {
		if !syntax {
			return fmt.Sprintf("schema %s: unpaired surrogate in %s not reported as syntax: %+v", s.name, diffShow(b), got)
		}
		inDomain = false
	}
	if !inDomain {
		return ""
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Sprintf("schema %s: reference cannot parse %s: %v", s.name, diffShow(b), err)
	}
	refErr := s.ref.Validate(v)
	chkOK, refOK := len(got) == 0, refErr == nil
	if chkOK == refOK {
		return ""
	}
	fmtErr := s.refFmt.Validate(v)
	if (fmtErr == nil) == chkOK {
		return "" // check asserts a format the reference only annotates
	}
	if !chkOK && diffOnlyBadTimes(got, v) {
		return "" // the reference's time.Parse is laxer than RFC 3339
	}
	return fmt.Sprintf("schema %s\ninstance %s\ncheck valid=%v: %+v\nreference valid=%v: %v\nreference with check's formats: %v",
		s.name, diffShow(b), chkOK, got, refOK, refErr, fmtErr)
}

func diffShow(b []byte) string {
	if len(b) > 2000 {
		return strconv.Quote(string(b[:2000])) + "..."
	}
	return strconv.Quote(string(b))
}

// diffDomain reports whether b is in the domain FuzzDiff compares, and
// whether some object in b has a duplicate key.
func diffDomain(b []byte) (inDomain, dup bool) {
	if len(b) > diffMaxSize || !utf8.Valid(b) || !json.Valid(b) {
		return false, false
	}
	type frame struct {
		keys      map[string]bool // nil for arrays
		expectKey bool
	}
	var stack []*frame
	inDomain = true
	done := false
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	value := func() {
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expectKey = true
		}
		if len(stack) == 0 {
			done = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, dup
		}
		if len(stack) == 0 && (done || tok != json.Delim('{')) {
			inDomain = false
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
			if len(stack) > check.MaxDepth {
				inDomain = false
			}
			continue
		case string:
			if len(stack) == 0 {
				break
			}
			if top := stack[len(stack)-1]; top.keys != nil && top.expectKey {
				if top.keys[tok] {
					dup, inDomain = true, false
				}
				top.keys[tok] = true
				top.expectKey = false
				continue
			}
		case json.Number:
			if !diffNumberOK(string(tok)) {
				inDomain = false
			}
		}
		value()
	}
	return inDomain, dup
}

// diffLoneSurrogate reports whether valid JSON b has a \u escape of a
// UTF-16 surrogate that is not part of a pair.
func diffLoneSurrogate(b []byte) bool {
	hex := func(i int) rune {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return -1
		}
		r, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(r)
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		r := hex(i)
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if lo := hex(i + 6); lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 11
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		default:
			i++ // skip the escaped byte
		}
	}
	return false
}

func diffNumberOK(n string) bool {
	if len(n) > diffMaxNumber {
		return false
	}
	i := strings.IndexAny(n, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
	return err == nil && e >= -diffMaxExp && e <= diffMaxExp
}

// diffWalk calls visit for every subschema of s, s included.
func diffWalk(s any, visit func(any)) {
	visit(s)
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			sub, _ := v.(map[string]any)
			for _, x := range sub {
				if _, isList := x.([]any); !isList {
					diffWalk(x, visit)
				}
			}
		case "items", "prefixItems", "allOf", "anyOf", "oneOf":
			if list, ok := v.([]any); ok {
				for _, x := range list {
					diffWalk(x, visit)
				}
			} else {
				diffWalk(v, visit)
			}
		case "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains", "propertyNames":
			diffWalk(v, visit)
		}
	}
}

type diffSeed struct {
	line     int
	schema   string
	valid    bool
	instance string
}

// diffHandSeeds reads testdata/diff/seeds.txt.
var diffHandSeeds = sync.OnceValues(func() ([]diffSeed, error) {
	raw, err := os.ReadFile(filepath.Join("testdata", "diff", "seeds.txt"))
	if err != nil {
		return nil, err
	}
	var out []diffSeed
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || (f[1] != "+" && f[1] != "-") {
			return nil, fmt.Errorf("seeds.txt:%d: want: schema +|- instance", n)
		}
		out = append(out, diffSeed{line: n, schema: f[0], valid: f[1] == "+", instance: f[2]})
	}
	return out, sc.Err()
})

// diffSeeds returns the hand-written and generated instances for s.
func diffSeeds(tb testing.TB, s *diffSchema) []string {
	tb.Helper()
	hand, err := diffHandSeeds()
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, sd := range hand {
		if sd.schema == s.name {
			out = append(out, sd.instance)
		}
	}
	switch s.name {
	case "kw_linked_list.json":
		out = append(out, `{"list":`+diffNest(`{"value":1,"next":`, `null`, `}`, 300)+`}`)
	case "kw_draft07_tree.json":
		out = append(out, diffNest(`{"name":"n","children":[`, ``, `]}`, 200))
	case "golden_recursive.json":
		out = append(out, `{"root":`+diffNest(`{"name":"n","link":`, `{"name":"leaf"}`, `}`, 200)+`}`)
	case "kw_bool_subschemas.json":
		out = append(out, `{"anything":`+diffNest(`[`, ``, `]`, check.MaxDepth-1)+`}`)
	}
	if s.ref != nil {
		out = append(out, diffGenerate(s)...)
	}
	return out
}

// diffNest returns open*n + inner + close*n.
func diffNest(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// diffOddSeeds are instances outside the compared domain.
func diffOddSeeds() []string {
	return []string{
		``, ` `, `{`, `{"a":}`, `{"a":1,}`, `{} {}`, `{}x`, "\ufeff{}",
		`[]`, `"x"`, `null`, `1`,
		`{"a":1,"a":2}`, `{"x":{"b":[{"c":1,"c":1}]}}`, `{"a":1,"\u0061":2}`,
		"{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `{"a":"\udc00\ud800"}`,
		`{"a":1e999999999}`, `{"a":-1e-999999999}`, `{"a":` + strings.Repeat("9", 5000) + `}`,
		`{"a":` + diffNest(`[`, ``, `]`, check.MaxDepth+5) + `}`,
		diffNest(`{"a":`, `1`, `}`, check.MaxDepth),
	}
}

// diffGenerate returns up to four instances the reference accepts and four
// it rejects, drawn from a schema-guided generator with a fixed seed.
func diffGenerate(s *diffSchema) []string {
	h := fnv.New64a()
	h.Write([]byte(s.name))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	g := &diffGen{pick: r.IntN, root: s.doc}
	seen := map[string]bool{}
	var valid, invalid []string
	for i := 0; i < 500 && (len(valid) < 4 || len(invalid) < 4); i++ {
		v, ok := g.value(s.doc, 0).(map[string]any)
		if !ok {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil || seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			continue
		}
		if s.ref.Validate(inst) == nil {
			if len(valid) < 4 {
				valid = append(valid, string(b))
			}
		} else if len(invalid) < 4 {
			invalid = append(invalid, string(b))
		}
	}
	return append(valid, invalid...)
}

// diffGen draws instances guided by a schema. Its choices come from pick,
// a PCG for seeds or the fuzz input's bytes.
type diffGen struct {
	pick func(n int) int // in [0, n)
	root any
}

func (g *diffGen) chance(num, den int) bool { return g.pick(den) < num }

// diffStream returns a pick that reads fuzz bytes, so a mutated byte moves
// one choice; past the end every choice is 0.
func diffStream(b []byte) func(int) int {
	return func(n int) int {
		v, span := 0, 1
		for span < n && span < 1<<24 {
			v, span = v<<8, span<<8
			if len(b) > 0 {
				v, b = v|int(b[0]), b[1:]
			}
		}
		return v % n
	}
}

// raw returns up to n arbitrary bytes as valid UTF-8.
func (g *diffGen) raw(n int) string {
	b := make([]byte, g.pick(n+1))
	for i := range b {
		b[i] = byte(g.pick(256))
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// value draws a value meant to fit schema s, sometimes one that does not.
func (g *diffGen) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || g.chance(1, 12) {
		return g.wild()
	}
	if ref, ok := m["$ref"].(string); ok && depth < 12 {
		if t, ok := diffPointer(g.root, ref); ok && (len(m) == 1 || g.chance(1, 2)) {
			return g.value(t, depth+1)
		}
	}
	if c, ok := m["const"]; ok && g.chance(3, 4) {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 && g.chance(3, 4) {
		return e[g.pick(len(e))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok && len(list) > 0 && g.chance(2, 3) {
			return g.value(list[g.pick(len(list))], depth+1)
		}
	}
	switch g.typeOf(m) {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return g.str(m)
	case "integer":
		return g.num(m, true)
	case "number":
		return g.num(m, false)
	case "boolean":
		return g.chance(1, 2)
	case "null":
		return nil
	}
	return g.wild()
}

func (g *diffGen) typeOf(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			s, _ := t[g.pick(len(t))].(string)
			return s
		}
	}
	has := func(keys ...string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { _, ok := m[k]; return ok })
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "propertyNames"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"):
		return "array"
	case has("minLength", "maxLength", "pattern", "format"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return ""
}

func (g *diffGen) object(m map[string]any, depth int) map[string]any {
	props := map[string]any{}
	required := map[string]bool{}
	for _, part := range append([]any{m}, diffList(m["allOf"])...) {
		pm, _ := part.(map[string]any)
		pp, _ := pm["properties"].(map[string]any)
		for k, v := range pp {
			if _, ok := props[k]; !ok {
				props[k] = v
			}
		}
		for _, r := range diffList(pm["required"]) {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	out := map[string]any{}
	for _, k := range diffKeys(props) {
		if (required[k] && g.chance(11, 12)) || (!required[k] && depth < 5 && g.chance(1, 2)) {
			out[k] = g.value(props[k], depth+1)
		}
	}
	for _, k := range diffKeys(required) {
		if _, ok := out[k]; !ok && props[k] == nil && g.chance(3, 4) {
			out[k] = g.wild()
		}
	}
	pp, _ := m["patternProperties"].(map[string]any)
	for _, pat := range diffKeys(pp) {
		if re, err := regexp.Compile(pat); err == nil && g.chance(1, 2) {
			if k := g.matching(re, diffKeyPool); k != "" {
				out[k] = g.value(pp[pat], depth+1)
			}
		}
	}
	if g.chance(1, 4) {
		k := diffKeyPool[g.pick(len(diffKeyPool))]
		if ap, ok := m["additionalProperties"].(map[string]any); ok {
			out[k] = g.value(ap, depth+1)
		} else {
			out[k] = g.wild()
		}
	}
	dr, _ := m["dependentRequired"].(map[string]any)
	for _, k := range diffKeys(dr) {
		if _, ok := out[k]; ok && g.chance(2, 3) {
			for _, d := range diffList(dr[k]) {
				if name, ok := d.(string); ok {
					out[name] = g.value(props[name], depth+1)
				}
			}
		}
	}
	ds, _ := m["dependentSchemas"].(map[string]any)
	for _, k := range diffKeys(ds) {
		if _, ok := out[k]; ok && g.chance(2, 3) {
			if sub, ok := ds[k].(map[string]any); ok {
				for dk, dv := range g.object(sub, depth+1) {
					if _, ok := out[dk]; !ok {
						out[dk] = dv
					}
				}
			}
		}
	}
	if lo, ok := diffInt(m, "minProperties"); ok {
		for i := 0; len(out) < lo && g.chance(5, 6); i++ {
			out["p"+strconv.Itoa(i)] = g.wild()
		}
	}
	return out
}

func (g *diffGen) array(m map[string]any, depth int) []any {
	lo, _ := diffInt(m, "minItems")
	hi, ok := diffInt(m, "maxItems")
	if !ok || hi > lo+4 {
		hi = lo + 3
	}
	n := lo
	if hi >= lo && depth < 5 {
		n = lo + g.pick(hi-lo+1)
	}
	if g.chance(1, 6) {
		n += 2*g.pick(2) - 1
	}
	prefix := diffList(m["prefixItems"])
	items := m["items"]
	if list, ok := items.([]any); ok {
		prefix, items = list, m["additionalItems"]
	}
	out := []any{}
	for i := 0; i < n; i++ {
		switch {
		case i < len(prefix):
			out = append(out, g.value(prefix[i], depth+1))
		case items != nil:
			out = append(out, g.value(items, depth+1))
		default:
			out = append(out, g.wild())
		}
	}
	if c, ok := m["contains"]; ok {
		for range g.pick(4) {
			out = append(out, g.value(c, depth+1))
		}
	}
	if len(out) > 0 && m["uniqueItems"] == true && g.chance(1, 4) {
		out = append(out, out[0])
	}
	return out
}

var diffStringPool = []string{
	"", "a", "ab", "abc", "hello", "Hello World", "x_1", "ABC", "US", "12345",
	"K1A 0B1", "48.85,2.35", "-1.5,3", "1m30s", "250ms", "0", "cmd", "circle",
	"2024-01-02", "2024-01-02T03:04:05Z", "03:04:05Z", "not a date",
	"user@example.com", "https://example.com/a?b=c", "/tmp/a.txt",
	"550e8400-e29b-41d4-a716-446655440000", "192.168.0.1", "::1",
	"héllo", "é", "e\u0301", "日本", "🙂", "🙂🙂", "ключ", "a\nb", "abcdef",
}

var diffKeyPool = []string{
	"extra", "zz", "HOME", "X_Y", "x-1", "b2", "n_1", "12", "abcde", "ab", "Ab", "é", "",
}

func (g *diffGen) matching(re *regexp.Regexp, pool []string) string {
	var fit []string
	for _, s := range pool {
		if re.MatchString(s) {
			fit = append(fit, s)
		}
	}
	if len(fit) == 0 {
		return ""
	}
	return fit[g.pick(len(fit))]
}

func (g *diffGen) str(m map[string]any) string {
	if pat, ok := m["pattern"].(string); ok && g.chance(3, 4) {
		if re, err := regexp.Compile(pat); err == nil {
			if s := g.matching(re, diffStringPool); s != "" {
				return s
			}
		}
	}
	lo, hasMin := diffInt(m, "minLength")
	hi, hasMax := diffInt(m, "maxLength")
	if (hasMin || hasMax) && g.chance(1, 2) {
		var lengths []int
		if hasMin {
			lengths = append(lengths, lo, lo-1)
		}
		if hasMax {
			lengths = append(lengths, hi, hi+1)
		}
		n := max(0, min(lengths[g.pick(len(lengths))], 1000))
		units := []string{"a", "é", "🙂", "日"}
		return strings.Repeat(units[g.pick(len(units))], n)
	}
	if g.chance(1, 5) {
		return g.raw(12)
	}
	return diffStringPool[g.pick(len(diffStringPool))]
}

func (g *diffGen) num(m map[string]any, integer bool) json.Number {
	var cands []*big.Rat
	for _, s := range []string{"0", "1", "-1", "2", "7", "10", "100", "0.5", "1.5", "-2.5", "0.1", "0.3", "3.14", "12345678901234567890"} {
		cands = append(cands, diffRat(s))
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if r, ok := diffRatKw(m, k); ok {
			for _, d := range []string{"0", "1", "-1", "0.1", "-0.1", "0.01", "-0.01"} {
				cands = append(cands, new(big.Rat).Add(r, diffRat(d)))
			}
		}
	}
	if r, ok := diffRatKw(m, "multipleOf"); ok {
		for _, k := range []string{"0", "1", "2", "3", "7", "-1", "10", "1000", "0.5", "1.5"} {
			cands = append(cands, new(big.Rat).Mul(r, diffRat(k)))
		}
	}
	if g.chance(1, 4) {
		return g.literal()
	}
	if integer && g.chance(3, 4) {
		cands = slices.DeleteFunc(cands, func(r *big.Rat) bool { return !r.IsInt() })
	}
	r := cands[g.pick(len(cands))]
	if r.IsInt() {
		s := r.Num().String()
		if g.chance(1, 8) {
			s += ".0"
		}
		return json.Number(s)
	}
	if s := strings.TrimRight(r.FloatString(40), "0"); !strings.HasSuffix(s, ".") {
		return json.Number(s)
	}
	return json.Number(new(big.Float).SetPrec(256).SetRat(r).Text('e', 40))
}

// literal spells a number digit by digit.
func (g *diffGen) literal() json.Number {
	var b strings.Builder
	if g.chance(1, 3) {
		b.WriteByte('-')
	}
	digits := func(n int) {
		for range n {
			b.WriteByte(byte('0' + g.pick(10)))
		}
	}
	if g.chance(1, 3) {
		b.WriteByte('0')
	} else {
		b.WriteByte(byte('1' + g.pick(9)))
		digits(g.pick(20))
	}
	if g.chance(1, 2) {
		b.WriteByte('.')
		digits(1 + g.pick(20))
	}
	if g.chance(1, 3) {
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[g.pick(5)])
		b.WriteString(strconv.Itoa(g.pick(400)))
	}
	return json.Number(b.String())
}

func (g *diffGen) wild() any {
	switch g.pick(10) {
	case 0:
		return nil
	case 1:
		return true
	case 2:
		return false
	case 3:
		return json.Number("0")
	case 4:
		return json.Number("-1.5")
	case 5:
		return ""
	case 6:
		return "x"
	case 7:
		return []any{}
	case 8:
		return []any{json.Number("1"), "a"}
	}
	return map[string]any{}
}

func diffRat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}

func diffRatKw(m map[string]any, k string) (*big.Rat, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

func diffInt(m map[string]any, k string) (int, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(string(n))
	return i, err == nil
}

func diffList(v any) []any {
	l, _ := v.([]any)
	return l
}

func diffKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// diffPointer resolves a local reference such as "#/$defs/a~1b".
func diffPointer(root any, ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, false
	}
	cur := root
	if frag == "" {
		return cur, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			if cur, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// diffRFC3339 is RFC 3339's grammar for date-time and time (a partial time
// with an offset), by which the reference's time.Parse is too lax.
var diffRFC3339 = map[string]*regexp.Regexp{
	"date-time": regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`),
	"time":      regexp.MustCompile(`^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`),
}

// diffOnlyBadTimes reports whether every violation is a date-time or time
// format whose value, found in v by the violation's path, breaks RFC
// 3339's grammar.
func diffOnlyBadTimes(got []check.Violation, v any) bool {
	for _, vio := range got {
		if vio.Rule != "format" {
			return false
		}
		s, ok := diffAt(v, vio.Path).(string)
		if !ok {
			return false
		}
		bad := false
		for name, re := range diffRFC3339 {
			if strings.Contains(vio.Message, "RFC 3339 "+name+" such as") && !re.MatchString(s) {
				bad = true
			}
		}
		if !bad {
			return false
		}
	}
	return len(got) > 0
}

// diffAt returns the value at a violation path such as "a.b[2]" in v.
func diffAt(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[name]
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			i, err := strconv.Atoi(idx)
			a, ok := v.([]any)
			if err != nil || !ok || i >= len(a) {
				return nil
			}
			v, rest = a[i], strings.TrimPrefix(after, "[")
		}
	}
	return v
}
