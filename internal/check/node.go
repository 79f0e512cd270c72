package check

import (
	"math/bits"
	"regexp"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

const (
	tObject = 1 << iota
	tArray
	tString
	tInteger
	tNumber
	tBoolean
	tNull
)

const (
	fmtNone = iota
	fmtDateTime
	fmtDate
	fmtTime
	fmtUUID
	fmtIPv4
	fmtIPv6
)

// A node is one compiled subschema. Limits are -1 when absent.
type node struct {
	never bool // the schema false
	types int  // bit set of t*; 0 means any type

	// objects
	props      map[string]*node
	patProps   []patProp
	addl       *node // schema for other properties; nil means any
	noAddl     bool  // additionalProperties: false
	propNames  *node
	required   []string
	depReq     []depReq
	depSchemas []depSchema
	track      map[string]int // names whose presence matters, by index
	reqIdx     []int
	minProps   int
	maxProps   int

	// arrays
	items       *node
	prefix      []*node
	minItems    int
	maxItems    int
	unique      bool
	contains    *node
	minContains int
	maxContains int

	// any type
	enum     []jvalue
	isConst  bool
	enumData any // the enum's array or the const's value, for the message

	// numbers
	min, max, xmin, xmax *bound
	multipleOf           *bound

	// strings
	minLen  int
	maxLen  int
	pattern *regexp.Regexp
	format  int

	// subschemas applied to the same value
	allOf, anyOf, oneOf []*node
	not, ifS, thenS     *node
	elseS               *node
	composite           bool

	ref   *node // a node that is only a $ref stands for its target
	refTo string
	path  string
}

type patProp struct {
	re *regexp.Regexp
	n  *node
}

type depReq struct {
	key   int // index in track
	text  string
	names []string
	idx   []int // of names, in track
}

type depSchema struct {
	key int
	n   *node
}

func newNode() *node {
	return &node{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1,
		minContains: -1, maxContains: -1, minLen: -1, maxLen: -1}
}

// resolve follows $ref aliases; Compile refused cycles.
func resolve(n *node) *node {
	for n != nil && n.ref != nil {
		n = n.ref
	}
	return n
}

// leaf returns the node shared by every schema that only names a type, or
// allows anything, such as most of a Go struct's fields have: nodes are
// not changed once compiled, and these have no path a message could show.
// It returns nil for any other schema.
func leaf(o *jsonnode.Object) *node {
	switch len(o.Members) {
	case 0:
		return anyNode
	case 1:
		if m := o.Members[0]; m.Key == "type" {
			if name, ok := m.Value.(string); ok {
				if bit := typeBit(name); bit != 0 {
					return typeNodes[bits.Len(uint(bit))-1]
				}
			}
		}
	}
	return nil
}

// leafOf is leaf for a schema of any form.
func leafOf(v any) *node {
	if o, ok := v.(*jsonnode.Object); ok {
		return leaf(o)
	}
	return nil
}

var (
	anyNode = newNode()
	// typeNodes are by the highest bit of the type's bits.
	typeNodes = func() (ns [7]*node) {
		for _, name := range []string{"object", "array", "string", "integer", "number", "boolean", "null"} {
			n := newNode()
			n.types = typeBit(name)
			ns[bits.Len(uint(n.types))-1] = n
		}
		return ns
	}()
)

func typeBit(name string) int {
	switch name {
	case "object":
		return tObject
	case "array":
		return tArray
	case "string":
		return tString
	case "integer":
		return tInteger
	case "number":
		return tNumber | tInteger
	case "boolean":
		return tBoolean
	case "null":
		return tNull
	}
	return 0
}

func formatCode(s string) int {
	switch s {
	case "date-time":
		return fmtDateTime
	case "date":
		return fmtDate
	case "time":
		return fmtTime
	case "uuid":
		return fmtUUID
	case "ipv4":
		return fmtIPv4
	case "ipv6":
		return fmtIPv6
	}
	return fmtNone
}
