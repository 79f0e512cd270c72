package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/schematest"
)

// sameBuild compares Build with invopop's own reflection of t, which the
// walker's schema must equal: the same bytes, or the same error.
func sameBuild(t *testing.T, typ reflect.Type) (native bool) {
	t.Helper()
	got, gotErr := build(typ, false)
	want, wantErr := build(typ, true)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%s: error %v, want %v", typ, gotErr, wantErr)
	}
	if gotErr != nil {
		var g, w *Error
		if errors.As(gotErr, &g) != errors.As(wantErr, &w) || g != nil && *g != *w {
			t.Fatalf("%s: error %#v, want %#v", typ, gotErr, wantErr)
		}
		return false
	}
	if !bytes.Equal(got.Plain, want.Plain) {
		t.Fatalf("%s:\ngot  %s\nwant %s", typ, got.Plain, want.Plain)
	}
	if !reflect.DeepEqual(got.Tree, want.Tree) {
		t.Fatalf("%s: the trees differ", typ)
	}
	if got.HasDuration != want.HasDuration {
		t.Fatalf("%s: HasDuration %v, want %v", typ, got.HasDuration, want.HasDuration)
	}
	root := typ
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	w := walker{mapper: mapper(root)}
	_, _ = w.walk(root, "", nil)
	return !w.legacy
}

type (
	embedTagged struct {
		schematest.Audit `json:",omitempty"`
		X                int `json:"x"`
	}
	embedTwice struct {
		schematest.Owner
		Inner struct {
			schematest.Owner
			schematest.Audit
		} `json:"inner"`
		O schematest.Owner `json:"o" jsonschema:"title=Owner,description=who"`
	}
	namedRefs struct {
		Slugs  schematest.Slugs           `json:"slugs" jsonschema:"title=Slugs,description=the slugs"`
		Index  schematest.Index           `json:"index,omitempty" jsonschema_extras:"x=1,x=2,not=true"`
		Point  *schematest.Point          `json:"point" jsonschema:"nullable,type=object"`
		Points []schematest.Point         `json:"points" jsonschema:"format=email,pattern=^a$,minItems=1"`
		Custom schematest.LatLng          `json:"custom" jsonschema:"description=here,title=there"`
		Money  schematest.Money           `json:"money" jsonschema_extras:"minimum=3,minimum=4,anyOf=true"`
		Nums   []int                      `json:"nums" jsonschema:"enum=1,enum=2,minimum=0,default=1,example=3"`
		Bools  []bool                     `json:"bools" jsonschema:"default=true"`
		Flag   bool                       `json:"flag,string" jsonschema:"enum=x"`
		Ints   map[int8][]string          `json:"ints"`
		Uints  map[uint]any               `json:"uints"`
		Anys   map[string]any             `json:"anys"`
		Raws   map[string]json.RawMessage `json:"raws"`
		Bytes  []byte                     `json:"bytes"`
		Arr    [2][]byte                  `json:"arr" jsonschema:"description=two"`
		IPs    []net.IP                   `json:"ips"`
		Times  map[string]time.Time       `json:"times" jsonschema:"anchor=a"`
		Durs   []*time.Duration           `json:"durs"`
		Tree   *schematest.TreeNode       `json:"tree" jsonschema:"description=a tree"`
		Trees  []schematest.TreeNode      `json:"trees"`
		Mutual schematest.Mutual          `json:"mutual"`
		Str    string                     `json:"str" jsonschema:"minLength=x,maxLength=3,readOnly=true,writeOnly=1,default=d,example=e,enum=a\\,b,enum=c"`
		Num    float64                    `json:"num" jsonschema:"multipleOf=0.5,exclusiveMaximum=10,exclusiveMinimum=-1e3,default=2,example=1,example=2"`
		Typed  int                        `json:"typed" jsonschema:"type=string,pattern=^[0-9]+$"`
		OneOf  string                     `json:"one_of" jsonschema:"anyof_type=string;null,title=t"`
		Req    string                     `json:"req,omitempty" jsonschema:"required"`
		Bad    string                     `json:"bad" jsonschema_description:"a\xffb" jsonschema_extras:"k\xfe=v\xfd,t=true,f=false"`
		Skip   chan int                   `json:"-"`
	}
	extendedNested struct {
		P schematest.Priority `json:"p"`
	}
	customRef  struct{ A int }
	customArgs struct {
		C customRef `json:"c"`
	}
	unnamedCustom struct {
		C struct{ schematest.LatLng } `json:"c"`
	}
	ptrSchema struct{ A int }
	ptrCustom struct {
		P ptrSchema `json:"p"`
	}
	embedCustom struct {
		schematest.RGB
		N int `json:"n"`
	}
	aliased     struct{ A int }
	aliasedArgs struct {
		A aliased `json:"a"`
	}
)

type (
	// recA and recB refer to each other through a named slice and a
	// pointer: both stay in $defs.
	recA struct {
		Bs   recBs  `json:"bs" jsonschema:"description=the bs"`
		Name string `json:"name"`
	}
	recBs []recB
	recB  struct {
		A     *recA  `json:"a,omitempty"`
		Again []recA `json:"again"`
	}
	recArgs struct {
		A recA            `json:"a"`
		M map[string]recB `json:"m"`
	}
	// selfEmbed embeds itself: invopop recurses until the stack runs
	// out; the walker takes what it has of the fields.
	selfEmbed struct {
		//lint:ignore U1000 the field is under test, through reflection
		*selfEmbed
		X int `json:"x"`
	}
)

func TestBuildSelfEmbedding(t *testing.T) {
	t.Parallel()
	ts, err := Build(reflect.TypeFor[selfEmbed]())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],"additionalProperties":false}`; string(ts.Plain) != want {
		t.Errorf("got %s\nwant %s", ts.Plain, want)
	}
}

func (customRef) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Ref: "#/$defs/Point"}
}

func (*ptrSchema) JSONSchema() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }

func (aliased) JSONSchemaAlias() any { return "" }

func TestBuildMatchesInvopop(t *testing.T) {
	t.Parallel()
	str := reflect.TypeFor[string]()
	dupNames := reflect.StructOf([]reflect.StructField{ // vet refuses repeated json names
		{Name: "A", Type: str, Tag: `json:"a,omitempty"`},
		{Name: "B", Type: str, Tag: `json:"a"`},
		{Name: "C", Type: str, Tag: `json:"c"`},
		{Name: "D", Type: str, Tag: `json:"c,omitempty"`},
	})
	types := []reflect.Type{
		reflect.TypeFor[extraArgs](), reflect.TypeFor[kindArgs](), reflect.TypeFor[embedPtrArgs](),
		reflect.TypeFor[*schematest.TreeNode](), reflect.TypeFor[embedTagged](), reflect.TypeFor[embedTwice](),
		reflect.TypeFor[namedRefs](), reflect.TypeFor[extendedNested](), reflect.TypeFor[customArgs](),
		reflect.TypeFor[unnamedCustom](), reflect.TypeFor[ptrCustom](), reflect.TypeFor[embedCustom](),
		reflect.TypeFor[aliasedArgs](), dupNames, reflect.TypeFor[benchArgs](),
		reflect.TypeFor[tagsThatFit](), reflect.TypeFor[struct{}](), reflect.TypeFor[recArgs](), reflect.TypeFor[recA](),
	}
	for _, tc := range schematest.Cases() {
		types = append(types, tc.Type)
	}
	native := 0
	for _, typ := range types {
		if sameBuild(t, typ) {
			native++
		}
	}
	if native < len(types)/2 {
		t.Errorf("only %d of %d types built by the walker", native, len(types))
	}
}

// TestBuildMatchesInvopopRandom compares the walker with invopop on
// random struct types: fields of many kinds, with tags drawn from
// invopop's grammar (and mistakes in it).
func TestBuildMatchesInvopopRandom(t *testing.T) {
	t.Parallel()
	n := 3000
	if testing.Short() {
		n = 300
	}
	native := 0
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		typ, ok := randomStruct(r, 0)
		if !ok {
			continue
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			if sameBuild(t, typ) {
				native++
			}
		})
	}
	if native < n/4 {
		t.Errorf("only %d of %d types built by the walker", native, n)
	}
}

var leafTypes = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[uint16](),
	reflect.TypeFor[float32](), reflect.TypeFor[float64](), reflect.TypeFor[bool](), reflect.TypeFor[any](),
	reflect.TypeFor[schematest.Celsius](), reflect.TypeFor[schematest.Slug](), reflect.TypeFor[schematest.Slugs](),
	reflect.TypeFor[schematest.Index](), reflect.TypeFor[schematest.Point](), reflect.TypeFor[schematest.Address](),
	reflect.TypeFor[schematest.TreeNode](), reflect.TypeFor[schematest.Employee](), reflect.TypeFor[schematest.LatLng](),
	reflect.TypeFor[schematest.Money](), reflect.TypeFor[schematest.RGB](), reflect.TypeFor[time.Time](),
	reflect.TypeFor[time.Duration](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[net.IP](),
	reflect.TypeFor[[]byte](), reflect.TypeFor[schematest.Page[int]](), reflect.TypeFor[schematest.Priority](),
	reflect.TypeFor[schematest.Color](), reflect.TypeFor[ownSchema](), reflect.TypeFor[schematest.Audit](),
	reflect.TypeFor[chan int](), reflect.TypeFor[uintptr](),
}

var embeddable = []reflect.Type{
	reflect.TypeFor[schematest.Audit](), reflect.TypeFor[schematest.Paging](), reflect.TypeFor[schematest.Point](),
	reflect.TypeFor[schematest.Owner](), reflect.TypeFor[schematest.Address](),
}

var tagPieces = []string{
	"required", "nullable", "-", "", "title=T", "description=D", "description=a\\, b", "type=string",
	"type=integer", "type=array", "type=object", "type=bogus", "anchor=x", "oneof_type=string;integer",
	"anyof_type=number;null", "oneof_required=g", "anyof_ref=#/$defs/Point", "minLength=1", "maxLength=9",
	"minLength=-1", "pattern=^[a-z]+$", "pattern=a\\,b", "format=date", "format=email", "readOnly=true",
	"writeOnly=false", "default=x", "default=1", "default=true", "default=2.5", "example=e", "example=3",
	"enum=a", "enum=b", "enum=1", "enum=2.5", "multipleOf=2", "minimum=0", "maximum=10", "minimum=+1",
	"exclusiveMinimum=1e2", "exclusiveMaximum=0x10", "minItems=1", "maxItems=3", "uniqueItems=true",
	"uniqueItems=false", "minimum=1=2", "bogus=1", "pattern=a=b",
}

var extraPieces = []string{"a=1", "a=2", "b=true", "b=x", "minimum=4", "minimum=x", "not=true", "items=false", "type=dup", "description=d", "x-k=v", "t=t"}

func pick[T any](r *rand.Rand, l []T) T { return l[r.IntN(len(l))] }

func randomTag(r *rand.Rand, pieces []string) string {
	n := 1 + r.IntN(3)
	var b []string
	for range n {
		b = append(b, pick(r, pieces))
	}
	return strings.Join(b, ",")
}

func randomType(r *rand.Rand, depth int) (reflect.Type, bool) {
	switch k := r.IntN(10); {
	case k < 4 || depth > 2:
		return pick(r, leafTypes), true
	case k == 4:
		e, ok := randomType(r, depth+1)
		if !ok {
			return nil, false
		}
		return reflect.PointerTo(e), true
	case k == 5:
		e, ok := randomType(r, depth+1)
		if !ok {
			return nil, false
		}
		return reflect.SliceOf(e), true
	case k == 6:
		e, ok := randomType(r, depth+1)
		if !ok {
			return nil, false
		}
		return reflect.ArrayOf(r.IntN(3), e), true
	case k == 7:
		e, ok := randomType(r, depth+1)
		if !ok {
			return nil, false
		}
		key := pick(r, []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[uint8](), reflect.TypeFor[schematest.Slug](), reflect.TypeFor[float64]()})
		return reflect.MapOf(key, e), true
	}
	return randomStruct(r, depth+1)
}

func randomStruct(r *rand.Rand, depth int) (t reflect.Type, ok bool) {
	defer func() {
		if recover() != nil {
			t, ok = nil, false
		}
	}()
	var fields []reflect.StructField
	names := []string{"a", "b", "c", "A", "type", "properties", "x\xff", "$ref"}
	for i := range r.IntN(5) {
		if r.IntN(8) == 0 {
			e := pick(r, embeddable)
			name := e.Name()
			if r.IntN(2) == 0 {
				e = reflect.PointerTo(e)
			}
			if slices.ContainsFunc(fields, func(f reflect.StructField) bool { return f.Name == name }) {
				continue
			}
			var tag reflect.StructTag
			if r.IntN(3) == 0 {
				tag = `json:",omitempty"`
			}
			fields = append(fields, reflect.StructField{Name: name, Type: e, Anonymous: true, Tag: tag})
			continue
		}
		ft, ok := randomType(r, depth)
		if !ok {
			return nil, false
		}
		var tag []string
		if r.IntN(4) != 0 {
			name := pick(r, names)
			switch r.IntN(6) {
			case 0:
				name += ",omitempty"
			case 1:
				name += ",omitzero"
			case 2:
				name += ",string"
			case 3:
				name = ",omitempty"
			}
			if r.IntN(30) == 0 {
				name = "-"
			}
			tag = append(tag, fmt.Sprintf("json:%q", name))
		}
		if r.IntN(2) == 0 {
			tag = append(tag, fmt.Sprintf("jsonschema:%q", randomTag(r, tagPieces)))
		}
		if r.IntN(6) == 0 {
			tag = append(tag, fmt.Sprintf("jsonschema_extras:%q", randomTag(r, extraPieces)))
		}
		if r.IntN(6) == 0 {
			tag = append(tag, `jsonschema_description:"desc"`)
		}
		f := reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: ft, Tag: reflect.StructTag(strings.Join(tag, " "))}
		if r.IntN(15) == 0 {
			f.Name, f.PkgPath = fmt.Sprintf("f%d", i), "p"
		}
		fields = append(fields, f)
	}
	return reflect.StructOf(fields), true
}

// TestReadTags compares readTags with reflect.StructTag.Lookup.
func TestReadTags(t *testing.T) {
	t.Parallel()
	tags := []reflect.StructTag{
		``, `json:"a"`, `json:"a" jsonschema:"b,c" jsonschema_description:"d" jsonschema_extras:"e=f"`,
		`json:"a\\"b"`, `json:"\xff"`, `json:"\xff" jsonschema:"x"`, `jsonschema:"x" jsonschema:"y"`,
		`json:"a"jsonschema:"b"`, ` json:"a"  jsonschema:"b" `, `json:a jsonschema:"b"`, `json:"a`,
		`x:"1" json:"a\nb" jsonschema:"c"`, `json:"\u00e9\t" jsonschema:"\\,"`, "json:\"a\x7f\" jsonschema:\"b\"",
		`js on:"a" json:"b"`, `json:"a" json:"b"`, `:"a" json:"b"`, `json:"` + "\x00" + `"`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{`json`, `jsonschema`, `jsonschema_description`, `jsonschema_extras`, `:`, `"`, ` `, `\`, `a`, `,`, "\xff", `\"`, `\n`, "\n", `\x41`, "é"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pick(r, alphabet))
		}
		tags = append(tags, reflect.StructTag(b.String()))
	}
	for _, tag := range tags {
		got := readTags(tag)
		for _, k := range []struct {
			key string
			v   string
			ok  bool
		}{
			{"json", got.json, true}, {"jsonschema", got.schema, got.hasSchema},
			{"jsonschema_description", got.desc, got.hasDesc}, {"jsonschema_extras", got.extras, true},
		} {
			v, ok := tag.Lookup(k.key)
			if v != k.v || k.key != "json" && k.key != "jsonschema_extras" && ok != k.ok {
				t.Fatalf("%q: %s = %q, %v; Lookup gives %q, %v", tag, k.key, k.v, k.ok, v, ok)
			}
		}
	}
}
