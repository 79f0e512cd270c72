package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// MaxDepth bounds the nesting of arguments the checker walks.
const MaxDepth = 10000

// maxViolations bounds the report sent to the model.
const maxViolations = 10

// CheckedFormats lists the formats the checker enforces; every other
// format is an annotation.
var CheckedFormats = []string{"date-time", "date", "time", "uuid", "ipv4", "ipv6"}

// A Violation is one way the arguments break the schema.
type Violation struct {
	Path    string // e.g. "options.days" or "tags[2]"; empty for the whole value
	Rule    string // the schema keyword, e.g. "type", "required"; "syntax" for malformed JSON
	Message string // for the model, e.g. "must be <= 14"
}

// A SchemaError is a schema Compile refuses: a keyword it cannot enforce
// or a keyword value that is malformed.
type SchemaError struct {
	Field   string // path of the subschema, e.g. "options.days"; "" for the root
	Keyword string // the keyword refused; "" when the subschema itself is malformed
	Reason  string
}

// Error reads "parameter FIELD: keyword \"KEYWORD\": REASON", leaving out the
// parts that are empty.
func (e *SchemaError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString("parameter ")
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Keyword != "" {
		b.WriteString("keyword ")
		b.WriteString(strconv.Quote(e.Keyword))
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// A Schema is a compiled schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	root *node
}

// Compile parses and compiles a schema.
func Compile(schema []byte) (*Schema, error) {
	tree, err := jsonnode.Parse(schema)
	if err != nil {
		return nil, &SchemaError{Reason: "schema is not valid JSON: " + err.Error()}
	}
	return CompileTree(tree)
}

// CompileTree compiles a schema tree as jsonnode.Parse returns it. The
// tree is not modified and not retained.
func CompileTree(tree any) (*Schema, error) {
	c := &compiler{root: tree, estimate: schemaCount(tree, 0)}
	c.nodes = make([]*node, 0, c.estimate)
	c.srcs = make([]*jsonnode.Object, 0, c.estimate)
	if o, ok := tree.(*jsonnode.Object); ok {
		if v, ok := o.Get("$schema"); ok {
			s, _ := v.(string)
			switch strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://"), "#") {
			case "json-schema.org/draft/2020-12/schema":
			case "json-schema.org/draft-07/schema":
				c.draft7 = true
			default:
				return nil, &SchemaError{Keyword: "$schema", Reason: fmt.Sprintf("unsupported dialect %s; use \"https://json-schema.org/draft/2020-12/schema\" or \"http://json-schema.org/draft-07/schema#\"", jsonText(v))}
			}
		}
	}
	root, err := c.compile(tree, "", true)
	if err != nil {
		return nil, err
	}
	for len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		if err := c.resolveRef(p); err != nil {
			return nil, err
		}
	}
	if err := c.cycles(); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}
