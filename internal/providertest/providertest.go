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
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
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
		BeforeModel: func(ctx context.Context, req *chat.Request) context.Context {
			h.print("BeforeModel", req)
			return ctx
		},
		AfterModel: func(ctx context.Context, mc toolcall.ModelCall) {
			// Nested pointers print as addresses: the parts are printed
			// on their own too.
			h.print("AfterModel", mc, mc.Request, mc.Response, mc.Err)
			h.mu.Lock()
			h.models = append(h.models, mc)
			h.mu.Unlock()
		},
		BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			h.print("BeforeTool", call)
			return ctx
		},
		AfterTool: func(ctx context.Context, e toolcall.ToolExecution) { h.print("AfterTool", e, e.Err) },
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

// CheckFailedSecondRound checks the outcome of a loop whose first round
// called get_weather for Paris and Lyon and whose second model request
// failed with err: a *chat.ProviderError naming provider, model,
// status and Retry-After; nothing of the first round lost; AfterModel saw
// the error.
func CheckFailedSecondRound(t *testing.T, resp *toolcall.Response, err error, log *HookLog, provider, model string, status int, retryAfter time.Duration) {
	t.Helper()
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, provider, pe.Provider)
	assert.Equal(t, status, pe.StatusCode)
	assert.Equal(t, model, pe.Model)
	assert.Equal(t, retryAfter, pe.RetryAfter)
	assert.Len(t, resp.Executions, 2)
	assert.Len(t, resp.Intermediate, 1, "the model responses received")
	require.Len(t, resp.History, 4, "the question, the calls and their two results")
	assert.Equal(t, chat.RoleUser, resp.History[0].Role)
	assert.Len(t, resp.History[1].ToolCalls, 2)
	assert.Equal(t, "sunny in Paris", resp.History[2].Content)
	assert.Equal(t, "sunny in Lyon", resp.History[3].Content)
	mcs := log.ModelCalls()
	require.Len(t, mcs, 2)
	assert.Equal(t, 2, mcs[1].Round)
	assert.Equal(t, err, mcs[1].Err, "AfterModel saw the error")
	assert.Nil(t, mcs[1].Response)
}

// CheckReportedBadCall checks a loop whose second reply made a bad call
// "call_rm" after the first round's two calls: the call failed with
// wantMsg for the model (wrapping wantCause, or an *ArgumentError when
// wantCause is nil) and the history carries the report.
func CheckReportedBadCall(t *testing.T, resp *toolcall.Response, wantMsg string, wantCause error) {
	t.Helper()
	require.Len(t, resp.Executions, 3)
	bad := resp.Executions[2]
	assert.Equal(t, "call_rm", bad.Call.ID)
	assert.Equal(t, 2, bad.Round)
	assert.True(t, bad.IsError)
	assert.Equal(t, wantMsg, bad.Result)
	var te *toolcall.ToolError
	require.ErrorAs(t, bad.Err, &te)
	assert.Equal(t, "call_rm", te.CallID)
	if wantCause != nil {
		assert.ErrorIs(t, bad.Err, wantCause)
	} else {
		var ae *toolcall.ArgumentError
		assert.ErrorAs(t, bad.Err, &ae)
	}
	require.Len(t, resp.History, 7, "question, calls, 2 results, bad call, its result, answer")
	assert.Equal(t, wantMsg, resp.History[5].Content)
	assert.True(t, resp.History[5].IsError)
}

// CutReply runs prompt, whose model replies with one tool call cut short,
// through Call or, when stream is set, Stream, and checks what a Client
// must do with it: no call runs (tool counts its runs) and no result is
// streamed, the call ends with wantErr wrapping ErrReplyCut, the cut reply
// is the one Intermediate response, and the history, without it, is ask
// alone and valid to resend. It returns the call ids the stream announced.
func CutReply(t *testing.T, prompt *toolcall.Prompt, stream bool, runs func() int32, want *chat.Response, ask chat.Message, wantErr string) (streamed []string) {
	t.Helper()
	var resp *toolcall.Response
	var err error
	if stream {
		for ev, e := range prompt.Stream(context.Background()) {
			if ev.Kind == toolcall.EventToolCall {
				streamed = append(streamed, ev.ToolCall.ID)
			}
			assert.NotEqual(t, toolcall.EventToolResult, ev.Kind)
			if e != nil {
				resp, err = ev.Response, e
			}
		}
	} else {
		resp, err = prompt.Call(context.Background())
	}
	require.ErrorIs(t, err, toolcall.ErrReplyCut)
	require.EqualError(t, err, wantErr)
	assert.Zero(t, runs(), "the tool must not run")
	require.NotNil(t, resp)
	assert.Equal(t, []*chat.Response{want}, resp.Intermediate)
	assert.Empty(t, resp.Executions)
	assert.Equal(t, []chat.Message{ask}, resp.History)
	require.NoError(t, toolcalltest.CheckHistory(resp.History))
	return streamed
}
