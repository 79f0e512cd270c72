package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
)

// ServerOptions configure [NewServer]. The zero value serves the tools
// with a default toolcall.Manager and no tool context.
type ServerOptions struct {
	// Manager runs each call, with its checks, limits, per-tool timeouts,
	// middleware, hooks and error policy: a call goes through the same
	// path as in a toolcall loop. Nil means toolcall.NewManager().
	Manager *toolcall.Manager
	// ToolContext gives a call its toolcall.ToolContext, from the server's
	// side only: req.Extra holds, over HTTP, the header and the
	// authentication (auth.TokenInfo) of the request carrying the call. A
	// client cannot set it. An error refuses the call.
	ToolContext func(ctx context.Context, req *mcp.CallToolRequest) (toolcall.ToolContext, error)
	// MCP configures the go-sdk server; nil means its defaults.
	MCP *mcp.ServerOptions
}

// NewServer returns a go-sdk server offering tools. Serve it over stdio
// with its Run method and an mcp.StdioTransport, or over streamable HTTP
// with mcp.NewStreamableHTTPHandler (stateful or, with
// StreamableHTTPOptions.Stateless, stateless).
//
// tools/list gives each tool's toolcall definition: the same name,
// description and input schema (the strict variant for a strict tool),
// and its hints as annotations (readOnlyHint and idempotentHint). A tool
// whose result is a struct converted to JSON by the default conversion
// (see toolcall.Tool's OutputSchema) also has an outputSchema, and its
// results carry structuredContent beside the text, unless the result was
// cut to the size limit. A tool that fails
// answers with isError and the text the error policy gives (a panic's
// value and stack never reach the client); a call whose context ends is a
// protocol error. A call that would wait for a decision (a tool that needs
// approval and no approver in the Manager decided it, or a tool that
// paused itself) is not run and answers with isError: MCP cannot wait.
//
// A tool given twice, or two tools of one name, is an error.
func NewServer(impl *mcp.Implementation, tools []toolcall.Tool, opts *ServerOptions) (*mcp.Server, error) {
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	m := o.Manager
	if m == nil {
		m = toolcall.NewManager()
	}
	defs, err := m.Definitions(tools)
	if err != nil {
		return nil, fmt.Errorf("mcptool: serving: %w", err)
	}
	if len(defs) != len(tools) {
		// Definitions defines a tool given twice once; a server registers
		// each name once, so the list was meant otherwise.
		seen := map[string]bool{}
		for _, d := range tools {
			name := d.Definition().Name
			if seen[name] {
				return nil, fmt.Errorf("mcptool: serving: tool %q is given twice", name)
			}
			seen[name] = true
		}
	}
	s := mcp.NewServer(impl, o.MCP)
	for i, t := range tools {
		def := defs[i]
		tool := &mcp.Tool{Name: def.Name, Description: def.Description, InputSchema: json.RawMessage(def.InputSchema),
			Annotations: annotations(t.Metadata())}
		var structured bool
		if out, ok := t.(interface{ OutputSchema() json.RawMessage }); ok {
			if schema := out.OutputSchema(); schema != nil {
				tool.OutputSchema, structured = schema, true
			}
		}
		one := []toolcall.Tool{t}
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return serve(ctx, m, o.ToolContext, one, structured, req)
		})
	}
	return s, nil
}

// annotations gives a tool's hints to MCP clients. Metadata's false claims
// nothing, so destructiveHint and openWorldHint stay absent: MCP reads that
// as true, the careful reading.
func annotations(md toolcall.Metadata) *mcp.ToolAnnotations {
	if !md.ReadOnly && !md.Idempotent {
		return nil
	}
	return &mcp.ToolAnnotations{ReadOnlyHint: md.ReadOnly, IdempotentHint: md.Idempotent}
}

func serve(ctx context.Context, m *toolcall.Manager, toolContext func(context.Context, *mcp.CallToolRequest) (toolcall.ToolContext, error),
	tools []toolcall.Tool, structured bool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if toolContext != nil {
		tc, err := toolContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("mcptool: tool %s refused: %w", req.Params.Name, err)
		}
		ctx = toolcall.ContextWithToolContext(ctx, tc)
	}
	call := chat.ToolCall{ID: "mcp", Name: req.Params.Name, Arguments: req.Params.Arguments}
	resp, err := m.Execute(ctx, tools, &chat.Request{}, &chat.Response{Message: chat.AssistantMessage("", call)})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if p := (*toolcall.Paused)(nil); errors.As(err, &p) {
		// MCP has no way to wait for a decision: the call is refused.
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: fmt.Sprintf("tool %s was not run: it waits for %s, which this server cannot wait for", req.Params.Name, p.Pending[0].Reason)}}}, nil
	}
	e := resp.Executions[0]
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: e.Result}}, IsError: e.IsError || err != nil}
	if structured && !res.IsError && json.Valid([]byte(e.Result)) { // a result cut to the size limit is text
		res.StructuredContent = json.RawMessage(e.Result)
	}
	return res, nil
}
