package schematest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/invopop/jsonschema"
)

// Scalars has one field of every scalar kind. uintptr is left out:
// encoding/json handles it, but a schema rejects it.
type Scalars struct {
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

// Named types over the basic kinds, a slice and a map, for NamedTypes.
type (
	// Celsius is a named float64.
	Celsius float64
	// Count is a named int.
	Count int
	// Switch is a named bool.
	Switch bool
	// Slug is a named string.
	Slug string
	// Slugs is a named slice.
	Slugs []Slug
	// Index is a named map.
	Index map[string]Count
)

// Page is generic, so its reflected name carries its type argument.
type Page[T any] struct {
	Items []T  `json:"items"`
	More  bool `json:"more"`
}

// NamedTypes has named (defined) types over the basic kinds: they
// take the schema of their underlying type.
type NamedTypes struct {
	Temp  Celsius       `json:"temp"`
	Count Count         `json:"count"`
	On    Switch        `json:"on"`
	Slug  Slug          `json:"slug"`
	Slugs Slugs         `json:"slugs"`
	Index Index         `json:"index"`
	Page  Page[Celsius] `json:"page"`
}

// Collections has slices and arrays.
type Collections struct {
	Tags   []string   `json:"tags"`
	Scores []float64  `json:"scores"`
	Matrix [][]int    `json:"matrix"`
	Point  [3]float64 `json:"point"`
	Flags  [2]bool    `json:"flags"`
	Refs   []*int     `json:"refs"`
	Blob   []byte     `json:"blob"`
}

// Point is a struct value of Maps and Pointers.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Maps has maps with string keys (and integer keys, which
// encoding/json also writes as strings).
type Maps struct {
	Labels map[string]string          `json:"labels"`
	Counts map[string]int             `json:"counts,omitempty"`
	Groups map[string][]string        `json:"groups"`
	Nested map[string]map[string]bool `json:"nested"`
	Places map[string]Point           `json:"places"`
	ByID   map[int]string             `json:"by_id,omitempty"`
}

// Pointers: a pointer does not make a field optional, only
// omitempty or omitzero does.
type Pointers struct {
	Name   *string   `json:"name"`
	Count  *int      `json:"count,omitempty"`
	Point  *Point    `json:"point"`
	Origin *Point    `json:"origin,omitempty"`
	Deep   **bool    `json:"deep"`
	Tags   *[]string `json:"tags,omitzero"`
}

// Address is used twice in Nested, by value and by pointer.
type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
	Zip    string `json:"zip,omitempty"`
}

// Nested uses one struct type twice and an anonymous struct: all
// are inlined, none goes to $defs.
type Nested struct {
	Name string   `json:"name"`
	Home Address  `json:"home"`
	Work *Address `json:"work,omitempty"`
	Meta struct {
		Source string   `json:"source"`
		Tags   []string `json:"tags,omitempty"`
	} `json:"meta"`
}

// Audit is embedded by value in Embedded; its Note is hidden there.
type Audit struct {
	CreatedBy string `json:"created_by"`
	Note      string `json:"note,omitempty"`
}

// Paging is embedded by pointer in Embedded.
type Paging struct {
	Page int `json:"page,omitempty"`
	Size int `json:"size,omitempty"`
}

// stamps is embedded in Embedded though unexported.
type stamps struct {
	Version int `json:"version"`
}

// Owner is embedded in Embedded with a json tag.
type Owner struct {
	ID string `json:"id"`
}

// Embedded embeds structs the ways encoding/json knows: promoted
// fields of a value, of a pointer and of an unexported type, a tagged
// embedded struct that stays one property, and an outer field that hides
// a promoted one of the same name.
type Embedded struct {
	Audit
	*Paging
	stamps
	Owner `json:"owner"`
	Query string `json:"query"`
	Note  string `json:"note"`
}

// Options is an optional struct of Optional.
type Options struct {
	Verbose bool   `json:"verbose,omitempty"`
	Lang    string `json:"lang"`
}

// Optional mixes required and optional fields.
type Optional struct {
	Query   string    `json:"query"`
	Limit   int       `json:"limit,omitempty"`
	Since   time.Time `json:"since,omitzero"`
	Filter  *Address  `json:"filter,omitempty"`
	Sort    []string  `json:"sort,omitempty"`
	Options Options   `json:"options,omitzero"`
	Exact   bool      `json:"exact"`
	Cursor  *string   `json:"cursor"`
	Extra   string    `json:",omitempty"`
}

// Color takes its enum from the field's tag.
type Color string

// Priority carries its enum on the type itself.
type Priority string

// JSONSchemaExtend sets the enum and description.
func (Priority) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Enum = []any{"low", "normal", "high"}
	s.Description = "How urgent the task is"
}

// Enum has enums from tags and from a type.
type Enum struct {
	Color    Color    `json:"color" jsonschema:"enum=red,enum=green,enum=blue"`
	Size     string   `json:"size,omitempty" jsonschema:"enum=S,enum=M,enum=L"`
	Level    int      `json:"level" jsonschema:"enum=1,enum=2,enum=3"`
	Ratio    float64  `json:"ratio,omitempty" jsonschema:"enum=0.5,enum=1"`
	Priority Priority `json:"priority"`
	Later    Priority `json:"later,omitempty"`
}

// Geo describes itself; a field's own description wins over it.
type Geo struct {
	Lat float64 `json:"lat" jsonschema:"description=Latitude in degrees"`
	Lng float64 `json:"lng" jsonschema:"description=Longitude in degrees"`
}

// JSONSchemaExtend sets the description.
func (Geo) JSONSchemaExtend(s *jsonschema.Schema) {
	s.Description = "A point on Earth"
}

// Postal is described by the field that holds it.
type Postal struct {
	Street  string `json:"street" jsonschema:"description=Street and number"`
	Country struct {
		Code string `json:"code" jsonschema:"description=ISO 3166-1 alpha-2 code"`
	} `json:"country" jsonschema:"description=Country of the address"`
}

// Described has descriptions on fields, on nested types and on
// their fields, recursively.
type Described struct {
	Email   string `json:"email" jsonschema:"description=Primary e-mail address"`
	Phone   string `json:"phone,omitempty" jsonschema_description:"Phone number, with country code"`
	Name    string `json:"name" jsonschema:"description=Full name\\, as printed"`
	Address Postal `json:"address" jsonschema:"description=Postal address of the contact"`
	Geo     Geo    `json:"geo"`
	Alt     Geo    `json:"alt,omitempty" jsonschema:"description=Alternative location"`
}

// Constraints has the validation keywords.
type Constraints struct {
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

// LineItem is the element of Order's slices and arrays.
type LineItem struct {
	SKU  string `json:"sku" jsonschema:"description=Stock keeping unit"`
	Qty  int    `json:"qty" jsonschema:"minimum=1"`
	Note string `json:"note,omitempty"`
}

// Order has slices, arrays and maps of structs.
type Order struct {
	Items []LineItem          `json:"items" jsonschema:"minItems=1"`
	Gifts []*LineItem         `json:"gifts,omitempty"`
	Pairs [2]LineItem         `json:"pairs,omitzero"`
	Lots  [][]LineItem        `json:"lots,omitempty"`
	Inner []struct{ N int }   `json:"inner,omitempty"`
	ByKey map[string][]string `json:"by_key,omitempty"`
}

// FreeForm has free-form values.
type FreeForm struct {
	Value any            `json:"value"`
	Opt   any            `json:"opt,omitempty"`
	Meta  map[string]any `json:"meta,omitempty"`
	List  []any          `json:"list"`
}

// RawMessages has json.RawMessage fields.
type RawMessages struct {
	Payload json.RawMessage   `json:"payload"`
	Extra   json.RawMessage   `json:"extra,omitempty"`
	Parts   []json.RawMessage `json:"parts,omitempty"`
}

// Times has time.Time fields.
type Times struct {
	At     time.Time   `json:"at" jsonschema:"description=When it happens"`
	Until  *time.Time  `json:"until,omitempty"`
	Window []time.Time `json:"window,omitempty"`
}

// Durations has time.Duration fields, sent as strings.
type Durations struct {
	Timeout time.Duration   `json:"timeout"`
	Every   *time.Duration  `json:"every,omitempty"`
	Steps   []time.Duration `json:"steps,omitempty"`
	Delay   time.Duration   `json:"delay,omitempty" jsonschema:"description=How long to wait\\, e.g. 1m30s"`
}

// LatLng has its own JSON Schema (invopop's JSONSchema method): it
// travels as "lat,lng".
type LatLng struct{ Lat, Lng float64 }

// JSONSchema is the schema of the "lat,lng" form.
func (LatLng) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Description: "Latitude and longitude, e.g. 48.85,2.35",
		Pattern:     `^-?[0-9.]+,-?[0-9.]+$`,
	}
}

// UnmarshalJSON reads the "lat,lng" form.
func (l *LatLng) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	_, err := fmt.Sscanf(s, "%g,%g", &l.Lat, &l.Lng)
	return err
}

// Custom has fields of a type with its own schema.
type Custom struct {
	Where LatLng   `json:"where"`
	Stops []LatLng `json:"stops,omitempty"`
}

// Money implements json.Unmarshaler but has no schema of its own:
// it travels as "12.50 EUR".
type Money struct {
	cents    int64
	currency string
}

// UnmarshalJSON reads the "12.50 EUR" form.
func (m *Money) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	var units, cents int64
	_, err := fmt.Sscanf(s, "%d.%d %s", &units, &cents, &m.currency)
	m.cents = units*100 + cents
	return err
}

// Cents returns the amount UnmarshalJSON read, in cents.
func (m Money) Cents() int64 { return m.cents }

// Currency returns the currency UnmarshalJSON read.
func (m Money) Currency() string { return m.currency }

// RGB is read from text ("#ff8800"), as encoding/json does for a
// TextUnmarshaler, so its schema is a string.
type RGB struct{ R, G, B uint8 }

// UnmarshalText reads the "#rrggbb" form.
func (c *RGB) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "#%02x%02x%02x", &c.R, &c.G, &c.B)
	return err
}

// Unmarshalers has fields of types that decode themselves.
type Unmarshalers struct {
	Price Money `json:"price" jsonschema:"description=an amount like 12.50 EUR"`
	Color RGB   `json:"color,omitempty"`
}

// TreeNode refers to itself: it is the one kind of type kept in $defs.
type TreeNode struct {
	Name     string     `json:"name"`
	Children []TreeNode `json:"children,omitempty"`
	Link     *TreeNode  `json:"link,omitempty"`
}

// Recursive holds a TreeNode.
type Recursive struct {
	Root  TreeNode `json:"root"`
	Depth int      `json:"depth,omitempty"`
}

// Employee and Department refer to each other.
type Employee struct {
	Name string      `json:"name"`
	Dept *Department `json:"dept,omitempty"`
}

// Department holds Employees.
type Department struct {
	Title string     `json:"title"`
	Head  *Employee  `json:"head,omitempty"`
	Staff []Employee `json:"staff"`
}

// Mutual holds a Department.
type Mutual struct {
	Org Department `json:"org"`
}

// JSONTags follows encoding/json's naming rules.
type JSONTags struct {
	Renamed string `json:"renamed_field"`
	NoTag   string
	Skipped string `json:"-"`
	//lint:ignore U1000 unexported fields are not parameters
	hidden   string
	AsString int    `json:"as_string,string"`
	OnlyOpts string `json:",omitempty"`
}

// Keywords has properties named like JSON Schema keywords: they
// stay properties, in their order, and are never taken for keywords.
type Keywords struct {
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
	Ref                  *RefNamed         `json:"$ref,omitempty"`
	AnyOf                int               `json:"anyOf"`
}

// RefNamed is nested under a property named "$ref" and has its own
// "properties" and "required" fields.
type RefNamed struct {
	Properties map[string]int `json:"properties"`
	Required   []string       `json:"required,omitempty"`
}

// Booking is the argument of a function tool.
type Booking struct {
	From       string `json:"from" jsonschema:"description=IATA code of the departure airport,pattern=^[A-Z]{3}$"`
	To         string `json:"to" jsonschema:"description=IATA code of the arrival airport,pattern=^[A-Z]{3}$"`
	Date       string `json:"date" jsonschema:"format=date"`
	Passengers int    `json:"passengers,omitempty" jsonschema:"minimum=1,maximum=9,default=1"`
	Class      string `json:"class,omitempty" jsonschema:"enum=economy,enum=business"`
}
