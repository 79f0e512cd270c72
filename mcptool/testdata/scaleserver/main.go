// Command scaleserver serves one toolcall tool, record, through
// mcptool.NewServer over streamable HTTP in stateless mode, for mcptool's
// scale-out test (TestScaleOutStatelessHTTP).
//
// It listens on -addr (port 0 picks a free one) and prints its base URL as
// the first line on stdout ("listening http://127.0.0.1:PORT"). The MCP
// endpoint /mcp speaks every protocol version the go-sdk does, 2026-07-28
// (server/discover, no standalone SSE GET) included; /legacy only the
// versions before it (initialize, then a standalone SSE GET that a stateless
// server answers with 405). GET /counts answers with the calls of record
// both served, as a JSON object from call key to count. With -watch-stdin it exits when
// its standard input closes, so that it never outlives the test that
// started it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/mcptool"
)

// RecordArgs is the input of the record tool: a key unique to one call.
type RecordArgs struct {
	Key string `json:"key" jsonschema:"description=The call's unique key"`
}

// RecordResult says which server served the call.
type RecordResult struct {
	Key    string `json:"key"`
	Server string `json:"server"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	name := flag.String("name", "scaleserver", "the server's name, returned with each call")
	watchStdin := flag.Bool("watch-stdin", false, "exit when standard input closes")
	flag.Parse()
	log.SetPrefix("scaleserver " + *name + ": ")

	var (
		mu     sync.Mutex
		counts = map[string]int{}
	)
	record := toolcall.MustFunc("record", "Records a call key and says which server served it",
		func(_ context.Context, in RecordArgs) (RecordResult, error) {
			mu.Lock()
			counts[in.Key]++
			mu.Unlock()
			return RecordResult{Key: in.Key, Server: *name}, nil
		})
	impl := &mcp.Implementation{Name: *name, Version: "v1"}
	s, err := mcptool.NewServer(impl, []toolcall.Tool{record}, nil)
	if err != nil {
		log.Fatal(err)
	}
	var legacy []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			legacy = append(legacy, v)
		}
	}
	ls, err := mcptool.NewServer(impl, []toolcall.Tool{record}, &mcptool.ServerOptions{
		MCP: &mcp.ServerOptions{SupportedProtocolVersions: legacy}})
	if err != nil {
		log.Fatal(err)
	}

	mux := http.NewServeMux()
	stateless := &mcp.StreamableHTTPOptions{Stateless: true}
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, stateless))
	mux.Handle("/legacy", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ls }, stateless))
	mux.HandleFunc("GET /counts", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		b, err := json.Marshal(counts)
		mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening http://%s\n", ln.Addr())
	if *watchStdin {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
	}
	log.Fatal((&http.Server{Handler: mux}).Serve(ln))
}
