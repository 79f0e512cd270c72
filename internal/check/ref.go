package check

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// resolveRef points a $ref at its target, compiling the target if no
// keyword reached it.
func (c *compiler) resolveRef(p pendingRef) error {
	fail := func(format string, args ...any) error {
		return &SchemaError{Field: p.path, Keyword: "$ref", Reason: fmt.Sprintf(format, args...)}
	}
	if !strings.HasPrefix(p.ref, "#") {
		return fail("remote reference %q is not supported; only local references such as \"#/$defs/Name\" are", p.ref)
	}
	frag, err := url.PathUnescape(p.ref[1:])
	if err != nil {
		return fail("reference %q is not a valid JSON pointer", p.ref)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return fail("anchor reference %q is not supported; use a JSON pointer such as \"#/$defs/Name\"", p.ref)
	}
	cur := c.root
	var steps []string
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch v := cur.(type) {
			case *jsonnode.Object:
				next, ok := v.Get(tok)
				if !ok {
					return fail("reference %q points to nothing in this schema", p.ref)
				}
				cur = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v) || tok != strconv.Itoa(i) {
					return fail("reference %q points to nothing in this schema", p.ref)
				}
				cur = v[i]
			default:
				return fail("reference %q points to nothing in this schema", p.ref)
			}
			steps = append(steps, tok)
		}
	}
	switch cur := cur.(type) {
	case *jsonnode.Object:
		c.compiled(cur) // index the nodes compiled so far, so compile finds them
	case bool:
	default:
		return fail("reference %q points to a value of type %s, not to a schema", p.ref, kindOf(cur))
	}
	target, err := c.compile(cur, strings.Join(steps, "."), false)
	if err != nil {
		return err
	}
	if p.alias {
		p.n.ref = target
	} else {
		// 2020-12: $ref is one more assertion next to its siblings.
		p.n.allOf = append(p.n.allOf, target)
		p.n.composite = true
	}
	return nil
}

// cycles refuses schemas whose subschemas apply to the same value in a
// loop ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas):
// checking any value would never end.
func (c *compiler) cycles() error {
	if !slices.ContainsFunc(c.nodes, appliesOthers) {
		return nil // no subschema applies to the value of another
	}
	state := map[*node]int{} // 1 on the stack, 2 done
	var stack []*node
	var visit func(n *node) error
	visit = func(n *node) error {
		switch state[n] {
		case 1:
			for i := len(stack) - 1; i >= 0; i-- {
				if m := stack[i]; m.refTo != "" {
					return &SchemaError{Field: m.path, Keyword: "$ref", Reason: fmt.Sprintf("reference %q loops back to itself without reading any input", m.refTo)}
				}
				if stack[i] == n {
					break
				}
			}
			return &SchemaError{Field: n.path, Reason: "subschemas loop back to themselves without reading any input"}
		case 2:
			return nil
		}
		state[n] = 1
		stack = append(stack, n)
		next := []*node{n.ref, n.not, n.ifS, n.thenS, n.elseS}
		next = append(next, n.allOf...)
		next = append(next, n.anyOf...)
		next = append(next, n.oneOf...)
		for _, d := range n.depSchemas {
			next = append(next, d.n)
		}
		for _, m := range next {
			if m != nil {
				if err := visit(m); err != nil {
					return err
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		return nil
	}
	for _, n := range c.nodes {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// appliesOthers reports whether subschemas of n apply to the same value
// as n.
func appliesOthers(n *node) bool {
	return n.ref != nil || n.not != nil || n.ifS != nil || n.thenS != nil || n.elseS != nil ||
		len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || len(n.depSchemas) > 0
}

// compilePattern compiles a pattern with RE2, explaining refusals.
func compilePattern(p string) (*regexp.Regexp, string) {
	re, err := regexp.Compile(p)
	if err == nil {
		return re, ""
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		lookaround := (se.Code == syntax.ErrInvalidPerlOp || se.Code == syntax.ErrInvalidNamedCapture) &&
			(strings.HasPrefix(se.Expr, "(?=") || strings.HasPrefix(se.Expr, "(?!") ||
				strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!"))
		backref := se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && (se.Expr[1] >= '1' && se.Expr[1] <= '9' || se.Expr[1] == 'k')
		if lookaround || backref {
			return nil, fmt.Sprintf("pattern \"%s\" is not supported: Go's regexp (RE2) has no lookahead, lookbehind or backreferences; write it without them", p)
		}
		return nil, fmt.Sprintf("pattern \"%s\" is not supported: Go's regexp (RE2) rejects it: %s: %s", p, se.Code, se.Expr)
	}
	return nil, fmt.Sprintf("pattern \"%s\" is not supported: %v", p, err)
}
