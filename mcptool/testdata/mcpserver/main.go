// Command mcpserver is an MCP server written with the go-sdk alone, for
// the mcptool tests: it serves over stdio by default, or over streamable
// HTTP with -http ADDR, printing its endpoint URL on the first line of
// standard output.
//
// Its tools:
//
//   - sum {a, b}: a+b.
//   - pid: the server's process id.
//   - grow {name}: adds a tool of that name (answering "<name> here"); the
//     server then notifies tools/list_changed.
//   - break_list: the next tools/list fails with "list unavailable".
//   - env, only with -env: the server's environment, one variable a line.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	env := flag.Bool("env", false, "add the env tool")
	flag.Parse()
	s := newServer()
	if *env {
		mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "The server's environment"},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return text(strings.Join(os.Environ(), "\n")), nil, nil
			})
	}
	if *httpAddr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	log.Fatal(http.Serve(ln, h))
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpserver", Version: "v1"}, nil)
	var breakList atomic.Bool
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && breakList.CompareAndSwap(true, false) {
				return nil, errors.New("list unavailable")
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Adds two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			A int `json:"a"`
			B int `json:"b"`
		}) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(in.A + in.B)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "The server's process id"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds a tool"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (*mcp.CallToolResult, any, error) {
			name := in.Name
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Added by grow"},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return text(name + " here"), nil, nil
				})
			return text("added " + name), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "break_list", Description: "Makes the next tools/list fail"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			breakList.Store(true)
			return text("broken"), nil, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
