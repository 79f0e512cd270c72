//go:build unix

package mcptool_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/mcptool"
)

// serverEnv connects to the program (with its env tool) as s says and
// returns the environment the program sees.
func serverEnv(t *testing.T, bin string, s mcptool.Remote) map[string]string {
	t.Helper()
	s.Command, s.Args = bin, []string{"-env"}
	c := connect(t, s)
	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err)
	i := slices.IndexFunc(tools, func(tool toolcall.Tool) bool { return tool.Definition().Name == "env" })
	require.GreaterOrEqual(t, i, 0)
	out, err := tools[i].Call(context.Background(), json.RawMessage(`{}`))
	require.NoError(t, err)
	env := map[string]string{}
	for line := range strings.SplitSeq(out, "\n") {
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	require.NoError(t, c.Close())
	return env
}

// TestStdioServerDoesNotSeeHostSecrets: a stdio server gets HOME, LOGNAME,
// PATH, SHELL, TERM and USER from this process, none holding a shell
// function, and Remote.Env over them; not the API keys of the host. With
// InheritEnv it gets everything. (Not parallel: it sets this process's
// environment.)
func TestStdioServerDoesNotSeeHostSecrets(t *testing.T) {
	bin := buildServerProgram(t)
	t.Setenv("OPENAI_API_KEY", "sk-host-secret")
	t.Setenv("HOME", "/home/host")
	t.Setenv("USER", "host")
	t.Setenv("TERM", "() { :; }; echo pwned")
	path := os.Getenv("PATH")

	env := serverEnv(t, bin, mcptool.Remote{Env: []string{"HOME=/srv/home", "EXTRA=1"}})
	assert.NotContains(t, env, "OPENAI_API_KEY")
	assert.NotContains(t, env, "TERM", "a shell function")
	assert.Equal(t, "/srv/home", env["HOME"], "Env wins")
	assert.Equal(t, "1", env["EXTRA"])
	assert.Equal(t, "host", env["USER"])
	assert.Equal(t, path, env["PATH"])
	for k := range env {
		assert.Contains(t, []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "EXTRA"}, k)
	}

	env = serverEnv(t, bin, mcptool.Remote{})
	assert.NotContains(t, env, "OPENAI_API_KEY")
	assert.Equal(t, "/home/host", env["HOME"])

	env = serverEnv(t, bin, mcptool.Remote{InheritEnv: true, Env: []string{"EXTRA=1"}})
	assert.Equal(t, "sk-host-secret", env["OPENAI_API_KEY"], "inherited on request")
	assert.Equal(t, "() { :; }; echo pwned", env["TERM"])
	assert.Equal(t, "1", env["EXTRA"])
}

// testStdioFailedRestartIsServerExited: with Restart, a call whose restart
// attempt fails (the program is gone) gets ErrServerExited, wrapping the
// cause; so does the next one, while the Client waits to try again.
func testStdioFailedRestartIsServerExited(t *testing.T, bin string) {
	own := filepath.Join(t.TempDir(), "mcpserver")
	// A hard link, not a copy: a copy's file is open for writing while
	// parallel tests fork, and a child that holds it makes the exec fail
	// with "text file busy".
	if err := os.Link(bin, own); err != nil {
		b, err := os.ReadFile(bin)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(own, b, 0o755))
	}
	c := connect(t, mcptool.Remote{Name: "prog", Command: own, Restart: true})
	_, client, _ := killed(t, c)
	require.NoError(t, os.Remove(own))

	resp, err := client.Prompt("again").Call(context.Background())
	require.NoError(t, err, "a tool error, not the loop's")
	require.Len(t, resp.Executions, 1)
	e := resp.Executions[0]
	assert.True(t, e.IsError)
	require.ErrorIs(t, e.Err, mcptool.ErrServerExited)
	require.ErrorIs(t, e.Err, fs.ErrNotExist, "the cause")
	assert.True(t, strings.HasPrefix(e.Result, `mcptool: server "prog": tools/call pid: mcptool: server exited; starting it again failed: connect: `), e.Result)

	tools, err := c.Tools(context.Background(), nil)
	require.NoError(t, err, "the last good list")
	i := slices.IndexFunc(tools, func(tool toolcall.Tool) bool { return tool.Definition().Name == "pid" })
	_, err = tools[i].Call(context.Background(), json.RawMessage(`{}`))
	require.ErrorIs(t, err, mcptool.ErrServerExited)
	assert.Contains(t, err.Error(), "next attempt in")
	require.NoError(t, c.Close())
}
