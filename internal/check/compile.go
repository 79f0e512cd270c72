package check

import (
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

type compiler struct {
	root     any
	draft7   bool
	nodes    []*node
	srcs     []*jsonnode.Object // the object each of nodes was compiled from
	memo     map[*jsonnode.Object]*node
	slab     []node
	estimate int // schemaCount of root
	pending  []pendingRef
}

// newNode returns a new node. The nodes of one schema are allocated
// together, as they live and die together: c.slab has room for the
// schemas the tree holds, as far as schemaCount knows.
func (c *compiler) newNode() *node {
	if len(c.slab) == cap(c.slab) {
		size := 8 // the estimate was short
		if c.slab == nil {
			size = min(max(c.estimate, 1), 64)
		}
		c.slab = make([]node, 0, size)
	}
	c.slab = c.slab[:len(c.slab)+1]
	n := &c.slab[len(c.slab)-1]
	n.minProps, n.maxProps, n.minItems, n.maxItems = -1, -1, -1, -1
	n.minContains, n.maxContains, n.minLen, n.maxLen = -1, -1, -1, -1
	return n
}

// compiled returns the node compiled from o, if any. A tree reaches an
// object twice only through a $ref, so the index is made for the first.
func (c *compiler) compiled(o *jsonnode.Object) (*node, bool) {
	if c.memo == nil {
		c.memo = make(map[*jsonnode.Object]*node, len(c.srcs))
		for i, src := range c.srcs {
			c.memo[src] = c.nodes[i]
		}
	}
	n, ok := c.memo[o]
	return n, ok
}

type pendingRef struct {
	n     *node
	ref   string
	path  string
	alias bool
}

func join(path, step string) string {
	switch {
	case path == "":
		return step
	case strings.HasPrefix(step, "["):
		return path + step
	}
	return path + "." + step
}

func jsonText(v any) string { return string(jsonnode.Marshal(v)) }

func kindOf(v any) string {
	switch v.(type) {
	case *jsonnode.Object:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

func (c *compiler) compile(v any, path string, isRoot bool) (*node, error) {
	switch v := v.(type) {
	case bool:
		n := c.newNode()
		n.never = !v
		n.path = path
		return n, nil
	case *jsonnode.Object:
		if c.memo != nil {
			if n, ok := c.memo[v]; ok {
				return n, nil
			}
		}
		if n := leaf(v); n != nil {
			return n, nil
		}
		n := c.newNode()
		n.path = path
		if c.memo != nil {
			c.memo[v] = n
		}
		c.nodes = append(c.nodes, n)
		c.srcs = append(c.srcs, v)
		st := &objCompile{}
		var seen map[string]bool // for objects too large to scan
		if len(v.Members) > 16 {
			seen = make(map[string]bool, len(v.Members))
		}
		for i, m := range v.Members {
			if repeated(v.Members, i, seen) {
				return nil, &SchemaError{Field: path, Keyword: m.Key, Reason: "keyword appears twice"}
			}
			if err := c.keyword(n, st, m.Key, m.Value, path, isRoot); err != nil {
				return nil, err
			}
		}
		return n, c.finish(n, st, path)
	}
	return nil, &SchemaError{Field: path, Reason: "a schema must be an object or a boolean, got " + kindOf(v)}
}

// schemaCount estimates the number of schema objects in v that compile
// makes nodes for, to size the slab of nodes.
func schemaCount(v any, depth int) int {
	o, ok := v.(*jsonnode.Object)
	if !ok || depth > 64 {
		return 0
	}
	if leaf(o) != nil {
		return 0
	}
	n := 1
	for _, m := range o.Members {
		switch x := m.Value.(type) {
		case *jsonnode.Object:
			switch m.Key {
			case "properties", "$defs", "definitions", "patternProperties", "dependentSchemas", "dependencies":
				for _, p := range x.Members {
					n += schemaCount(p.Value, depth+1)
				}
			case "enum", "const", "default", "examples":
			default:
				n += schemaCount(x, depth+1)
			}
		case []any:
			switch m.Key {
			case "allOf", "anyOf", "oneOf", "prefixItems", "items":
				for _, e := range x {
					n += schemaCount(e, depth+1)
				}
			}
		}
	}
	return n
}

// repeated reports whether an earlier member of ms has the key of ms[i];
// seen, if not nil, holds the keys of the earlier members, and gets this
// one.
func repeated(ms []jsonnode.Member, i int, seen map[string]bool) bool {
	key := ms[i].Key
	if seen != nil {
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	}
	for _, m := range ms[:i] {
		if m.Key == key {
			return true
		}
	}
	return false
}

func listText(a []any) string {
	var b strings.Builder
	for i, x := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonText(x))
	}
	return b.String()
}
