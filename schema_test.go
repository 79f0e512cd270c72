package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
)

// Golden schemas (S4): one file per supported type shape under
// testdata/schema, pretty-printed with a two-space indent and a trailing
// newline. Rewrite them with
//
//	go test . -run Schema -update
var update = flag.Bool("update", false, "rewrite golden files under testdata/schema")

const schemaGoldenDir = "testdata/schema"

// The argument types below cover the parameter types of T3, the
// annotations of T4 and the optionality rule of T5.

// schemaScalars has one field of every scalar kind. uintptr is left out:
// encoding/json handles it, but SchemaFor currently fails on it.
type schemaScalars struct {
	String  string  `json:"string"`
	Bool    bool    `json:"bool"`
	Int     int     `json:"int"`
	Int8    int8    `json:"int8"`
	Int16   int16   `json:"int16"`
	Int32   int32   `json:"int32"`
	Int64   int64   `json:"int64"`
	Uint    uint    `json:"uint"`
	Uint8   uint8   `json:"uint8"`
	Uint16  uint16  `json:"uint16"`
	Uint32  uint32  `json:"uint32"`
	Uint64  uint64  `json:"uint64"`
	Float32 float32 `json:"float32"`
	Float64 float64 `json:"float64"`
}

type (
	SchemaCelsius float64
	SchemaCount   int
	SchemaSwitch  bool
	SchemaSlug    string
	SchemaSlugs   []SchemaSlug
	SchemaIndex   map[string]SchemaCount
)

// SchemaPage is generic, so its reflected name carries its type argument.
type SchemaPage[T any] struct {
	Items []T  `json:"items"`
	More  bool `json:"more"`
}

// schemaNamedTypes has named (defined) types over the basic kinds: they
// take the schema of their underlying type.
type schemaNamedTypes struct {
	Temp  SchemaCelsius             `json:"temp"`
	Count SchemaCount               `json:"count"`
	On    SchemaSwitch              `json:"on"`
	Slug  SchemaSlug                `json:"slug"`
	Slugs SchemaSlugs               `json:"slugs"`
	Index SchemaIndex               `json:"index"`
	Page  SchemaPage[SchemaCelsius] `json:"page"`
}

// schemaCollections has slices and arrays.
type schemaCollections struct {
	Tags   []string   `json:"tags"`
	Scores []float64  `json:"scores"`
	Matrix [][]int    `json:"matrix"`
	Point  [3]float64 `json:"point"`
	Flags  [2]bool    `json:"flags"`
	Refs   []*int     `json:"refs"`
	Blob   []byte     `json:"blob"`
}

type schemaPoint struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// schemaMaps has maps with string keys (and integer keys, which
// encoding/json also writes as strings).
type schemaMaps struct {
	Labels map[string]string          `json:"labels"`
	Counts map[string]int             `json:"counts,omitempty"`
	Groups map[string][]string        `json:"groups"`
	Nested map[string]map[string]bool `json:"nested"`
	Places map[string]schemaPoint     `json:"places"`
	ByID   map[int]string             `json:"by_id,omitempty"`
}

// schemaPointers: a pointer does not make a field optional (T5), only
// omitempty or omitzero does.
type schemaPointers struct {
	Name   *string      `json:"name"`
	Count  *int         `json:"count,omitempty"`
	Point  *schemaPoint `json:"point"`
	Origin *schemaPoint `json:"origin,omitempty"`
	Deep   **bool       `json:"deep"`
	Tags   *[]string    `json:"tags,omitzero"`
}

type schemaAddress struct {
	Street string `json:"street"`
	City   string `json:"city"`
	Zip    string `json:"zip,omitempty"`
}

// schemaNested uses one struct type twice and an anonymous struct: all
// are inlined, none goes to $defs (S1).
type schemaNested struct {
	Name string         `json:"name"`
	Home schemaAddress  `json:"home"`
	Work *schemaAddress `json:"work,omitempty"`
	Meta struct {
		Source string   `json:"source"`
		Tags   []string `json:"tags,omitempty"`
	} `json:"meta"`
}

type SchemaAudit struct {
	CreatedBy string `json:"created_by"`
	Note      string `json:"note,omitempty"`
}

type SchemaPaging struct {
	Page int `json:"page,omitempty"`
	Size int `json:"size,omitempty"`
}

type schemaStamps struct {
	Version int `json:"version"`
}

type SchemaOwner struct {
	ID string `json:"id"`
}

// schemaEmbedded embeds structs the ways encoding/json knows: promoted
// fields of a value, of a pointer and of an unexported type, a tagged
// embedded struct that stays one property, and an outer field that hides
// a promoted one of the same name.
type schemaEmbedded struct {
	SchemaAudit
	*SchemaPaging
	schemaStamps
	SchemaOwner `json:"owner"`
	Query       string `json:"query"`
	Note        string `json:"note"`
}

type schemaOptions struct {
	Verbose bool   `json:"verbose,omitempty"`
	Lang    string `json:"lang"`
}

// schemaOptional mixes required and optional fields (T5).
type schemaOptional struct {
	Query   string         `json:"query"`
	Limit   int            `json:"limit,omitempty"`
	Since   time.Time      `json:"since,omitzero"`
	Filter  *schemaAddress `json:"filter,omitempty"`
	Sort    []string       `json:"sort,omitempty"`
	Options schemaOptions  `json:"options,omitzero"`
	Exact   bool           `json:"exact"`
	Cursor  *string        `json:"cursor"`
	Extra   string         `json:",omitempty"`
}

type SchemaColor string

// SchemaPriority carries its enum on the type itself.
type SchemaPriority string

func (SchemaPriority) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Enum = []any{"low", "normal", "high"}
	s.Description = "How urgent the task is"
}

type schemaEnum struct {
	Color    SchemaColor    `json:"color" jsonschema:"enum=red,enum=green,enum=blue"`
	Size     string         `json:"size,omitempty" jsonschema:"enum=S,enum=M,enum=L"`
	Level    int            `json:"level" jsonschema:"enum=1,enum=2,enum=3"`
	Ratio    float64        `json:"ratio,omitempty" jsonschema:"enum=0.5,enum=1"`
	Priority SchemaPriority `json:"priority"`
	Later    SchemaPriority `json:"later,omitempty"`
}

// SchemaGeo describes itself; a field's own description wins over it.
type SchemaGeo struct {
	Lat float64 `json:"lat" jsonschema:"description=Latitude in degrees"`
	Lng float64 `json:"lng" jsonschema:"description=Longitude in degrees"`
}

func (SchemaGeo) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Description = "A point on Earth"
}

type schemaPostal struct {
	Street  string `json:"street" jsonschema:"description=Street and number"`
	Country struct {
		Code string `json:"code" jsonschema:"description=ISO 3166-1 alpha-2 code"`
	} `json:"country" jsonschema:"description=Country of the address"`
}

// schemaDescribed has descriptions on fields, on nested types and on
// their fields, recursively (T4).
type schemaDescribed struct {
	Email   string       `json:"email" jsonschema:"description=Primary e-mail address"`
	Phone   string       `json:"phone,omitempty" jsonschema_description:"Phone number, with country code"`
	Name    string       `json:"name" jsonschema:"description=Full name\\, as printed"`
	Address schemaPostal `json:"address" jsonschema:"description=Postal address of the contact"`
	Geo     SchemaGeo    `json:"geo"`
	Alt     SchemaGeo    `json:"alt,omitempty" jsonschema:"description=Alternative location"`
}

// schemaConstraints has the validation keywords of T4.
type schemaConstraints struct {
	Name    string   `json:"name" jsonschema:"minLength=1,maxLength=64,pattern=^[a-z][a-z0-9_]*$"`
	Email   string   `json:"email" jsonschema:"format=email"`
	Site    string   `json:"site,omitempty" jsonschema:"format=uri"`
	Day     string   `json:"day,omitempty" jsonschema:"format=date"`
	Age     int      `json:"age" jsonschema:"minimum=0,maximum=150"`
	Score   float64  `json:"score,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1,default=0.5"`
	Step    int      `json:"step,omitempty" jsonschema:"multipleOf=5,default=10"`
	Lang    string   `json:"lang,omitempty" jsonschema:"default=en,example=de,example=fr"`
	Tags    []string `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=5,uniqueItems=true"`
	Verbose bool     `json:"verbose,omitempty" jsonschema:"default=false"`
	Title   string   `json:"title,omitempty" jsonschema:"title=Display title"`
}

type schemaLineItem struct {
	SKU  string `json:"sku" jsonschema:"description=Stock keeping unit"`
	Qty  int    `json:"qty" jsonschema:"minimum=1"`
	Note string `json:"note,omitempty"`
}

type schemaOrder struct {
	Items []schemaLineItem    `json:"items" jsonschema:"minItems=1"`
	Gifts []*schemaLineItem   `json:"gifts,omitempty"`
	Pairs [2]schemaLineItem   `json:"pairs,omitzero"`
	Lots  [][]schemaLineItem  `json:"lots,omitempty"`
	Inner []struct{ N int }   `json:"inner,omitempty"`
	ByKey map[string][]string `json:"by_key,omitempty"`
}

// schemaAny has free-form values.
type schemaAny struct {
	Value any            `json:"value"`
	Opt   any            `json:"opt,omitempty"`
	Meta  map[string]any `json:"meta,omitempty"`
	List  []any          `json:"list"`
}

type schemaRaw struct {
	Payload json.RawMessage   `json:"payload"`
	Extra   json.RawMessage   `json:"extra,omitempty"`
	Parts   []json.RawMessage `json:"parts,omitempty"`
}

type schemaTime struct {
	At     time.Time   `json:"at" jsonschema:"description=When it happens"`
	Until  *time.Time  `json:"until,omitempty"`
	Window []time.Time `json:"window,omitempty"`
}

type schemaDuration struct {
	Timeout time.Duration   `json:"timeout"`
	Every   *time.Duration  `json:"every,omitempty"`
	Steps   []time.Duration `json:"steps,omitempty"`
	Delay   time.Duration   `json:"delay,omitempty" jsonschema:"description=How long to wait\\, e.g. 1m30s"`
}

// SchemaLatLng has its own JSON Schema (invopop's JSONSchema method): it
// travels as "lat,lng".
type SchemaLatLng struct{ Lat, Lng float64 }

func (SchemaLatLng) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Description: "Latitude and longitude, e.g. 48.85,2.35",
		Pattern:     `^-?[0-9.]+,-?[0-9.]+$`,
	}
}

func (l *SchemaLatLng) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	_, err := fmt.Sscanf(s, "%g,%g", &l.Lat, &l.Lng)
	return err
}

type schemaCustom struct {
	Where SchemaLatLng   `json:"where"`
	Stops []SchemaLatLng `json:"stops,omitempty"`
}

// SchemaMoney implements json.Unmarshaler but has no schema of its own:
// it travels as "12.50 EUR".
type SchemaMoney struct {
	cents    int64
	currency string
}

func (m *SchemaMoney) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	var units, cents int64
	_, err := fmt.Sscanf(s, "%d.%d %s", &units, &cents, &m.currency)
	m.cents = units*100 + cents
	return err
}

// SchemaRGB is read from text ("#ff8800"), as encoding/json does for a
// TextUnmarshaler, so its schema is a string.
type SchemaRGB struct{ R, G, B uint8 }

func (c *SchemaRGB) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "#%02x%02x%02x", &c.R, &c.G, &c.B)
	return err
}

type schemaUnmarshaler struct {
	Price SchemaMoney `json:"price" jsonschema:"description=an amount like 12.50 EUR"`
	Color SchemaRGB   `json:"color,omitempty"`
}

// TreeNode refers to itself: it is the one kind of type kept in $defs.
type TreeNode struct {
	Name     string     `json:"name"`
	Children []TreeNode `json:"children,omitempty"`
	Link     *TreeNode  `json:"link,omitempty"`
}

type schemaRecursive struct {
	Root  TreeNode `json:"root"`
	Depth int      `json:"depth,omitempty"`
}

// Employee and Department refer to each other.
type Employee struct {
	Name string      `json:"name"`
	Dept *Department `json:"dept,omitempty"`
}

type Department struct {
	Title string     `json:"title"`
	Head  *Employee  `json:"head,omitempty"`
	Staff []Employee `json:"staff"`
}

type schemaMutual struct {
	Org Department `json:"org"`
}

// schemaJSONTags follows encoding/json's naming rules.
type schemaJSONTags struct {
	Renamed string `json:"renamed_field"`
	NoTag   string
	Skipped string `json:"-"`
	//lint:ignore U1000 unexported fields are not parameters
	hidden   string
	AsString int    `json:"as_string,string"`
	OnlyOpts string `json:",omitempty"`
}

// schemaKeywords has properties named like JSON Schema keywords: they
// stay properties, in their order, and are never taken for keywords.
type schemaKeywords struct {
	Type                 string            `json:"type"`
	Description          string            `json:"description,omitempty"`
	Enum                 []string          `json:"enum,omitempty"`
	Items                []int             `json:"items"`
	Required             bool              `json:"required"`
	Default              string            `json:"default,omitempty"`
	Format               string            `json:"format"`
	AdditionalProperties map[string]string `json:"additionalProperties,omitempty"`
	Defs                 string            `json:"$defs,omitempty"`
	Properties           []string          `json:"properties,omitempty"`
	Ref                  *schemaRefNamed   `json:"$ref,omitempty"`
	AnyOf                int               `json:"anyOf"`
}

// schemaRefNamed is nested under a property named "$ref" and has its own
// "properties" and "required" fields.
type schemaRefNamed struct {
	Properties map[string]int `json:"properties"`
	Required   []string       `json:"required,omitempty"`
}

// schemaBooking is the argument of a function tool (T6).
type schemaBooking struct {
	From       string `json:"from" jsonschema:"description=IATA code of the departure airport,pattern=^[A-Z]{3}$"`
	To         string `json:"to" jsonschema:"description=IATA code of the arrival airport,pattern=^[A-Z]{3}$"`
	Date       string `json:"date" jsonschema:"format=date"`
	Passengers int    `json:"passengers,omitempty" jsonschema:"minimum=1,maximum=9,default=1"`
	Class      string `json:"class,omitempty" jsonschema:"enum=economy,enum=business"`
}

func bookFlight(_ context.Context, in schemaBooking) (string, error) {
	return in.From + "-" + in.To, nil
}

// SchemaUnits has a method tool with positional parameters named by the
// params tag (T2); its ToolContext parameter never shows in the schema.
// The description of precision has a comma on purpose: the params syntax
// allows it.
type SchemaUnits struct {
	_ toolcall.Method `tool:"Convert" description:"Convert a quantity between units" params:"value: the quantity to convert; from: unit of value; to: target unit; precision?: decimal places, default 2"`
	_ toolcall.Method `tool:"Units" description:"List the known units"`
}

func (SchemaUnits) Convert(_ context.Context, value float64, from, to string, _ toolcall.ToolContext, precision int) (string, error) {
	return fmt.Sprintf("%.*f %s", precision, value, to), nil
}

func (SchemaUnits) Units() []string { return []string{"m", "ft"} }

var convertParams = []string{"value: the quantity to convert", "from: unit of value", `to: target unit, e.g. "ft"`, "precision?: decimal places, default 2"}

// plainSchema and strictSchema return the schemas of T.
func plainSchema[T any]() func() (json.RawMessage, error) {
	return func() (json.RawMessage, error) {
		var v T
		return toolcall.SchemaFor(v)
	}
}

func strictSchema[T any]() func() (json.RawMessage, error) {
	return func() (json.RawMessage, error) {
		var v T
		return toolcall.StrictSchemaFor(v)
	}
}

// toolSchema returns the input schema of the tool that build makes, after
// checking that the definition's Strict flag is strict.
func toolSchema(strict bool, build func() (toolcall.Tool, error)) func() (json.RawMessage, error) {
	return func() (json.RawMessage, error) {
		tool, err := build()
		if err != nil {
			return nil, err
		}
		if def := tool.Definition(); def.Strict != strict {
			return nil, fmt.Errorf("tool %s: Definition.Strict = %v, want %v", def.Name, def.Strict, strict)
		}
		return tool.Definition().InputSchema, nil
	}
}

// toolNamed picks a tool by name from a result of [toolcall.ToolsFrom].
func toolNamed(name string) func([]toolcall.Tool, error) (toolcall.Tool, error) {
	return func(tools []toolcall.Tool, err error) (toolcall.Tool, error) {
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			if t.Definition().Name == name {
				return t, nil
			}
		}
		return nil, fmt.Errorf("no tool %q", name)
	}
}

type schemaGoldenCase struct {
	name   string // the golden file is testdata/schema/<name>.json
	schema func() (json.RawMessage, error)
}

func schemaGoldenCases() []schemaGoldenCase {
	return []schemaGoldenCase{
		{name: "scalars", schema: plainSchema[schemaScalars]()},
		{name: "named_types", schema: plainSchema[schemaNamedTypes]()},
		{name: "slices_arrays", schema: plainSchema[schemaCollections]()},
		{name: "maps", schema: plainSchema[schemaMaps]()},
		{name: "maps_strict", schema: strictSchema[schemaMaps]()},
		{name: "pointers", schema: plainSchema[schemaPointers]()},
		{name: "pointers_strict", schema: strictSchema[schemaPointers]()},
		{name: "pointer_argument", schema: plainSchema[*schemaAddress]()},
		{name: "nested", schema: plainSchema[schemaNested]()},
		{name: "nested_strict", schema: strictSchema[schemaNested]()},
		{name: "embedded", schema: plainSchema[schemaEmbedded]()},
		{name: "optional", schema: plainSchema[schemaOptional]()},
		{name: "optional_strict", schema: strictSchema[schemaOptional]()},
		{name: "enum", schema: plainSchema[schemaEnum]()},
		{name: "enum_strict", schema: strictSchema[schemaEnum]()},
		{name: "descriptions", schema: plainSchema[schemaDescribed]()},
		{name: "constraints", schema: plainSchema[schemaConstraints]()},
		{name: "slice_of_structs", schema: plainSchema[schemaOrder]()},
		{name: "any", schema: plainSchema[schemaAny]()},
		{name: "any_strict", schema: strictSchema[schemaAny]()},
		{name: "raw_message", schema: plainSchema[schemaRaw]()},
		{name: "time", schema: plainSchema[schemaTime]()},
		{name: "duration", schema: plainSchema[schemaDuration]()},
		{name: "custom_schema", schema: plainSchema[schemaCustom]()},
		{name: "unmarshaler", schema: plainSchema[schemaUnmarshaler]()},
		{name: "recursive", schema: plainSchema[schemaRecursive]()},
		{name: "recursive_strict", schema: strictSchema[schemaRecursive]()},
		{name: "recursive_root", schema: plainSchema[TreeNode]()},
		{name: "mutual_recursion", schema: plainSchema[schemaMutual]()},
		{name: "mutual_recursion_strict", schema: strictSchema[schemaMutual]()},
		{name: "json_tags", schema: plainSchema[schemaJSONTags]()},
		{name: "keyword_names", schema: plainSchema[schemaKeywords]()},
		{name: "keyword_names_strict", schema: strictSchema[schemaKeywords]()},
		{name: "no_params", schema: toolSchema(false, func() (toolcall.Tool, error) {
			return toolNamed("Units")(toolcall.ToolsFrom(SchemaUnits{}))
		})},
		{name: "method_params", schema: toolSchema(false, func() (toolcall.Tool, error) {
			return toolNamed("Convert")(toolcall.ToolsFrom(SchemaUnits{}))
		})},
		{name: "method_params_strict", schema: toolSchema(true, func() (toolcall.Tool, error) {
			return toolcall.NewMethod(SchemaUnits{}, "Convert", toolcall.WithParams(convertParams...), toolcall.WithStrict(true))
		})},
		{name: "func_struct_arg", schema: toolSchema(false, func() (toolcall.Tool, error) {
			return toolcall.NewFunc("book_flight", "Book a flight", bookFlight)
		})},
		{name: "func_struct_arg_strict", schema: toolSchema(true, func() (toolcall.Tool, error) {
			return toolcall.NewFunc("book_flight", "Book a flight", bookFlight, toolcall.WithStrict(true))
		})},
	}
}

func goldenPath(name string) string { return filepath.Join(schemaGoldenDir, name+".json") }

// prettySchema is how a golden file holds a schema: indented by two
// spaces, keys in the order the library emits them, a trailing newline.
func prettySchema(raw json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	if *update {
		require.NoError(t, os.MkdirAll(schemaGoldenDir, 0o755))
	}
	for _, tc := range schemaGoldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := tc.schema()
			require.NoError(t, err)
			require.True(t, json.Valid(raw), "schema is not valid JSON: %s", raw)
			got, err := prettySchema(raw)
			require.NoError(t, err)
			path := goldenPath(tc.name)
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "missing golden file; run: go test . -run Schema -update")
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs from the generated schema (- golden, + generated); if the change is intended, run: go test . -run Schema -update\n%s",
					path, lineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff returns the lines that differ between a and b, marked "-" (only
// in a) and "+" (only in b), with two lines of context and "@@ golden
// line N" before each hunk.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		mark byte // ' ', '-' or '+'
		n    int  // line number in a
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', i + 1, x[i]})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] > lcs[i+1][j]):
			lines = append(lines, line{'+', i + 1, y[j]})
			j++
		default:
			lines = append(lines, line{'-', i + 1, x[i]})
			i++
		}
	}
	const context = 2
	var out strings.Builder
	last := -1 // index of the last line written
	for k, l := range lines {
		if l.mark == ' ' {
			continue
		}
		start := max(k-context, last+1)
		if start > last+1 || last < 0 {
			fmt.Fprintf(&out, "@@ golden line %d\n", lines[start].n)
		}
		for _, c := range lines[start:k] {
			fmt.Fprintf(&out, "  %s\n", c.text)
		}
		fmt.Fprintf(&out, "%c %s\n", l.mark, l.text)
		last = k
		for c := k + 1; c < len(lines) && c <= k+context && lines[c].mark == ' '; c++ {
			fmt.Fprintf(&out, "  %s\n", lines[c].text)
			last = c
		}
	}
	return out.String()
}

// TestSchemaGoldenFilesHaveRows makes sure every golden file is produced
// by a row of TestSchemaGolden, so none goes stale unnoticed. With
// -update, stale files are removed.
func TestSchemaGoldenFilesHaveRows(t *testing.T) {
	t.Parallel()
	rows := map[string]bool{}
	for _, tc := range schemaGoldenCases() {
		assert.False(t, rows[tc.name], "two rows are named %q", tc.name)
		rows[tc.name] = true
	}
	files, err := filepath.Glob(filepath.Join(schemaGoldenDir, "*"))
	require.NoError(t, err)
	for _, f := range files {
		name, ok := strings.CutSuffix(filepath.Base(f), ".json")
		if ok && rows[name] {
			continue
		}
		if *update && ok {
			require.NoError(t, os.Remove(f))
			continue
		}
		t.Errorf("%s is produced by no row of TestSchemaGolden; remove it or add a row", f)
	}
	assert.GreaterOrEqual(t, len(rows), 25, "S4 wants the schema of every supported shape pinned")
}

// emptyToolSchema is the exact input schema of a tool without parameters.
const emptyToolSchema = `{"type":"object","properties":{},"required":[],"additionalProperties":false}`

func TestSchemaNoParameters(t *testing.T) {
	t.Parallel()
	type onlyHidden struct {
		Skipped string `json:"-"`
		//lint:ignore U1000 never a parameter
		hidden int
	}
	for _, tc := range []struct {
		name   string
		schema func() (json.RawMessage, error)
	}{
		{name: "SchemaFor struct{}", schema: plainSchema[struct{}]()},
		{name: "StrictSchemaFor struct{}", schema: strictSchema[struct{}]()},
		{name: "SchemaFor *struct{}", schema: plainSchema[*struct{}]()},
		{name: "no exported fields", schema: plainSchema[onlyHidden]()},
		{name: "method without parameters", schema: toolSchema(false, func() (toolcall.Tool, error) {
			return toolNamed("Units")(toolcall.ToolsFrom(SchemaUnits{}))
		})},
		{name: "strict method without parameters", schema: toolSchema(true, func() (toolcall.Tool, error) {
			return toolcall.NewMethod(SchemaUnits{}, "Units", toolcall.WithStrict(true))
		})},
		{name: "func of struct{}", schema: toolSchema(false, func() (toolcall.Tool, error) {
			return toolcall.NewFunc("ping", "Ping", func(context.Context, struct{}) (string, error) { return "pong", nil })
		})},
		{name: "NewTool without schema", schema: toolSchema(false, func() (toolcall.Tool, error) {
			return toolcall.NewTool(toolcall.Definition{Name: "ping"}, func(context.Context, json.RawMessage) (string, error) { return "pong", nil })
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.schema()
			require.NoError(t, err)
			assert.Equal(t, emptyToolSchema, string(got))
		})
	}
	if !*update {
		golden, err := os.ReadFile(goldenPath("no_params"))
		require.NoError(t, err)
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, golden))
		assert.Equal(t, emptyToolSchema, compact.String(), "no_params.json")
	}
}

// schemaCacheProbe is reflected by TestSchemaCache only.
type schemaCacheProbe struct {
	Name  string            `json:"name" jsonschema:"description=Name"`
	Next  *schemaCacheProbe `json:"next,omitempty"`
	Where schemaAddress     `json:"where"`
}

// TestSchemaCache checks S3: a type is reflected once, and every later
// schema of it is the same, byte for byte, whoever asks and how often.
func TestSchemaCache(t *testing.T) {
	t.Parallel()
	const n = 16
	plain := make([]json.RawMessage, n)
	strict := make([]json.RawMessage, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var err1, err2 error
			plain[i], err1 = toolcall.SchemaFor(schemaCacheProbe{})
			strict[i], err2 = toolcall.StrictSchemaFor(schemaCacheProbe{})
			errs[i] = errors.Join(err1, err2)
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	for i := 1; i < n; i++ {
		assert.Equal(t, string(plain[0]), string(plain[i]), "SchemaFor call %d", i)
		assert.Equal(t, string(strict[0]), string(strict[i]), "StrictSchemaFor call %d", i)
	}
	assert.NotEqual(t, string(plain[0]), string(strict[0]), "the strict variant differs")

	// The caller owns the bytes it gets: changing them changes no later
	// result.
	again, err := toolcall.SchemaFor(schemaCacheProbe{})
	require.NoError(t, err)
	want := string(again)
	clear(again)
	third, err := toolcall.SchemaFor(schemaCacheProbe{})
	require.NoError(t, err)
	assert.Equal(t, want, string(third))

	// A pointer to the type, and tools built on it, get the same schema.
	ptr, err := toolcall.SchemaFor(&schemaCacheProbe{})
	require.NoError(t, err)
	assert.Equal(t, want, string(ptr))
	tool1, err := toolcall.NewFunc("a", "a", func(context.Context, schemaCacheProbe) (string, error) { return "", nil })
	require.NoError(t, err)
	tool2, err := toolcall.NewFunc("b", "b", func(context.Context, *schemaCacheProbe) (string, error) { return "", nil })
	require.NoError(t, err)
	assert.Equal(t, want, string(tool1.Definition().InputSchema))
	assert.Equal(t, want, string(tool2.Definition().InputSchema))
}

// TestSchemaShape checks S1 and S2 on every golden row, so a new row is
// held to the rules without reading its file.
func TestSchemaShape(t *testing.T) {
	t.Parallel()
	for _, tc := range schemaGoldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := tc.schema()
			require.NoError(t, err)
			var root map[string]any
			require.NoError(t, json.Unmarshal(raw, &root))
			assert.Equal(t, "object", root["type"])
			assert.Contains(t, root, "properties")
			assert.Contains(t, root, "required")
			assert.NotContains(t, root, "$schema")
			assert.NotContains(t, root, "$id")
			strict := strings.HasSuffix(tc.name, "_strict")
			walkSchema(t, "#", root, strict)
			checkDefs(t, root)
		})
	}
}

// checkDefs checks that every $ref points into $defs and that $defs holds
// only recursive types: each definition reaches itself through $refs.
func checkDefs(t *testing.T, root map[string]any) {
	t.Helper()
	defs, _ := root["$defs"].(map[string]any)
	for name := range refsIn(root) {
		assert.Contains(t, defs, name, "$ref to a missing definition")
	}
	for name, def := range defs {
		seen := map[string]bool{}
		next := slices.Collect(maps.Keys(refsIn(def)))
		for len(next) > 0 && !seen[name] {
			n := next[len(next)-1]
			next = next[:len(next)-1]
			if !seen[n] {
				seen[n] = true
				next = slices.AppendSeq(next, maps.Keys(refsIn(defs[n])))
			}
		}
		assert.True(t, seen[name], "$defs/%s is not recursive; S1 wants it inlined", name)
	}
}

// refsIn returns the definition names that $refs under v point to; a
// $ref outside #/$defs/ is returned whole.
func refsIn(v any) map[string]bool {
	refs := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if ref, ok := x.(string); ok && k == "$ref" {
					refs[strings.TrimPrefix(ref, "#/$defs/")] = true
				}
				visit(x)
			}
		case []any:
			for _, x := range v {
				visit(x)
			}
		}
	}
	visit(v)
	return refs
}

// walkSchema checks every object schema under s: fixed properties come
// with additionalProperties false, and in strict mode every property is
// required.
func walkSchema(t *testing.T, path string, s map[string]any, strict bool) {
	t.Helper()
	if props, ok := s["properties"].(map[string]any); ok {
		assert.Equal(t, false, s["additionalProperties"], "%s: additionalProperties", path)
		if strict {
			var req []string
			for _, r := range s["required"].([]any) {
				req = append(req, r.(string))
			}
			for name := range props {
				assert.Contains(t, req, name, "%s: strict mode requires every property", path)
			}
		}
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				walkSchema(t, path+"/properties/"+name, ps, strict)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := s[key].(map[string]any); ok {
			walkSchema(t, path+"/"+key, sub, strict)
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := s[key].([]any); ok {
			for i, sub := range list {
				if sub, ok := sub.(map[string]any); ok {
					walkSchema(t, fmt.Sprintf("%s/%s/%d", path, key, i), sub, strict)
				}
			}
		}
	}
	if defs, ok := s["$defs"].(map[string]any); ok {
		for name, d := range defs {
			if d, ok := d.(map[string]any); ok {
				walkSchema(t, path+"/$defs/"+name, d, strict)
			}
		}
	}
}

// TestCustomTypesDecode calls tools whose arguments have their own JSON
// forms: the schema must let through what their decoders accept.
func TestCustomTypesDecode(t *testing.T) {
	t.Parallel()
	unmarshal, err := toolcall.NewFunc("price", "d", func(_ context.Context, a schemaUnmarshaler) (string, error) {
		return fmt.Sprintf("%d %s #%02x%02x%02x", a.Price.cents, a.Price.currency, a.Color.R, a.Color.G, a.Color.B), nil
	})
	require.NoError(t, err)
	got, err := unmarshal.Call(context.Background(), json.RawMessage(`{"price":"12.50 EUR","color":"#ff8800"}`))
	require.NoError(t, err)
	assert.Equal(t, "1250 EUR #ff8800", got)
	_, err = unmarshal.Call(context.Background(), json.RawMessage(`{"price":"12.50 EUR","color":7}`))
	assert.ErrorContains(t, err, "color: expected string or null, got number", "a direct call reads null as absent")

	tags, err := toolcall.NewFunc("tags", "d", func(_ context.Context, a schemaJSONTags) (int, error) { return a.AsString, nil })
	require.NoError(t, err)
	got, err = tags.Call(context.Background(), json.RawMessage(`{"renamed_field":"a","NoTag":"b","as_string":"5"}`))
	require.NoError(t, err)
	assert.Equal(t, "5", got)

	when := toolcall.MustFunc("when", "d", func(_ context.Context, a struct {
		When time.Time `json:"when"`
	}) (string, error) {
		return a.When.Format(time.DateOnly), nil
	})
	got, err = when.Call(context.Background(), json.RawMessage(`{"when":"2026-11-23T10:00:00Z"}`))
	require.NoError(t, err)
	assert.Equal(t, "2026-11-23", got)
	_, err = when.Call(context.Background(), json.RawMessage(`{"when":7}`))
	require.EqualError(t, err, `invalid arguments for tool "when": when: expected string, got number`)
	_, err = when.Call(context.Background(), json.RawMessage(`{"when":"yesterday"}`))
	require.EqualError(t, err, `invalid arguments for tool "when": when: must be an RFC 3339 date-time such as 2006-01-02T15:04:05Z`)
}
