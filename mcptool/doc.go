// Package mcptool connects toolcall to the Model Context Protocol, both
// ways, on the official SDK (github.com/modelcontextprotocol/go-sdk, whose
// package mcp a program imports beside this one):
//
//   - [Connect] makes the tools of any MCP server toolcall tools: a [Client]
//     is a toolcall.Toolset, so each model request offers the server's
//     current tools. Their input schemas go through toolcall's fail-closed
//     checks like any other tool's, so every call is checked before it is
//     sent to the server.
//   - [NewServer] serves toolcall tools (method tools, funcs, hand-written)
//     to any MCP client, over stdio or streamable HTTP.
//
// # Results
//
// A tool's result becomes the model's text as follows: structuredContent
// as its JSON; otherwise each content item on a line of its own, text as
// it is, an embedded text resource as its text, and images, audio, links
// and binary resources described in brackets, e.g. "[image image/png, 68
// bytes]". A result with isError is a tool error the model sees (the
// toolcall error policy applies); a protocol or transport error is a tool
// error too, wrapped with the server's name.
//
// # Recovery
//
// A streamable HTTP server that lost the session (it restarted) ran
// nothing, so the Client connects again and sends the request once more. A
// stdio server that exited is started again on the next call when
// [Server].Restart is set, waiting longer between attempts while it fails
// (from 100ms up to 30s); otherwise calls fail with [ErrServerExited]. A
// tools/list that fails keeps the last good list, so the offered tools
// never shrink silently, and is tried again on the next request.
package mcptool
