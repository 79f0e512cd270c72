package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// A Tool is a function the model can call.
//
// Definition and Metadata must return the same values on every call. Call may
// be invoked concurrently for different tool calls, so implementations must be
// safe for concurrent use. Call receives the model's arguments as raw JSON
// (never empty: the [Manager] turns "", "null" and missing arguments into
// "{}") and returns the text sent back to the model. A non-nil error is
// reported to the model as the tool result (see [WithToolErrorHandler]).
type Tool interface {
	Definition() Definition
	Metadata() Metadata
	Call(ctx context.Context, arguments json.RawMessage) (string, error)
}

// A Definition is what the model sees of a tool. InputSchema is a JSON Schema
// of an object; it is shared and must not be modified.
type Definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Strict asks providers that support it (OpenAI's structured outputs) to
	// constrain the model's arguments to InputSchema. A strict InputSchema
	// lists every property as required; see [WithStrict].
	Strict bool `json:"strict,omitempty"`
}

// Metadata is what only the library sees of a tool.
type Metadata struct {
	// ReturnDirect sends the tool's result straight to the caller instead of
	// back to the model, when every tool called in a response has it.
	ReturnDirect bool
	// Timeout bounds each call of the tool; zero leaves it to the
	// client's or manager's [WithToolTimeout].
	Timeout time.Duration
}

// emptySchema is the input schema of a tool without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`)

// NewTool returns a tool defined by hand: def is sent to the model as is
// (an empty InputSchema means no parameters) and call runs it. It is the
// way to build tools whose schema is not a Go type, such as tools bridged
// from another protocol. Options override parts of def.
func NewTool(def Definition, call func(ctx context.Context, arguments json.RawMessage) (string, error), opts ...ToolOption) (Tool, error) {
	if call == nil {
		return nil, fmt.Errorf("%w: tool %q: nil call function", ErrInvalidTool, def.Name)
	}
	cfg := toolConfig{name: def.Name, description: def.Description, schema: def.InputSchema, strict: def.Strict}
	for _, o := range opts {
		o.applyToTool(&cfg)
	}
	if len(cfg.schema) == 0 {
		cfg.schema = emptySchema
	}
	if err := checkName(cfg.name); err != nil {
		return nil, err
	}
	if err := checkObjectSchema(cfg.name, cfg.schema); err != nil {
		return nil, err
	}
	if cfg.description == "" {
		cfg.description = cfg.name
	}
	check, err := compileValidator(cfg.schema)
	if err != nil {
		return nil, &DefinitionError{Method: cfg.name, Err: fmt.Errorf("%w: input schema: %v", ErrInvalidTool, err)}
	}
	return &rawTool{
		def:   Definition{Name: cfg.name, Description: cfg.description, InputSchema: cfg.schema, Strict: cfg.strict},
		meta:  cfg.metadata(),
		call:  call,
		check: check,
	}, nil
}

type rawTool struct {
	def   Definition
	meta  Metadata
	call  func(ctx context.Context, arguments json.RawMessage) (string, error)
	check *validator
}

func (t *rawTool) Definition() Definition { return t.def }
func (t *rawTool) Metadata() Metadata     { return t.meta }
func (t *rawTool) Call(ctx context.Context, arguments json.RawMessage) (string, error) {
	return t.call(ctx, arguments)
}

// checkObjectSchema makes sure a hand-written schema is a JSON object whose
// type is "object", which every provider requires of tool parameters.
func checkObjectSchema(name string, schema json.RawMessage) error {
	var probe struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(schema, &probe); err != nil {
		return fmt.Errorf("%w: tool %q: input schema is not a JSON object: %v", ErrInvalidTool, name, err)
	}
	if probe.Type != "object" {
		return fmt.Errorf("%w: tool %q: input schema must have \"type\":\"object\", got %v", ErrInvalidTool, name, probe.Type)
	}
	return nil
}

// ValidName reports whether name is a valid tool name: 1 to 64 ASCII
// letters, digits, '_' or '-', as OpenAI and most providers require.
func ValidName(name string) bool { return checkName(name) == nil }

func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: tool name is empty", ErrInvalidName)
	}
	if len(name) > 64 {
		return fmt.Errorf("%w: %q is %d bytes long, the limit is 64", ErrInvalidName, name, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			continue
		}
		return fmt.Errorf("%w: %q has %q at byte %d; names must match ^[a-zA-Z0-9_-]{1,64}$", ErrInvalidName, name, rune(c), i)
	}
	return nil
}
