package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"slices"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// The reference is the former pipeline, kept verbatim: marshal invopop's
// schema, parse it, reshape it, and derive the strict variant. Build must
// give the same bytes for every type.
func referenceBuild(t *testing.T, typ reflect.Type) (plain, strict []byte) {
	t.Helper()
	root := typ
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	w := walker{mapper: mapper(root)}
	if err := w.walk(root, "", nil); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	rec := map[string]bool{}
	for _, n := range w.recursiveNames() {
		rec[n] = true
	}
	raw, err := json.Marshal(reflectRoot(root, &w))
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	tree, err := jsonnode.Parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	p := tidy(refShapeRoot(tree.(*jsonnode.Object), rec)).(*jsonnode.Object)
	return jsonnode.Marshal(p), jsonnode.Marshal(refStrictVariant(jsonnode.Clone(p).(*jsonnode.Object)))
}

func refShapeRoot(s *jsonnode.Object, recursive map[string]bool) *jsonnode.Object {
	defs := map[string]*jsonnode.Object{}
	if d, ok := s.Get("$defs"); ok {
		for _, m := range d.(*jsonnode.Object).Members {
			defs[m.Key] = m.Value.(*jsonnode.Object)
		}
	}
	root := s
	if ref, ok := s.Get("$ref"); ok {
		root = jsonnode.Clone(defs[defName(ref.(string))]).(*jsonnode.Object)
	}
	root.Delete("$schema")
	root.Delete("$id")
	root.Delete("$defs")
	root.Delete("$ref")
	kept := &jsonnode.Object{}
	var inline func(v any) any
	inline = func(v any) any {
		switch v := v.(type) {
		case *jsonnode.Object:
			if ref, ok := v.Get("$ref"); ok {
				name := defName(fmt.Sprint(ref))
				if def, ok := defs[name]; ok && !recursive[name] {
					body := inline(jsonnode.Clone(def)).(*jsonnode.Object)
					for _, m := range v.Members {
						if m.Key != "$ref" {
							body.Set(m.Key, inline(m.Value))
						}
					}
					return body
				}
				if _, seen := kept.Get(name); !seen && defs[name] != nil {
					kept.Set(name, nil)
					kept.Set(name, inline(jsonnode.Clone(defs[name])))
				}
				return v
			}
			subschemas(v, inline)
		}
		return v
	}
	root = inline(root).(*jsonnode.Object)
	out := &jsonnode.Object{}
	out.Set("type", "object")
	if p, ok := root.Get("properties"); ok {
		out.Set("properties", p)
	} else {
		out.Set("properties", &jsonnode.Object{})
	}
	if r, ok := root.Get("required"); ok {
		out.Set("required", r)
	} else {
		out.Set("required", []any{})
	}
	out.Set("additionalProperties", false)
	for _, m := range root.Members {
		switch m.Key {
		case "type", "properties", "required", "additionalProperties":
		default:
			out.Set(m.Key, m.Value)
		}
	}
	if len(kept.Members) > 0 {
		out.Set("$defs", kept)
	}
	return out
}

func refStrictVariant(s *jsonnode.Object) *jsonnode.Object {
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case *jsonnode.Object:
			if p, _ := v.Get("properties"); p != nil {
				if props, ok := p.(*jsonnode.Object); ok {
					required := map[string]bool{}
					if r, ok := v.Get("required"); ok {
						l, _ := r.([]any)
						for _, name := range l {
							required[fmt.Sprint(name)] = true
						}
					}
					all := make([]any, 0, len(props.Members))
					for i, m := range props.Members {
						all = append(all, m.Key)
						if !required[m.Key] {
							props.Members[i].Value = nullable(m.Value)
						}
					}
					v.Set("required", all)
				}
			}
			subschemas(v, func(x any) any { visit(x); return x })
		}
	}
	visit(s)
	return s
}

// Types beyond the golden ones, for what invopop does less often.
type (
	refExtras struct {
		X int      `json:"x" jsonschema_extras:"a=1,b=true,minimum=5,c=x,c=y"`
		Y string   `json:"y,omitempty" jsonschema:"oneof_type=string;integer"`
		Z *int     `json:"z" jsonschema:"nullable"`
		H string   `json:"h" jsonschema:"description=<b>&amp; \"q\" é\u2028,title=t\\,x"`
		E []string `json:"e,omitempty" jsonschema:"enum=a,enum=b,default=c"`
		F []bool   `json:"f,omitempty" jsonschema:"uniqueItems=true"`
	}
	refOwn   struct{ A int }
	refEmpty struct{ A int }
	refKinds struct {
		IP    net.IP            `json:"ip"`
		ByInt map[int]string    `json:"by_int,omitempty"`
		ByU   map[uint8]refOwn  `json:"by_u,omitempty"`
		Quad  [4]byte           `json:"quad"`
		Text  SchemaRGB         `json:"text"`
		Own   refOwn            `json:"own"`
		Empty refEmpty          `json:"empty,omitempty"`
		Ptrs  []*TreeNode       `json:"ptrs"`
		Emb   *SchemaPaging     `json:"emb"`
		Gen   SchemaPage[int]   `json:"gen"`
		Gen2  SchemaPage[bool]  `json:"gen2,omitempty"`
		Many  map[string][]*int `json:"many"`
	}
	refEmbedPtr struct {
		*SchemaAudit
		Employee
	}
)

func (refOwn) JSONSchema() *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("a", &jsonschema.Schema{Type: "integer", Minimum: "0.5"})
	return &jsonschema.Schema{
		Type: "object", Properties: props, Required: []string{"a"},
		Extras:      map[string]any{"x-kind": "own", "x-n": 2},
		Definitions: jsonschema.Definitions{"inner": {Type: "string"}},
	}
}

func (refEmpty) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Const = map[string]any{"k": []any{1.25, "v"}}
	s.Examples = []any{json.Number("10"), nil}
}

func TestMatchesFormerPipeline(t *testing.T) {
	t.Parallel()
	types := []reflect.Type{
		reflect.TypeFor[refExtras](), reflect.TypeFor[refKinds](), reflect.TypeFor[refEmbedPtr](),
		reflect.TypeFor[*TreeNode](),
	}
	for _, tc := range goldenCases() {
		types = append(types, tc.typ)
	}
	for _, typ := range slices.Compact(types) {
		plain, strict := referenceBuild(t, typ)
		ts, err := Build(typ)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if !bytes.Equal(ts.Plain, plain) {
			t.Errorf("%s: plain\n%s\nwant\n%s", typ, ts.Plain, plain)
		}
		if got, _ := ts.Strict(); !bytes.Equal(got, strict) {
			t.Errorf("%s: strict\n%s\nwant\n%s", typ, got, strict)
		}
	}
}
