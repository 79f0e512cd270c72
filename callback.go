package toolcall

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/signature"
	"github.com/toolcall-go/toolcall/internal/tooldefs"
)

// Method marks a method of a struct as a tool. Declare one blank field of
// type Method per tool, next to the data the methods use:
//
//	type DateTimeTools struct {
//		_ toolcall.Method `tool:"CurrentTime" description:"Get the current date and time"`
//		_ toolcall.Method `tool:"SetAlarm" description:"Set an alarm" returnDirect:"true"`
//	}
//
// Only methods named this way become tools: a model never reaches a method
// by accident. The tag keys are:
//
//   - tool: the method name (required).
//   - name: the tool name; default the method name.
//   - description: what the tool does, for the model; default the tool name.
//   - returnDirect: "true" sends the result straight to the caller.
//   - strict: "true" uses the strict schema variant (see [WithStrict]).
//   - approval: "true" makes each call wait for a decision (see
//     [WithNeedsApproval]).
//   - timeout: a duration such as "2s" bounding each call (see [WithTimeout]).
//   - hints: what a call does, as a comma-separated list of readOnly,
//     destructive, idempotent and openWorld (see [WithHints]).
//   - converter: the name of a method of the same type with signature
//     func(any) (string, error) that converts the result.
//   - params: names for a method with several parameters, in order,
//     separated by ";" (or "," when no entry has a description). An entry is
//     "name", "name: description", or "name?" / "name?: description" for an
//     optional parameter. Example: params:"a: first addend; b: second addend".
//
// The fields of a parameter struct (a method's, or the In of [NewFunc]) may
// have these tag keys:
//
//   - json: the parameter's name and options, as encoding/json reads them;
//     "-" leaves the field out, omitempty or omitzero makes it optional.
//   - jsonschema: schema keywords, as invopop/jsonschema reads them, e.g.
//     jsonschema:"minimum=1,maximum=10"; "required" and "nullable" too.
//   - jsonschema_description: the parameter's description, taken whole (a
//     comma needs no escaping).
//   - jsonschema_extras: more schema keywords as key=value pairs.
//
// A key not listed here is an error in a Method tag. In a parameter's tag,
// a key that looks like a misspelling of one (JSON, josn, json_schema) is
// an error, and other packages' keys (bson, yaml, validate...) are left
// alone.
//
// Accepted method signatures: an optional context.Context first; then no
// parameters, one struct whose fields are the parameters, or parameters
// named in the params tag; an optional [ToolContext] anywhere; results (),
// (T), (T, error) or (error).
type Method struct{}

var (
	methodType      = reflect.TypeFor[Method]()
	toolContextType = reflect.TypeFor[ToolContext]()
)

// ToolsFrom returns the tools that objs declare with [Method] fields. An
// object with no tool methods, or a tag naming a missing or unexported
// method, is an error naming the type and method. A tool name used twice is
// an error wrapping [ErrInvalidTool] that names both methods, e.g.
// "shop.Tools.A and shop.Tools.B".
func ToolsFrom(objs ...any) ([]Tool, error) {
	var tools []Tool
	seen := map[string]Tool{}
	for _, obj := range objs {
		ts, err := toolsFrom(obj)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			name := t.Definition().Name
			if prev, dup := seen[name]; dup {
				return nil, &DefinitionError{Method: name,
					Err: fmt.Errorf("%w: %q is declared by %s and %s", errDuplicateTool, name, toolSource(prev), toolSource(t))}
			}
			seen[name] = t
			tools = append(tools, t)
		}
	}
	return tools, nil
}

func toolsFrom(obj any) ([]Tool, error) {
	if obj == nil {
		return nil, &DefinitionError{Err: fmt.Errorf("%w: nil object", errNoTools)}
	}
	v := reflect.ValueOf(obj)
	specs, terr := signature.Tags(v.Type(), methodType)
	if terr != nil {
		sentinel := ErrInvalidTool
		if terr.NoTools {
			sentinel = errNoTools
		}
		return nil, &DefinitionError{Type: v.Type().String(), Method: terr.Method, Err: fmt.Errorf("%w: %v", sentinel, terr.Err)}
	}
	tools := make([]Tool, len(specs))
	for i, spec := range specs {
		t, err := newMethodTool(v, spec, nil)
		if err != nil {
			return nil, err
		}
		tools[i] = t
	}
	return tools, nil
}

// NewMethod returns a tool that calls the named method of obj, without
// tags: options give the name (default the method name), description and
// the rest. For several parameters, name them with [WithParams].
func NewMethod(obj any, method string, opts ...ToolOption) (Tool, error) {
	if obj == nil {
		return nil, &DefinitionError{Method: method, Err: fmt.Errorf("%w: nil object", ErrInvalidTool)}
	}
	return newMethodTool(reflect.ValueOf(obj), signature.MethodTag{Method: method}, opts)
}

func newMethodTool(obj reflect.Value, spec signature.MethodTag, opts []ToolOption) (Tool, error) {
	typeName := obj.Type().String()
	fail := func(sentinel, err error) error {
		return &DefinitionError{Type: typeName, Method: spec.Method, Err: fmt.Errorf("%w: %v", sentinel, err)}
	}
	m, err := signature.Method(obj, spec.Method)
	if err != nil {
		return nil, fail(ErrInvalidTool, err)
	}
	cfg := toolConfig{name: spec.Name, description: spec.Description, returnDirect: spec.ReturnDirect, strict: spec.Strict, approval: spec.Approval, timeout: spec.Timeout, hints: spec.Hints}
	if cfg.name == "" {
		cfg.name = spec.Method
	}
	if spec.Converter != "" {
		if cfg.converter, err = signature.Converter(obj, spec.Converter); err != nil {
			return nil, fail(ErrInvalidTool, err)
		}
	}
	for _, o := range opts {
		o.applyToTool(&cfg)
	}
	shape, argType, err := signature.Args(m.Type(), toolContextType, spec.Params, cfg.params)
	if err != nil {
		if _, ok := err.(*signature.Unsupported); ok {
			return nil, fail(errUnsupportedSignature, err)
		}
		return nil, fail(ErrInvalidTool, err)
	}
	t := &reflectTool{conv: cfg.converter, fn: m, shape: shape, source: typeName + "." + spec.Method, argType: argType}
	in, err := schemaOf(argType)
	if err == nil {
		err = finishConfig(&t.toolCore, &cfg, in)
	}
	if err != nil {
		return nil, withSource(err, typeName, spec.Method)
	}
	return t, nil
}

// finishConfig fills cfg's defaults, checks its name, and makes core the
// tool cfg describes, with the checks of its schema: the Go type's own
// (typed), its strict variant, or one given by [WithInputSchema] or, when
// typed is nil, [NewTool].
func finishConfig(core *toolCore, cfg *toolConfig, typed *check.Input) error {
	if err := tooldefs.CheckName(cfg.name); err != nil {
		return &DefinitionError{Method: cfg.name, Err: fmt.Errorf("%w: %v", errInvalidName, err)}
	}
	if cfg.description == "" {
		cfg.description = cfg.name
	}
	switch {
	case len(cfg.schema) > 0:
		in, err := check.NewInput(cfg.schema, nil, nil, typed != nil && typed.Durations())
		if err != nil {
			return schemaError(err)
		}
		// Every provider requires tool parameters of type "object".
		if t, _ := in.Tree.Get("type"); t != "object" {
			return &DefinitionError{Method: cfg.name, Err: fmt.Errorf("%w: input schema must have \"type\":\"object\", got %v", ErrInvalidTool, t)}
		}
		if cfg.strict { // sent and checked in its strict variant, as a reflected schema is
			in = in.Strict()
			cfg.schema = in.Schema
		}
		core.in = in
	case cfg.strict:
		core.in = typed.Strict()
		cfg.schema = core.in.Schema
	default:
		core.in = typed
		cfg.schema = core.in.Schema
	}
	core.def = chat.ToolDefinition{Name: cfg.name, Description: cfg.description, InputSchema: cfg.schema, Strict: cfg.strict}
	core.meta = Metadata{ReturnDirect: cfg.returnDirect, Timeout: cfg.timeout, NeedsApproval: cfg.approval}
	for _, h := range cfg.hints {
		var set *bool
		switch h {
		case "readOnly":
			set = &core.meta.ReadOnly
		case "destructive":
			set = &core.meta.Destructive
		case "idempotent":
			set = &core.meta.Idempotent
		case "openWorld":
			set = &core.meta.OpenWorld
		default:
			return &DefinitionError{Method: cfg.name, Err: fmt.Errorf("%w: unknown hint %q: the hints are readOnly, destructive, idempotent and openWorld", ErrInvalidTool, h)}
		}
		*set = true
	}
	if core.meta.ReadOnly && core.meta.Destructive {
		return &DefinitionError{Method: cfg.name, Err: fmt.Errorf("%w: hints readOnly and destructive contradict each other", ErrInvalidTool)}
	}
	return nil
}

// withSource adds the type and method to a definition error.
func withSource(err error, typeName, method string) error {
	if de, ok := err.(*DefinitionError); ok {
		c := *de
		c.Type, c.Method = typeName, method
		return &c
	}
	return err
}

// WithParams names the parameters of a method or func that takes several
// (Go reflection does not know parameter names). See [Method] for the
// entry syntax.
func WithParams(entries ...string) ToolOption {
	params := signature.Entries(entries)
	return toolOptionFunc(func(c *toolConfig) { c.params = append(c.params, params...) })
}

// reflectTool calls a method or func through reflection.
type reflectTool struct {
	toolCore
	conv    func(any) (string, error)
	fn      reflect.Value
	shape   signature.Shape
	argType reflect.Type
	// source names the method for error messages: the receiver's type
	// and the method name, e.g. "*shop.Tools.Lookup".
	source string
}

// OutputSchema returns the JSON Schema of the tool's result text when the
// method returns a struct that the default conversion turns into JSON, and
// nil otherwise.
func (t *reflectTool) OutputSchema() json.RawMessage {
	if t.conv != nil || !t.shape.Result {
		return nil
	}
	return outputSchema(t.fn.Type().Out(0))
}

func (t *reflectTool) Call(ctx context.Context, arguments json.RawMessage) (string, error) {
	return t.run(ctx, chat.ToolCall{}, check.Normalize(arguments), t.in.Variant(t.def.Strict, false, true), nil)
}

func (t *reflectTool) run(ctx context.Context, call chat.ToolCall, args []byte, k *check.Checker, mw Middleware) (string, error) {
	v := reflect.New(t.argType)
	if err := checkArgs(k, t.in, t.def.Name, args, v.Interface()); err != nil {
		return "", err
	}
	if mw == nil {
		return t.invoke(ctx, v.Elem())
	}
	return mw(ctx, call, func(ctx context.Context) (string, error) { return t.invoke(ctx, v.Elem()) })
}

func (t *reflectTool) invoke(ctx context.Context, args reflect.Value) (string, error) {
	result, ok, err := t.shape.Call(t.fn, reflect.ValueOf(&ctx).Elem(), reflect.ValueOf(ToolContextFrom(ctx)), args)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return successText, nil
	}
	return convert(t.conv, result)
}

// NewFunc returns a tool that calls fn. The tool's parameters are the
// fields of In, a struct (or pointer to one); the schema comes from In
// unless [WithInputSchema] gives one. Out is converted to text by the
// tool's converter, by default [ConvertResult].
//
// The other shapes of function tool map onto this one: a tool without
// parameters takes struct{}; a tool without result returns struct{} (the
// model then gets "Success"); a tool that needs the caller's data reads
// [ToolContextFrom](ctx).
func NewFunc[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...ToolOption) (Tool, error) {
	if fn == nil {
		return nil, &DefinitionError{Method: name, Err: fmt.Errorf("%w: nil func", ErrInvalidTool)}
	}
	// The config lives in the tool, so options applied to it cost no
	// allocation beyond the tool the caller keeps.
	t := &funcTool[In, Out]{fn: fn, cfg: toolConfig{name: name, description: description}}
	cfg := &t.cfg
	for _, o := range opts {
		o.applyToTool(cfg)
	}
	in, err := schemaOf(reflect.TypeFor[In]())
	if err == nil {
		err = finishConfig(&t.toolCore, cfg, in)
	}
	if err != nil {
		return nil, withSource(err, "", cfg.name)
	}
	t.noResult = reflect.TypeFor[Out]() == reflect.TypeFor[struct{}]()
	return t, nil
}

// MustFunc is like [NewFunc] but panics on error. Use it only for
// package-level variables.
func MustFunc[In, Out any](name, description string, fn func(context.Context, In) (Out, error), opts ...ToolOption) Tool {
	t, err := NewFunc(name, description, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

type funcTool[In, Out any] struct {
	toolCore
	fn       func(context.Context, In) (Out, error)
	cfg      toolConfig // its converter converts the result
	noResult bool
}

func (t *funcTool[In, Out]) funcType() reflect.Type { return reflect.TypeOf(t.fn) }

// OutputSchema returns the JSON Schema of the tool's result text when Out
// is a struct that the default conversion turns into JSON, and nil
// otherwise.
func (t *funcTool[In, Out]) OutputSchema() json.RawMessage {
	if t.cfg.converter != nil || t.noResult {
		return nil
	}
	return outputSchema(reflect.TypeFor[Out]())
}

// outputSchema is the schema of results of type rt: a struct, or a pointer
// to one, that encodes as JSON by its fields (no MarshalJSON or
// MarshalText of its own). It is built on first use and cached.
func outputSchema(rt reflect.Type) json.RawMessage {
	st, ok := resultStruct(rt)
	if !ok {
		return nil
	}
	in, err := schemaOf(st)
	if err != nil {
		return nil
	}
	return in.Schema
}

func (t *funcTool[In, Out]) Call(ctx context.Context, arguments json.RawMessage) (string, error) {
	return t.run(ctx, chat.ToolCall{}, check.Normalize(arguments), t.in.Variant(t.def.Strict, false, true), nil)
}

func (t *funcTool[In, Out]) run(ctx context.Context, call chat.ToolCall, args []byte, k *check.Checker, mw Middleware) (string, error) {
	in := new(In)
	if err := checkArgs(k, t.in, t.def.Name, args, in); err != nil {
		return "", err
	}
	if mw == nil {
		return t.invoke(ctx, *in)
	}
	return mw(ctx, call, func(ctx context.Context) (string, error) { return t.invoke(ctx, *in) })
}

func (t *funcTool[In, Out]) invoke(ctx context.Context, in In) (string, error) {
	out, err := t.fn(ctx, in)
	if err != nil {
		return "", err
	}
	if t.noResult {
		return successText, nil
	}
	return convert(t.cfg.converter, out)
}
