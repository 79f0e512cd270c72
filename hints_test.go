package toolcall_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

type hinted struct {
	_ toolcall.Method `tool:"Lookup" params:"q" hints:"readOnly, openWorld"`
	_ toolcall.Method `tool:"Purge" params:"id" hints:"destructive,idempotent" approval:"true"`
}

func (hinted) Lookup(q string) string { return "found " + q }
func (hinted) Purge(id string) string { return "purged " + id }

// TestToolHints: the hints of a method tag and of WithHints reach the
// tool's Metadata, and so the approver; an unknown or contradictory hint
// is refused when the tool is built.
func TestToolHints(t *testing.T) {
	t.Parallel()
	tools, err := toolcall.ToolsFrom(hinted{})
	require.NoError(t, err)
	md := map[string]toolcall.Metadata{}
	for _, tool := range tools {
		md[tool.Definition().Name] = tool.Metadata()
	}
	assert.Equal(t, toolcall.Metadata{ReadOnly: true, OpenWorld: true}, md["Lookup"])
	assert.Equal(t, toolcall.Metadata{Destructive: true, Idempotent: true, NeedsApproval: true}, md["Purge"])

	fn, err := toolcall.NewFunc("count", "Counts", func(ctx context.Context, _ struct{}) (int, error) { return 1, nil },
		toolcall.WithHints("readOnly", "idempotent"))
	require.NoError(t, err)
	assert.Equal(t, toolcall.Metadata{ReadOnly: true, Idempotent: true}, fn.Metadata())

	// The approver decides by the hints: read-only runs, the rest waits.
	approve := toolcall.WithApprover(func(ctx context.Context, call chat.ToolCall, md toolcall.Metadata) toolcall.Decision {
		return toolcall.Decision{Allow: md.ReadOnly}
	})
	model := tt.NewModel(tt.ToolCalls(tt.Call("c1", "Lookup", `{"q":"x"}`), tt.Call("c2", "count", `{}`)), tt.Text("ok"))
	resp, err := toolcall.NewClient(model, toolcall.WithTools(tools[0], fn), approve).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "found x", resp.Executions[0].Result)
	assert.Equal(t, "1", resp.Executions[1].Result)

	for hints, want := range map[string]string{
		"readonly":             `toolcall: tool "count": invalid tool: unknown hint "readonly": the hints are readOnly, destructive, idempotent and openWorld`,
		"readOnly,destructive": `toolcall: tool "count": invalid tool: hints readOnly and destructive contradict each other`,
	} {
		_, err := toolcall.NewFunc("count", "Counts", func(ctx context.Context, _ struct{}) (int, error) { return 1, nil }, toolcall.WithHints(strings.Split(hints, ",")...))
		require.ErrorIs(t, err, toolcall.ErrInvalidTool)
		assert.EqualError(t, err, want)
	}
	_, err = toolcall.ToolsFrom(badHint{})
	require.ErrorIs(t, err, toolcall.ErrInvalidTool)
	assert.ErrorContains(t, err, `unknown hint "safe"`)
}

type badHint struct {
	_ toolcall.Method `tool:"Lookup" params:"q" hints:"readOnly,safe"`
}

func (badHint) Lookup(q string) string { return q }
