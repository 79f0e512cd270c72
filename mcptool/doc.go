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
// # Trust boundary
//
// A server is another program, and what it sends is untrusted; what the
// Client gives it is only what the program configured:
//
//   - A stdio server gets a short environment, as the official MCP SDKs
//     give it: HOME, LOGNAME, PATH, SHELL, TERM and USER (on Windows
//     APPDATA, HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH,
//     PROCESSOR_ARCHITECTURE, PROGRAMFILES, SYSTEMDRIVE, SYSTEMROOT, TEMP,
//     USERNAME and USERPROFILE), leaving out values that start with "()"
//     (shell functions), then [Remote].Env. The host's API keys stay
//     with the host unless [Remote].InheritEnv says otherwise.
//   - Credentials in a server's URL (user and password, path, query) go
//     to that endpoint alone and appear in no error, tool result or hook:
//     a server is named by its URL's scheme and host, or by
//     [Remote].Name. [Remote].Header
//     goes only to the URL's origin; a redirect to another origin carries
//     none of it (net/http itself would forward, say, X-Api-Key). A 401
//     says to set the credentials in [Remote].Header.
//   - tools/list is read page by page within bounds: at most 100 pages,
//     at most [Remote].MaxTools tools (1000 by default), and a cursor
//     given twice is a loop; each ends the listing with a [*ListError].
//
// # Tool names
//
// MCP asks servers to name a tool with 1 to 128 ASCII letters, digits,
// '_', '-' and '.' (it is not a must: servers send other names too), while
// this library, as the OpenAI API, takes ^[a-zA-Z0-9_-]{1,64}$. A tool whose name, with [Remote].Prefix,
// fits that is offered under it. Any other is offered under a legal name
// of its own: Prefix, the name with each character outside
// [a-zA-Z0-9_-] replaced by '_' and cut to fit, '_', and the first 8 hex
// digits of the SHA-256 of the name: "files.list" is
// "files_list_<8 hex digits>". The name depends on the tool's name alone,
// so it stays the same while the list changes, and the Client calls the
// server by the tool's own name. Tools of one list that would be offered
// under one name (a server listing a name twice, or a mapped name some
// other tool has as its own) are all refused, as a refused schema is:
// through [Remote].OnRefused, or else Connect fails.
//
// # Recovery
//
// A streamable HTTP server that lost the session (it restarted) ran
// nothing, so the Client connects again and sends the request once more. A
// stdio server that exited is started again on the next call when
// [Remote].Restart is set, waiting longer between attempts while it fails
// (from 100ms up to 30s); otherwise calls fail with [ErrServerExited], as
// does a call whose attempt to start it again failed (with the cause). A
// tools/list that fails keeps the last good list, so the offered tools
// never shrink silently, and is tried again on the next request.
package mcptool
