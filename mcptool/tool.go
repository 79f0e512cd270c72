package mcptool

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/internal/tooldefs"
)

// remoteTool is one tool of a server. The embedded tool, built by
// toolcall.NewTool, checks the arguments against the server's schema and
// calls the server; Metadata adds the server's annotations.
type remoteTool struct {
	toolcall.Tool
	meta toolcall.Metadata
}

func (t *remoteTool) Metadata() toolcall.Metadata { return t.meta }

// newTool turns t into a toolcall tool called name (see toolName). Its
// schema goes through the same fail-closed checks as any other tool's;
// calls reach the server under t's own name.
func (c *Client) newTool(name string, t *mcp.Tool) (toolcall.Tool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("mcptool: server %q: tool %q: input schema: %w", c.name, t.Name, err)
	}
	def := chat.ToolDefinition{Name: name, Description: t.Description, InputSchema: schema}
	if def.Description == "" {
		def.Description = t.Title
	}
	own := t.Name
	inner, err := toolcall.NewTool(def, func(ctx context.Context, args json.RawMessage) (string, error) {
		return c.call(ctx, own, args)
	})
	if err != nil {
		return nil, fmt.Errorf("mcptool: server %q: %w", c.name, err)
	}
	return &remoteTool{Tool: inner, meta: metadata(t.Annotations)}, nil
}

// maxName is the longest tool name the library (as OpenAI) takes, and
// hashLen the length of the suffix of a mapped name: '_' and 8 hex digits.
const (
	maxName = 64
	hashLen = 9
)

// toolName is the name the model sees for the server's tool name: Prefix
// and name when the library takes that name (tooldefs.CheckName: 1 to 64
// ASCII letters, digits, '_' and '-'); otherwise Prefix, name with each
// other character replaced by '_' and cut to fit, '_', and the first 8 hex
// digits of the SHA-256 of name. The mapping depends on the name alone, so a tool keeps its name
// when the list changes.
func (c *Client) toolName(name string) string {
	full := c.srv.Prefix + name
	if tooldefs.CheckName(full) == nil {
		return full
	}
	sum := sha256.Sum256([]byte(name))
	var b strings.Builder
	b.WriteString(c.srv.Prefix)
	for _, r := range name {
		if b.Len() == maxName-hashLen {
			break
		}
		if tooldefs.NameRune(r) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(sum[:4]))
	return b.String()
}

// checkPrefix makes sure a Prefix leaves room in a mapped name for one
// character of the tool's and the hash.
func checkPrefix(p string) error {
	switch {
	case p == "":
		return nil
	case strings.ContainsFunc(p, func(r rune) bool { return !tooldefs.NameRune(r) }):
		return errors.New("may hold only ASCII letters, digits, '_' and '-'")
	case len(p) > maxName-hashLen-1:
		return fmt.Errorf("is %d bytes long, the limit is %d", len(p), maxName-hashLen-1)
	}
	return nil
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

// call runs tools/call with arguments that passed the checks. Progress
// notifications of the call go to toolcall.ReportProgress while the call
// runs; the go-sdk may hand over the result before progress that came just
// ahead of it, and such late progress is dropped, as ReportProgress drops
// anything once a tool has returned. Ending ctx (or the tool timeout)
// makes the go-sdk send notifications/cancelled.
func (c *Client) call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	token := c.token.Add(1)
	params.SetProgressToken(token)
	key := progressKey(token)
	c.progress.Store(key, ctx)
	defer c.progress.Delete(key)

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
