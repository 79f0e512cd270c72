package schema

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/invopop/jsonschema"
)

// The argument types below are those of the root package's golden
// schema tests: every parameter type, annotation and optionality rule.

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

// schemaPointers: a pointer does not make a field optional, only
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
// are inlined, none goes to $defs.
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

// schemaOptional mixes required and optional fields.
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
// their fields, recursively.
type schemaDescribed struct {
	Email   string       `json:"email" jsonschema:"description=Primary e-mail address"`
	Phone   string       `json:"phone,omitempty" jsonschema_description:"Phone number, with country code"`
	Name    string       `json:"name" jsonschema:"description=Full name\\, as printed"`
	Address schemaPostal `json:"address" jsonschema:"description=Postal address of the contact"`
	Geo     SchemaGeo    `json:"geo"`
	Alt     SchemaGeo    `json:"alt,omitempty" jsonschema:"description=Alternative location"`
}

// schemaConstraints has the validation keywords.
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

// schemaBooking is the argument of a function tool.
type schemaBooking struct {
	From       string `json:"from" jsonschema:"description=IATA code of the departure airport,pattern=^[A-Z]{3}$"`
	To         string `json:"to" jsonschema:"description=IATA code of the arrival airport,pattern=^[A-Z]{3}$"`
	Date       string `json:"date" jsonschema:"format=date"`
	Passengers int    `json:"passengers,omitempty" jsonschema:"minimum=1,maximum=9,default=1"`
	Class      string `json:"class,omitempty" jsonschema:"enum=economy,enum=business"`
}
