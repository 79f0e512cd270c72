package mcptool

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
)

// remoteTool is one tool of a server. The embedded tool, built by
// toolcall.NewTool, checks the arguments against the server's schema and
// calls the server; Metadata adds the server's annotations.
type remoteTool struct {
	toolcall.Tool
	meta toolcall.Metadata
}

func (t *remoteTool) Metadata() toolcall.Metadata { return t.meta }

// newTool turns t into a toolcall tool. Its schema goes through the same
// fail-closed checks as any other tool's.
func (c *Client) newTool(t *mcp.Tool) (toolcall.Tool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("mcptool: server %q: tool %q: input schema: %w", c.name, t.Name, err)
	}
	name := t.Name
	def := chat.ToolDefinition{Name: c.srv.Prefix + name, Description: t.Description, InputSchema: schema}
	if def.Description == "" {
		def.Description = t.Title
	}
	inner, err := toolcall.NewTool(def, func(ctx context.Context, args json.RawMessage) (string, error) {
		return c.call(ctx, name, args)
	})
	if err != nil {
		return nil, fmt.Errorf("mcptool: server %q: %w", c.name, err)
	}
	return &remoteTool{Tool: inner, meta: metadata(t.Annotations)}, nil
}

// metadata reads MCP's tool annotations, with the protocol's defaults for
// absent hints: a tool is destructive and open-world unless it says not.
func metadata(a *mcp.ToolAnnotations) toolcall.Metadata {
	if a == nil {
		return toolcall.Metadata{Destructive: true, OpenWorld: true}
	}
	return toolcall.Metadata{
		ReadOnly:    a.ReadOnlyHint,
		Destructive: !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint),
		Idempotent:  a.IdempotentHint,
		OpenWorld:   a.OpenWorldHint == nil || *a.OpenWorldHint,
	}
}

// progressGrace is how long a call's progress notifications are still
// delivered after its result.
const progressGrace = 2 * time.Second

// call runs tools/call with arguments that passed the checks. Progress
// notifications of the call go to toolcall.ReportProgress; ending ctx (or
// the tool timeout) makes the go-sdk send notifications/cancelled.
func (c *Client) call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	token := c.token.Add(1)
	params.SetProgressToken(token)
	key := progressKey(token)
	c.progress.Store(key, ctx)
	// The go-sdk may hand over the result before the progress that came
	// ahead of it, so the token is forgotten a little later.
	defer time.AfterFunc(progressGrace, func() { c.progress.Delete(key) })

	var res *mcp.CallToolResult
	err := c.withSession(ctx, true, func(cs *mcp.ClientSession) error {
		var err error
		res, err = cs.CallTool(ctx, params)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("mcptool: server %q: tools/call %s: %w", c.name, name, err)
	}
	if res.IsError {
		return "", errors.New(contentText(res.Content))
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return "", fmt.Errorf("mcptool: server %q: tools/call %s: structured content: %w", c.name, name, err)
		}
		return string(b), nil
	}
	return contentText(res.Content), nil
}

// contentText is the text the model gets for a result's content, one
// line per item: text as it is, an embedded text resource as its text, and
// other content described in brackets, as in "[image image/png, 68
// bytes]", "[audio audio/wav, 1024 bytes]", "[resource file:///a.txt
// (text/plain): a.txt]" for a link, and "[resource file:///b.bin
// (application/octet-stream), 12 bytes]" for an embedded blob.
func contentText(content []mcp.Content) string {
	var b strings.Builder
	for i, item := range content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch v := item.(type) {
		case *mcp.TextContent:
			b.WriteString(v.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", v.MIMEType, len(v.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", v.MIMEType, len(v.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[resource %s%s: %s]", v.URI, mime(v.MIMEType), cmp.Or(v.Title, v.Name))
		case *mcp.EmbeddedResource:
			r := v.Resource
			switch {
			case r == nil:
				b.WriteString("[resource]")
			case r.Blob == nil:
				b.WriteString(r.Text)
			default:
				fmt.Fprintf(&b, "[resource %s%s, %d bytes]", r.URI, mime(r.MIMEType), len(r.Blob))
			}
		default:
			fmt.Fprintf(&b, "[%T]", item)
		}
	}
	return b.String()
}

func mime(t string) string {
	if t == "" {
		return ""
	}
	return " (" + t + ")"
}
