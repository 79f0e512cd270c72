// Package providertest holds test helpers the provider packages share.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
)

// CheckGolden compares a request body with testdata/golden/NAME.json, or
// rewrites the file when update is set.
func CheckGolden(t *testing.T, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".json")
	if update {
		var buf bytes.Buffer
		require.NoError(t, json.Indent(&buf, bytes.TrimSpace(got), "", "  "))
		buf.WriteByte('\n')
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run go test -update in the package")
	assert.JSONEq(t, string(want), string(got), "request body differs from %s", path)
}

// A HookLog prints everything the loop's hooks receive, with %+v and, as
// %+v shows json.RawMessage values as bytes, as JSON too; and it keeps the
// model calls.
type HookLog struct {
	mu     sync.Mutex
	buf    strings.Builder
	models []toolcall.ModelCall
}

func (h *HookLog) print(what string, vs ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.WriteString(what)
	for _, v := range vs {
		fmt.Fprintf(&h.buf, " %+v", v)
		if err, ok := v.(error); ok {
			fmt.Fprintf(&h.buf, " %#v", err)
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			h.buf.WriteString(" ")
			h.buf.Write(b)
		}
	}
	h.buf.WriteString("\n")
}

// Hooks returns hooks that log into h.
func (h *HookLog) Hooks() toolcall.Hooks {
	return toolcall.Hooks{
		BeforeModel: func(ctx context.Context, req *toolcall.Request) { h.print("BeforeModel", req) },
		AfterModel: func(ctx context.Context, mc toolcall.ModelCall) {
			// Nested pointers print as addresses: the parts are printed
			// on their own too.
			h.print("AfterModel", mc, mc.Request, mc.Response, mc.Err)
			h.mu.Lock()
			h.models = append(h.models, mc)
			h.mu.Unlock()
		},
		BeforeTool: func(ctx context.Context, call toolcall.ToolCall) { h.print("BeforeTool", call) },
		AfterTool:  func(ctx context.Context, e toolcall.ToolExecution) { h.print("AfterTool", e, e.Err) },
	}
}

// String returns all that the hooks received, as text.
func (h *HookLog) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// ModelCalls returns the model calls AfterModel saw.
func (h *HookLog) ModelCalls() []toolcall.ModelCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]toolcall.ModelCall(nil), h.models...)
}
