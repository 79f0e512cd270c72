// Command testserver runs a Temporal server for the temporaltoolcall tests:
// SQLite in memory, frontend on loopback. It prints one line,
// "ready HOST:PORT NAMESPACE", and runs until its standard input closes or it
// gets SIGINT or SIGTERM, so a test that dies takes the server with it.
//
// It lives in a module of its own because the server needs an older
// OpenTelemetry log API than the toolcall module selects.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/server/temporaltest"
)

func main() {
	ts := temporaltest.NewServer()
	fmt.Printf("ready %s %s\n", ts.GetFrontendHostPort(), ts.GetDefaultNamespace())

	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	ts.Stop()
}
