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
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/schematest"
)

// Golden schemas: one file per supported type shape under
// testdata/schema, pretty-printed with a two-space indent and a trailing
// newline. Rewrite them with
//
//	go test . -run Schema -update
var update = flag.Bool("update", false, "rewrite golden files under testdata/schema")

const schemaGoldenDir = "testdata/schema"

// bookFlight is the func of the func_struct_arg rows.
func bookFlight(_ context.Context, in schematest.Booking) (string, error) {
	return in.From + "-" + in.To, nil
}

// SchemaUnits has a method tool with positional parameters named by the
// params tag; its ToolContext parameter never shows in the schema.
// The description of precision has a comma on purpose: the params syntax
// allows it. schematest builds the method_params struct from the same tag.
type SchemaUnits struct {
	_ toolcall.Method `tool:"Convert" description:"Convert a quantity between units" params:"value: the quantity to convert; from: unit of value; to: target unit; precision?: decimal places, default 2"`
	_ toolcall.Method `tool:"Units" description:"List the known units"`
}

func (SchemaUnits) Convert(_ context.Context, value float64, from, to string, _ toolcall.ToolContext, precision int) (string, error) {
	return fmt.Sprintf("%.*f %s", precision, value, to), nil
}

func (SchemaUnits) Units() []string { return []string{"m", "ft"} }

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
	strict bool
	schema func() (json.RawMessage, error)
}

// schemaGoldenCases are schematest's cases as the public API gives them:
// the schema of a zero value of the type or, for the rows below, the
// input schema of a tool.
func schemaGoldenCases(t *testing.T) []schemaGoldenCase {
	t.Helper()
	tools := map[string]func() (toolcall.Tool, error){
		"no_params": func() (toolcall.Tool, error) {
			return toolNamed("Units")(toolcall.ToolsFrom(SchemaUnits{}))
		},
		"method_params": func() (toolcall.Tool, error) {
			return toolNamed("Convert")(toolcall.ToolsFrom(SchemaUnits{}))
		},
		"method_params_strict": func() (toolcall.Tool, error) {
			return toolcall.NewMethod(SchemaUnits{}, "Convert", toolcall.WithParams(schematest.ConvertParams...), toolcall.WithStrict(true))
		},
		"func_struct_arg": func() (toolcall.Tool, error) {
			return toolcall.NewFunc("book_flight", "Book a flight", bookFlight)
		},
		"func_struct_arg_strict": func() (toolcall.Tool, error) {
			return toolcall.NewFunc("book_flight", "Book a flight", bookFlight, toolcall.WithStrict(true))
		},
	}
	var cases []schemaGoldenCase
	for _, c := range schematest.Cases() {
		tc := schemaGoldenCase{name: c.Name, strict: c.Strict, schema: typeSchema(c.Type, c.Strict)}
		if build, ok := tools[c.Name]; ok {
			tc.schema = toolSchema(c.Strict, build)
			delete(tools, c.Name)
		}
		cases = append(cases, tc)
	}
	for name := range tools {
		t.Fatalf("tool row %q is no case of schematest.Cases", name)
	}
	return cases
}

// typeSchema returns the schema of a zero value of t.
func typeSchema(t reflect.Type, strict bool) func() (json.RawMessage, error) {
	return func() (json.RawMessage, error) {
		v := reflect.Zero(t).Interface()
		if strict {
			return toolcall.StrictSchemaFor(v)
		}
		return toolcall.SchemaFor(v)
	}
}

func goldenPath(name string) string { return filepath.Join(schemaGoldenDir, name+".json") }

func TestSchemaGolden(t *testing.T) {
	t.Parallel()
	if *update {
		require.NoError(t, os.MkdirAll(schemaGoldenDir, 0o755))
	}
	for _, tc := range schemaGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw, err := tc.schema()
			require.NoError(t, err)
			require.True(t, json.Valid(raw), "schema is not valid JSON: %s", raw)
			got, err := schematest.Pretty(raw)
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
	for _, tc := range schemaGoldenCases(t) {
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
	assert.GreaterOrEqual(t, len(rows), 25, "the schema of every supported shape is pinned")
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
			return toolcall.NewTool(chat.ToolDefinition{Name: "ping"}, func(context.Context, json.RawMessage) (string, error) { return "pong", nil })
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
	Name  string             `json:"name" jsonschema:"description=Name"`
	Next  *schemaCacheProbe  `json:"next,omitempty"`
	Where schematest.Address `json:"where"`
}

// TestSchemaCache checks that a type is reflected once, and every later
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

// TestSchemaShape checks the shape rules on every golden row (an object
// root with properties and required, no $schema or $id, $defs only for
// recursive types), so a new row is held to them without reading its file.
func TestSchemaShape(t *testing.T) {
	t.Parallel()
	for _, tc := range schemaGoldenCases(t) {
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
			walkSchema(t, "#", root, tc.strict)
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
		assert.True(t, seen[name], "$defs/%s is not recursive, so it should be inlined", name)
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
	unmarshal, err := toolcall.NewFunc("price", "d", func(_ context.Context, a schematest.Unmarshalers) (string, error) {
		return fmt.Sprintf("%d %s #%02x%02x%02x", a.Price.Cents(), a.Price.Currency(), a.Color.R, a.Color.G, a.Color.B), nil
	})
	require.NoError(t, err)
	got, err := unmarshal.Call(context.Background(), json.RawMessage(`{"price":"12.50 EUR","color":"#ff8800"}`))
	require.NoError(t, err)
	assert.Equal(t, "1250 EUR #ff8800", got)
	_, err = unmarshal.Call(context.Background(), json.RawMessage(`{"price":"12.50 EUR","color":7}`))
	assert.ErrorContains(t, err, "color: expected string or null, got number", "a direct call reads null as absent")

	tags, err := toolcall.NewFunc("tags", "d", func(_ context.Context, a schematest.JSONTags) (int, error) { return a.AsString, nil })
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
