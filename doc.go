// Package toolcall gives a chat model your Go functions as tools and runs
// the model<->tool loop: the model asks for calls, toolcall runs them with
// the model's arguments, sends the results back, and repeats until the
// model answers.
//
// # Quick start
//
//	type WeatherRequest struct {
//		Location string `json:"location" jsonschema:"description=City name"`
//		Unit     string `json:"unit,omitempty" jsonschema:"enum=C,enum=F"`
//	}
//
//	weather, err := toolcall.NewFunc("currentWeather", "Get the weather in a location",
//		func(ctx context.Context, in WeatherRequest) (string, error) {
//			return "30 degrees and sunny", nil
//		})
//
//	client := toolcall.NewClient(model) // e.g. openai.New(...) or ollama.New(...)
//	resp, err := client.Prompt().User("What's the weather in Paris?").Tools(weather).Call(ctx)
//	fmt.Println(resp.Content())
//
// Package toolcalltest has a scripted model for running all of this
// offline, in tests and examples. The model-facing types (messages, tool
// calls, requests and replies) are in package chat, which provider packages
// implement.
//
// # Where a setting lives
//
// A setting of the loop or of tool execution is an option: a [ClientOption]
// given to [NewClient] or [Client.With], and, when it is a [ManagerOption],
// also to [NewManager]. A value of one request (its messages, system
// message, tools, tool context, tool choice, sampling options, model) is a
// [Prompt] method. Tools are both: [WithTools] gives a client's default
// tools, which a Prompt's own replace. A setting of one tool is a
// [ToolOption] or, on a method tool, a tag. Zero means the default for
// every limit; [NoLimit] removes one.
//
// # Defining tools
//
// Three ways, all giving a [Tool]:
//
//   - Method tools: a struct opts its methods in with blank [Method] fields
//     whose tags give name, description, returnDirect, strict, timeout,
//     params and converter; [ToolsFrom] turns the object into tools. A method
//     is never a tool by accident.
//   - Function tools: [NewFunc] turns a func(ctx, In) (Out, error) into a
//     tool; the parameters are In's fields.
//   - Custom tools: [NewTool] with a hand-written [chat.ToolDefinition], or
//     any type implementing [Tool].
//
// Parameters follow encoding/json: the json tag names a field, "-" hides
// it, and omitempty or omitzero makes it optional; every other field is
// required. Descriptions and constraints use github.com/invopop/jsonschema's
// jsonschema tag (description, enum, minimum, maximum, pattern, format,
// default, examples...). That tag splits on commas: write a comma inside a
// value as \\, in the Go source (`jsonschema:"description=a\\, b"`), or
// give the description whole in a jsonschema_description tag. A type
// with a JSONSchema() method supplies its own schema; a type with its own
// UnmarshalJSON and no JSONSchema() is free-form ({}), and a type read from
// text (encoding.TextUnmarshaler) is a string.
//
// # Schemas
//
// [SchemaFor] shows the schema of an argument type. Nested types are
// inlined; $defs/$ref appear only for recursive types; every object has
// additionalProperties false; there is no $schema or $id. A type is
// reflected once and cached. [WithStrict] and [WithStrictTools] select the
// strict variant for OpenAI's structured outputs.
//
// A type may contain itself only through a struct (a field, a slice or map
// of it, a pointer to it); a named slice or map that contains itself is an
// error. When the argument type itself is recursive, the root schema is
// inlined and repeated once under $defs for the references. The strict
// variant keeps a map's schema (additionalProperties with the value schema),
// which OpenAI's strict mode rejects: use a slice of key/value structs for
// strict tools. A field tagged json:"-," (named "-") is an error.
//
// # Checking calls
//
// Every call of every tool is checked against the tool's input schema
// before the tool runs, whatever the schema's origin: reflected from a Go
// type, given by [NewTool] or [WithInputSchema], or received from a remote
// server. The schema is compiled once, when the tool is defined (the
// schema of a tool of a program's own type, as a remote server's tools
// are, is checked when a request first offers it and compiled at its first
// call); the [Manager] runs each call through it exactly once, before any
// [Middleware]. A violation goes back to the model as the tool result,
// naming the field and the rule, and the tool does not run. Arguments that
// are empty, blank or null mean {}.
//
// The checks fail closed: every keyword of a schema is enforced, a known
// annotation, or refused when the tool is defined with a
// [*DefinitionError] naming the tool, the parameter path and the keyword.
// Every assertion of JSON Schema draft 2020-12 (draft-07 when $schema says
// so) is enforced, local $ref included, numbers compared exactly and
// lengths counted in characters; formats checked are date-time, date,
// time, uuid, ipv4 and ipv6. Annotations are title, description, examples,
// default, deprecated, readOnly, writeOnly, $comment, the content keywords,
// other formats and x-* extensions. Refused: remote references, $anchor,
// $dynamicRef, unevaluatedProperties and unevaluatedItems, other drafts,
// unknown or misspelled keywords, and malformed values.
//
// JSON Schema patterns are ECMA-262 regular expressions, and Go's regexp is
// RE2: a pattern RE2 cannot compile (lookahead, lookbehind,
// backreferences) is refused, not skipped. RE2 matches in time linear in
// the input, so no schema, even one from a remote server, can make a check
// backtrack for long.
//
// The checks read JSON strictly: field names match exactly, duplicate keys,
// invalid UTF-8 and data after the arguments are errors for the model, and
// a number such as 2.0 is an integer while 2.5 is not. null is a value like
// any other: an optional parameter refuses it unless its schema allows null
// (the strict variant does). time.Duration parameters take strings such as
// "1h30m". Tags fail closed too: an unknown key in a [Method] tag, an
// unknown keyword in a jsonschema tag, a keyword that does not apply to the
// field's type, a tag piece without "=" (an unescaped comma) and a
// parameter's tag key that looks meant for this package but is not read
// (josn, json_schema, jsonschem, JSON) are definition errors; other
// packages' keys (bson, yaml, validate...) are left alone.
//
// Results become text by [ConvertResult]: strings and json.RawMessage as
// they are, a tool with no result value sends "Success", anything else is
// compact JSON (nil included, as null). [WithConverter] replaces it for a
// tool.
//
// # The loop
//
// A [Client] sends the prompt, lets its [Manager] execute the tool calls of
// each reply (concurrently, results in call order, bounded by [Limits]),
// and sends the results back, at most 10 rounds by default
// ([WithMaxIterations]). A tool error goes to the model as the result and
// the loop goes on; a [ToolErrorHandler] may instead abort. A call to a
// tool that was not offered runs nothing and is reported the same way.
// When every tool called in a reply has returnDirect, their results are the
// answer. The [ToolContext] carries the caller's data to the tools and
// never to the model. [Hooks] observe every call, model round and tool
// call, and carry the context each runs with, so a tracer's spans nest;
// [Middleware] wraps every tool call.
//
// A reply cut short by the output limit or a content filter may have lost
// calls or arguments, so its tool calls are not run: the call ends with
// [ErrReplyCut] and a Response whose Intermediate ends with the cut reply
// and whose History, without it, can be resent.
//
// # Typed answers
//
// [Prompt.Answer] asks for the final answer as a Go value: its schema is
// made from the value's type as tool arguments' are, the answer is checked
// against it before it is decoded, and one that breaks it goes back to the
// model with what was wrong, a bounded number of times ([AnswerError]
// after). The answer is asked for natively where the provider can (a
// [chat.StructuredModel]), through a final_answer tool elsewhere.
//
// # State, approval and pauses
//
// Tools write session state with [SetState]; later rounds read it from
// their ToolContext, under the caller's values, which it never overrides.
// A call that waits for a person ([WithNeedsApproval], [WithApprover]) or
// for something slow ([Pause]) ends the Call with a *[Paused]: plain JSON,
// resumed with [Prompt.Resume] in any process. Stored outside the process
// it is untrusted input: seal it ([WithSealKeys]) and a resume refuses any
// edit, or a state sealed for another owner ([Prompt.Owner]) or past its
// expiry; every resume checks that the waiting calls are the model's and
// runs each approved call at most once ([WithResumeClaim] across
// processes, which a sealing client must have). SECURITY.md lists every
// trust boundary and its guarantees.
package toolcall
