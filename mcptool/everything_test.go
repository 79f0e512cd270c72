//go:build unix

package mcptool_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/mcptool"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// everythingEnv names the mcp-server-everything binary of
// @modelcontextprotocol/server-everything@2026.8.31, the MCP reference
// server. .ci/mcp-everything installs it with npm and runs
// TestEverythingServer with the variable set.
const everythingEnv = "TOOLCALL_MCP_EVERYTHING"

// TestEverythingServer runs the reference server's tools through a whole
// toolcall loop, over stdio and over streamable HTTP. It needs Node and the
// server installed, so it is skipped unless everythingEnv is set.
func TestEverythingServer(t *testing.T) {
	bin := os.Getenv(everythingEnv)
	if bin == "" {
		t.Skip(everythingEnv + " is not set: run .ci/mcp-everything, which installs @modelcontextprotocol/server-everything@2026.8.31 with npm and runs this test with " + everythingEnv + "=/path/to/node_modules/.bin/mcp-server-everything")
	}
	t.Run("stdio", func(t *testing.T) {
		everything(t, mcptool.Remote{Name: "everything", Command: bin, Args: []string{"stdio"}})
	})
	t.Run("streamableHttp", func(t *testing.T) {
		url := startEverythingHTTP(t, bin)
		// Its own transport, so that no idle connection outlives the test
		// (goleak).
		tr := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(tr.CloseIdleConnections)
		everything(t, mcptool.Remote{Name: "everything", URL: url, HTTPClient: &http.Client{Transport: tr}})
	})
}

// The texts the model gets for the calls below.
const (
	everythingEcho = "Echo: hi"
	everythingSum  = "The sum of 2 and 3 is 5."
	everythingSumF = "The sum of 1.5 and -4 is -2.5."
	// Text, the 4033-byte PNG (5380 characters of base64), text.
	everythingImage = "Here's the image you requested:\n[image image/png, 4033 bytes]\nThe image above is the MCP logo."
	// structuredContent as its JSON (the content also holds it as text).
	everythingWeather = `{"conditions":"Light rain / drizzle","humidity":82,"temperature":36}`
	// toolcall's own check of the arguments against the server's schema.
	everythingBadCity = `invalid arguments for tool "get-structured-content": location: must be one of "New York", "Chicago", "Los Angeles"`
)

func everything(t *testing.T, s mcptool.Remote) {
	var mu sync.Mutex
	refused := map[string]bool{}
	s.OnRefused = func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if !refused[err.Error()] {
			refused[err.Error()] = true
			t.Logf("refused: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mcptool.Connect(ctx, s)
	require.NoError(t, err)
	t.Cleanup(func() {
		// Close returns once a stdio server's process has exited.
		err := c.Close()
		assert.NoError(t, err, "Close")
	})

	tools, err := c.Tools(ctx, nil)
	require.NoError(t, err)
	md := map[string]toolcall.Metadata{}
	for _, tool := range tools {
		md[tool.Definition().Name] = tool.Metadata()
	}
	t.Logf("offered: %v", slices.Sorted(maps.Keys(md)))
	mu.Lock()
	t.Logf("refused: %d tools", len(refused))
	mu.Unlock()
	for _, name := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content"} {
		if assert.Contains(t, md, name, "offered") {
			assert.Equal(t, toolcall.Metadata{ReadOnly: true, Idempotent: true}, md[name], "%s: its annotations", name)
		}
	}

	model := tt.NewModel(
		tt.ToolCalls(
			tt.Call("1", "echo", `{"message":"hi"}`),
			tt.Call("2", "get-sum", `{"a":2,"b":3}`),
			tt.Call("3", "get-sum", `{"a":1.5,"b":-4}`),
			tt.Call("4", "get-tiny-image", `{}`),
			tt.Call("5", "get-structured-content", `{"location":"Chicago"}`),
			tt.Call("6", "get-structured-content", `{"location":"Paris"}`),
		),
		tt.Text("done"),
	)
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c)).Prompt("go").Call(ctx)
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
	require.Len(t, model.Requests(), 2)
	var offered []string
	for _, d := range model.Requests()[0].Tools {
		offered = append(offered, d.Name)
	}
	assert.Subset(t, offered, []string{"echo", "get-sum", "get-tiny-image", "get-structured-content"}, "offered to the model")

	require.Len(t, resp.Executions, 6)
	got := map[string]string{}
	for _, e := range resp.Executions {
		got[e.Call.ID] = e.Result
		assert.Equal(t, e.Call.ID == "6", e.IsError, "call %s (%s): %s", e.Call.ID, e.Call.Name, e.Result)
	}
	assert.Equal(t, everythingEcho, got["1"])
	assert.Equal(t, everythingSum, got["2"])
	assert.Equal(t, everythingSumF, got["3"])
	assert.Equal(t, everythingImage, got["4"])
	assert.Equal(t, everythingWeather, got["5"])
	assert.Equal(t, everythingBadCity, got["6"], "the enum is checked before the server is asked")
	var tr *toolcall.ToolError
	assert.ErrorAs(t, resp.Executions[5].Err, &tr)
}

// startEverythingHTTP starts the server's streamable HTTP transport on a
// free port and returns its endpoint. The process runs in a group of its
// own, which the test's cleanup kills.
func startEverythingHTTP(t *testing.T, bin string) string {
	t.Helper()
	var lastErr error
	for range 3 { // the port may be taken between choosing and listening
		port, err := everythingPort()
		require.NoError(t, err)
		if err := runEverythingHTTP(t, bin, port); err != nil {
			lastErr = err
			t.Logf("port %d: %v", port, err)
			continue
		}
		return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	}
	require.NoError(t, lastErr, "starting %s streamableHttp", bin)
	return ""
}

func everythingPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// runEverythingHTTP starts the server on port and waits until it accepts
// connections. On success the cleanup kills its process group; on failure
// it is dead already.
func runEverythingHTTP(t *testing.T, bin string, port int) error {
	out := &everythingOutput{}
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() error {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group: the server and anything it started
		return <-exited
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("exited (%v) before listening:\n%s", err, out)
		default:
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			err := stop()
			return fmt.Errorf("not listening after 30s (%v):\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s streamableHttp output:\n%s", bin, out)
		}
	})
	return nil
}

// everythingOutput is a bytes.Buffer safe for the process's output and the test.
type everythingOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *everythingOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *everythingOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
