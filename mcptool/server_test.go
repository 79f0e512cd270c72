package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/mcptool"
)

// calculator is a method tool set, as a program would serve it.
type calculator struct {
	_ toolcall.Method `tool:"Add" description:"Adds two numbers" params:"a: first; b: second"`
	_ toolcall.Method `tool:"Boom" description:"Panics"`
	_ toolcall.Method `tool:"Tenant" description:"The caller's tenant"`
}

func (calculator) Add(a, b int) int { return a + b }
func (calculator) Boom() string     { panic("secret stack detail") }
func (calculator) Tenant(tc toolcall.ToolContext) string {
	s, _ := tc.Value("tenant").(string)
	return "tenant=" + s
}

func servedTools(t *testing.T) []toolcall.Tool {
	t.Helper()
	tools, err := toolcall.ToolsFrom(calculator{})
	require.NoError(t, err)
	upper := toolcall.MustFunc("upper", "Upper-cases text", func(_ context.Context, in struct {
		Text string `json:"text" jsonschema:"maxLength=10"`
	}) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	raw, err := toolcall.NewTool(chat.ToolDefinition{Name: "raw", Description: "Hand-written",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)},
		func(_ context.Context, args json.RawMessage) (string, error) { return "raw " + string(args), nil })
	require.NoError(t, err)
	return append(tools, upper, raw)
}

func sdkClient(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	_, err := s.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdk-client"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestServedToolsListAsDefined(t *testing.T) {
	t.Parallel()
	tools := servedTools(t)
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "calc"}, tools, nil)
	require.NoError(t, err)
	cs := sdkClient(t, s)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, len(tools))
	defs, err := toolcall.NewManager().Definitions(tools)
	require.NoError(t, err)
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	for _, d := range defs {
		got := byName[d.Name]
		require.NotNil(t, got, d.Name)
		assert.Equal(t, d.Description, got.Description)
		schema, err := json.Marshal(got.InputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(d.InputSchema), string(schema), d.Name)
	}
}

// TestServedToolsListBytes compares the raw tools/list response on the
// wire with toolcall's own definitions.
func TestServedToolsListBytes(t *testing.T) {
	t.Parallel()
	tools := servedTools(t)
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "calc"}, tools, nil)
	require.NoError(t, err)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	req, err := http.NewRequest("POST", srv.URL, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, string(raw))
	var wire struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(raw, &wire))
	defs, err := toolcall.NewManager().Definitions(tools)
	require.NoError(t, err)
	require.Len(t, wire.Result.Tools, len(defs))
	for _, d := range defs {
		i := slices.IndexFunc(wire.Result.Tools, func(w struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}) bool {
			return w.Name == d.Name
		})
		require.GreaterOrEqual(t, i, 0, d.Name)
		w := wire.Result.Tools[i]
		assert.Equal(t, d.Description, w.Description)
		assert.Equal(t, string(d.InputSchema), string(w.InputSchema), "the schema's bytes on the wire")
	}
}

func TestServedCallsTakeTheLoopPath(t *testing.T) {
	t.Parallel()
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "calc"}, servedTools(t), nil)
	require.NoError(t, err)
	cs := sdkClient(t, s)
	for _, tc := range []struct {
		name, args, want string
		isError          bool
	}{
		{"Add", `{"a":2,"b":40}`, "42", false},
		{"Add", `{"a":"x","b":40}`, `invalid arguments for tool "Add": a: expected integer, got string`, true},
		{"upper", `{"text":"hello"}`, "HELLO", false},
		{"upper", `{"text":"far too long text"}`, `invalid arguments for tool "upper": text: must be at most 10 characters long`, true},
		{"raw", `{"n":3}`, `raw {"n":3}`, false},
		{"raw", `{"n":0}`, `invalid arguments for tool "raw": n: must be >= 1`, true},
		{"Boom", `{}`, "tool Boom failed: internal error", true},
		{"Tenant", `{}`, "tenant=", false},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.name, Arguments: json.RawMessage(tc.args)})
		require.NoError(t, err, tc.name)
		require.Len(t, res.Content, 1)
		assert.Equal(t, tc.want, res.Content[0].(*mcp.TextContent).Text, "%s %s", tc.name, tc.args)
		assert.Equal(t, tc.isError, res.IsError, "%s %s", tc.name, tc.args)
	}
}

func TestServedToolContextComesFromTheServer(t *testing.T) {
	t.Parallel()
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "calc"}, servedTools(t), &mcptool.ServerOptions{
		ToolContext: func(_ context.Context, req *mcp.CallToolRequest) (toolcall.ToolContext, error) {
			tenant := req.Extra.Header.Get("X-Tenant")
			if tenant == "" {
				return toolcall.ToolContext{}, errors.New("no tenant")
			}
			return toolcall.NewToolContext(map[string]any{"tenant": tenant}), nil
		},
	})
	require.NoError(t, err)
	for _, stateless := range []bool{false, true} {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
		srv := httptest.NewServer(h)
		c, err := mcptool.Connect(context.Background(), mcptool.Remote{URL: srv.URL, Header: http.Header{"X-Tenant": {"acme"}}})
		require.NoError(t, err)
		tools, err := c.Tools(context.Background(), nil)
		require.NoError(t, err)
		var tenant toolcall.Tool
		for _, tool := range tools {
			if tool.Definition().Name == "Tenant" {
				tenant = tool
			}
		}
		require.NotNil(t, tenant)
		// The arguments cannot carry a tenant: the schema has no such
		// parameter, and the checks refuse unknown ones.
		out, err := tenant.Call(context.Background(), json.RawMessage(`{}`))
		require.NoError(t, err)
		assert.Equal(t, "tenant=acme", out, "stateless=%v", stateless)
		_, err = tenant.Call(context.Background(), json.RawMessage(`{"tenant":"evil"}`))
		require.Error(t, err)
		c.Close()

		// Without the header the call is refused.
		c, err = mcptool.Connect(context.Background(), mcptool.Remote{URL: srv.URL})
		require.NoError(t, err)
		tools, err = c.Tools(context.Background(), nil)
		require.NoError(t, err)
		for _, tool := range tools {
			if tool.Definition().Name == "Tenant" {
				_, err = tool.Call(context.Background(), json.RawMessage(`{}`))
				require.Error(t, err)
				assert.Contains(t, err.Error(), "no tenant")
			}
		}
		c.Close()
		srv.Close()
	}
}

func TestServedAnnotations(t *testing.T) {
	t.Parallel()
	ro, err := toolcall.NewTool(chat.ToolDefinition{Name: "ro"}, func(context.Context, json.RawMessage) (string, error) { return "", nil })
	require.NoError(t, err)
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "a"}, []toolcall.Tool{readOnly{ro}}, nil)
	require.NoError(t, err)
	res, err := sdkClient(t, s).ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.NotNil(t, res.Tools[0].Annotations)
	assert.True(t, res.Tools[0].Annotations.ReadOnlyHint)
	assert.Nil(t, res.Tools[0].Annotations.DestructiveHint, "false claims nothing: MCP's default stays")
}

type readOnly struct{ toolcall.Tool }

func (readOnly) Metadata() toolcall.Metadata { return toolcall.Metadata{ReadOnly: true} }

// TestRoundTrip serves toolcall tools and consumes them again through
// Connect in a full loop.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "calc"}, servedTools(t), nil)
	require.NoError(t, err)
	c := connect(t, mcptool.Remote{Transport: inMemory(s)})
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	var mu sync.Mutex
	var out bytes.Buffer
	for _, tool := range tools {
		if tool.Definition().Name == "Add" {
			r, err := tool.Call(context.Background(), json.RawMessage(`{"a":1,"b":2}`))
			require.NoError(t, err)
			mu.Lock()
			out.WriteString(r)
			mu.Unlock()
		}
	}
	assert.Equal(t, "3", out.String())
}

type weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
	Note string  `json:"note,omitempty"`
}

func TestServedStructuredContent(t *testing.T) {
	t.Parallel()
	report := toolcall.MustFunc("weather", "The weather", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (weather, error) {
		return weather{City: in.City, Temp: 21.5, Note: strings.Repeat("x", len(in.City))}, nil
	})
	converted := toolcall.MustFunc("converted", "Converted", func(context.Context, struct{}) (weather, error) {
		return weather{City: "a"}, nil
	}, toolcall.WithConverter(func(v any) (string, error) { return "custom", nil }))
	text := toolcall.MustFunc("text", "Text", func(context.Context, struct{}) (string, error) { return "{}", nil })
	m := toolcall.NewManager(toolcall.WithLimits(toolcall.Limits{MaxResultBytes: 60}))
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "w"}, []toolcall.Tool{report, converted, text}, &mcptool.ServerOptions{Manager: m})
	require.NoError(t, err)
	cs := sdkClient(t, s)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	want, err := toolcall.SchemaFor(weather{})
	require.NoError(t, err)
	schemas := map[string]any{}
	for _, tool := range list.Tools {
		schemas[tool.Name] = tool.OutputSchema
	}
	got, err := json.Marshal(schemas["weather"])
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	assert.Nil(t, schemas["converted"], "a converted result has no schema")
	assert.Nil(t, schemas["text"])

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Oslo"}})
	require.NoError(t, err)
	assert.Equal(t, `{"city":"Oslo","temp":21.5,"note":"xxxx"}`, res.Content[0].(*mcp.TextContent).Text)
	sc, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.JSONEq(t, `{"city":"Oslo","temp":21.5,"note":"xxxx"}`, string(sc))

	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": strings.Repeat("O", 40)}})
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "[truncated: result was")
	assert.Nil(t, res.StructuredContent, "a cut result is text only")
}

func TestServedApprovalIsKept(t *testing.T) {
	t.Parallel()
	var runs int
	pay := toolcall.MustFunc("pay", "Pays", func(context.Context, struct{}) (string, error) { runs++; return "paid", nil }, toolcall.WithNeedsApproval(true))
	s, err := mcptool.NewServer(&mcp.Implementation{Name: "bank"}, []toolcall.Tool{pay}, nil)
	require.NoError(t, err)
	res, err := sdkClient(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "tool pay was not run: it waits for approval, which this server cannot wait for", res.Content[0].(*mcp.TextContent).Text)
	assert.Zero(t, runs)

	// With an approver in the server's Manager, the server decides.
	m := toolcall.NewManager(toolcall.WithApprover(func(context.Context, chat.ToolCall, toolcall.Metadata) toolcall.Decision {
		return toolcall.Decision{Allow: true}
	}))
	s, err = mcptool.NewServer(&mcp.Implementation{Name: "bank"}, []toolcall.Tool{pay}, &mcptool.ServerOptions{Manager: m})
	require.NoError(t, err)
	res, err = sdkClient(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, 1, runs)
}

// TestNewServerRefusesARepeatedTool: the same tool twice, or two tools of
// one name, is an error, not a panic or a server calling the wrong tool.
func TestNewServerRefusesARepeatedTool(t *testing.T) {
	t.Parallel()
	tools := servedTools(t)
	upper := tools[len(tools)-2]
	other := toolcall.MustFunc("upper", "Another upper", func(context.Context, struct{}) (string, error) { return "", nil })
	for _, tc := range []struct {
		name  string
		tools []toolcall.Tool
		want  string
	}{
		{"the same tool twice", append(slices.Clone(tools), upper), `mcptool: serving: tool "upper" is given twice`},
		{"the same tool twice, first", append([]toolcall.Tool{upper}, tools...), `mcptool: serving: tool "upper" is given twice`},
		{"two tools of one name", append(slices.Clone(tools), other), `mcptool: serving: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s *mcp.Server
			var err error
			require.NotPanics(t, func() { s, err = mcptool.NewServer(&mcp.Implementation{Name: "calc"}, tc.tools, nil) })
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), `"upper"`)
		})
	}
}
