//go:build unix

package mcptool_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/mcptool"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// TestServerProgram runs testdata/mcpserver, an MCP server written with
// the go-sdk alone, as a real subprocess: built once, into the test's
// temporary directory, for all the subtests here and in recovery_test.go.
func TestServerProgram(t *testing.T) {
	t.Parallel()
	bin := buildServerProgram(t)
	for _, st := range []struct {
		name string
		run  func(t *testing.T, bin string)
	}{
		{"StdioLoop", testStdioLoop},
		{"HTTPLoop", testHTTPLoop},
		{"StdioKilledRestart", testStdioKilledRestart},
		{"StdioKilledNoRestart", testStdioKilledNoRestart},
		{"StdioFailedRestartIsServerExited", testStdioFailedRestartIsServerExited},
		{"StdioFailedListKeepsTools", testStdioFailedListKeepsTools},
		{"StdioListChangedThreeTimes", testStdioListChangedThreeTimes},
	} {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			st.run(t, bin)
		})
	}
}

// buildServerProgram builds testdata/mcpserver from this module, offline
// (GOPROXY=off: the module cache has what go.sum names).
func buildServerProgram(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserver")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver")
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// programTools are the program's tools, sorted.
var programTools = []string{"break_list", "grow", "pid", "sum"}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// requireRunning checks that process pid exists.
func requireRunning(t *testing.T, pid int) {
	t.Helper()
	require.NoError(t, syscall.Kill(pid, 0), "process %d runs", pid)
}

// requireGone waits briefly until process pid no longer exists: it exited
// and was reaped (a zombie still answers signal 0).
func requireGone(t *testing.T, pid int) {
	t.Helper()
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}, 2*time.Second, 5*time.Millisecond, "process %d is gone", pid)
}

// testStdioLoop: the program over stdio in a full loop; Close ends the
// subprocess.
func testStdioLoop(t *testing.T, bin string) {
	c := connect(t, mcptool.Remote{Name: "prog", Command: bin})
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("1", "sum", `{"a":2,"b":3}`), tt.Call("2", "pid", `{}`)),
		tt.Text("done"),
	)
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
	require.Len(t, model.Requests(), 2)
	assert.Equal(t, programTools, sortedNames(model.Requests()[0].Tools))
	require.Len(t, resp.Executions, 2)
	assert.Equal(t, "5", resp.Executions[0].Result)
	assert.NoError(t, resp.Executions[0].Err)
	require.NoError(t, resp.Executions[1].Err)
	pid := atoi(t, resp.Executions[1].Result)
	assert.NotEqual(t, os.Getpid(), pid)
	requireRunning(t, pid)

	require.NoError(t, c.Close())
	requireGone(t, pid)
	require.NoError(t, c.Close(), "a second Close does nothing")
}

// httpClient has its own connections, closed at the test's end, so that
// none outlives the test (goleak).
func httpClient(t *testing.T) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// startHTTPProgram runs the program with -http addr and returns its
// endpoint URL and process id; the process is killed at the test's end.
func startHTTPProgram(t *testing.T, bin, addr string) (url string, pid int) {
	t.Helper()
	cmd := exec.Command(bin, "-http", addr)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	url = strings.TrimSpace(line)
	require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	return url, cmd.Process.Pid
}

// testHTTPLoop: the program over streamable HTTP on 127.0.0.1 in a full
// loop.
func testHTTPLoop(t *testing.T, bin string) {
	url, pid := startHTTPProgram(t, bin, "127.0.0.1:0")
	c := connect(t, mcptool.Remote{Name: "prog", URL: url, HTTPClient: httpClient(t)})
	model := tt.NewModel(
		tt.ToolCalls(tt.Call("1", "sum", `{"a":20,"b":22}`), tt.Call("2", "pid", `{}`)),
		tt.Text("done"),
	)
	resp, err := toolcall.NewClient(model, toolcall.WithToolset(c)).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
	assert.Equal(t, programTools, sortedNames(model.Requests()[0].Tools))
	require.Len(t, resp.Executions, 2)
	assert.Equal(t, "42", resp.Executions[0].Result)
	assert.NoError(t, resp.Executions[0].Err)
	assert.Equal(t, strconv.Itoa(pid), resp.Executions[1].Result, "the call reached that process")
	assert.NoError(t, resp.Executions[1].Err)
	require.NoError(t, c.Close())
}
