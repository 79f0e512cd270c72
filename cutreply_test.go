package toolcall_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// cutReply is a scripted reply with text and tool calls that finished with
// reason, as a provider reports a reply cut short.
func cutReply(reason chat.FinishReason, text string, calls ...chat.ToolCall) tt.Reply {
	r := tt.ToolCalls(calls...)
	r.Response.Message.Content = text
	r.Response.FinishReason = reason
	return r
}

// hookRecorder returns hooks that record, one line each, the model calls
// and the tool calls the loop reports.
func hookRecorder() (toolcall.Hooks, func() []string) {
	var mu sync.Mutex
	var lines []string
	rec := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	hooks := toolcall.Hooks{
		AfterModel: func(ctx context.Context, mc toolcall.ModelCall) {
			rec("model r%d %s calls=%d", mc.Round, mc.Response.FinishReason, len(mc.Response.Message.ToolCalls))
		},
		BeforeTool: func(ctx context.Context, call chat.ToolCall) context.Context {
			rec("before %s %s", call.ID, call.Name)
			return ctx
		},
		AfterTool: func(ctx context.Context, e toolcall.ToolExecution) { rec("after %s %s", e.Call.ID, e.Call.Name) },
	}
	return hooks, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// TestReplyCutShort: a reply with tool calls that the output limit or a
// content filter cut short may have lost calls or arguments, so none of
// its calls runs, through Call and Stream alike. The error names the
// finish reason and the calls not run; the Response keeps the cut reply
// for inspection and a history, without it, valid to resend.
func TestReplyCutShort(t *testing.T) {
	t.Parallel()
	const email = `{"to":"ana@example.com","subject":"Invoice","body":"Attached."}`
	question := chat.UserMessage("go")
	for _, tc := range []struct {
		name    string
		script  func() []tt.Reply
		wantErr string
		// wantHistory is the history after the question.
		wantHistory []chat.Message
		wantRounds  int
		wantLookups int32
		wantHooks   []string
		wantEvents  []string
	}{
		{
			name: "length",
			script: func() []tt.Reply {
				return []tt.Reply{cutReply(chat.FinishLength, "", tt.Call("c1", "send_email", email))}
			},
			wantErr:    `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`,
			wantRounds: 1,
			wantHooks:  []string{"model r1 length calls=1"},
			wantEvents: []string{
				`call c1 send_email ` + email,
				`error kind=0 response=true: toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`,
			},
		},
		{
			name: "content filter with text and two calls",
			script: func() []tt.Reply {
				return []tt.Reply{cutReply(chat.FinishFiltered, "Sending both.",
					tt.Call("c1", "send_email", email), tt.Call("c2", "send_email", `{"to":"bo@example.com"}`))}
			},
			wantErr:    `toolcall: model reply cut short: finish reason "content_filter"; its 2 tool calls were not run`,
			wantRounds: 1,
			wantHooks:  []string{"model r1 content_filter calls=2"},
			wantEvents: []string{
				`text "Sending"`, `text " both."`,
				`call c1 send_email ` + email,
				`call c2 send_email {"to":"bo@example.com"}`,
				`error kind=0 response=true: toolcall: model reply cut short: finish reason "content_filter"; its 2 tool calls were not run`,
			},
		},
		{
			name: "length in round 2 after a good round 1",
			script: func() []tt.Reply {
				return []tt.Reply{
					tt.ToolCalls(tt.Call("c1", "lookup", `{"q":"ana"}`)),
					cutReply(chat.FinishLength, "", tt.Call("c2", "send_email", email)),
				}
			},
			wantErr: `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`,
			wantHistory: []chat.Message{
				chat.AssistantMessage("", tt.Call("c1", "lookup", `{"q":"ana"}`)),
				{Role: chat.RoleTool, Content: "ana@example.com", ToolCallID: "c1", ToolName: "lookup"},
			},
			wantRounds:  2,
			wantLookups: 1,
			wantHooks:   []string{"model r1 tool_calls calls=1", "before c1 lookup", "after c1 lookup", "model r2 length calls=1"},
			wantEvents: []string{
				`call c1 lookup {"q":"ana"}`,
				`result r1 c1 lookup error=false: ana@example.com`,
				`call c2 send_email ` + email,
				`error kind=0 response=true: toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sends, lookups atomic.Int32
			tools := []any{
				queryTool(t, "lookup", &lookups, nil, func(context.Context, string) (string, error) { return "ana@example.com", nil }),
				emailTool(t, &sends),
			}
			check := func(t *testing.T, model *tt.Model, hooks []string, resp *toolcall.Response, err error) {
				t.Helper()
				require.ErrorIs(t, err, toolcall.ErrReplyCut)
				require.EqualError(t, err, tc.wantErr)
				assert.Zero(t, sends.Load(), "send_email never runs")
				assert.Equal(t, tc.wantHooks, hooks, "no tool hook sees the cut reply's calls")
				assert.Len(t, model.Requests(), tc.wantRounds, "no request after the cut reply")
				require.NotNil(t, resp)
				assert.Equal(t, tc.wantRounds, resp.Rounds)
				assert.False(t, resp.ReturnedDirect)
				assert.Len(t, resp.Executions, int(tc.wantLookups))
				require.Len(t, resp.Intermediate, tc.wantRounds, "the cut reply is the last model response")
				cut := resp.Intermediate[tc.wantRounds-1]
				assert.Equal(t, tc.script()[tc.wantRounds-1].Response.FinishReason, cut.FinishReason)
				assert.Equal(t, cut.Message, resp.Message)
				r := tc.wantRounds
				assert.Equal(t, chat.Usage{PromptTokens: 10 * r, CompletionTokens: 5 * r, TotalTokens: 15 * r}, resp.Usage,
					"usage counts every round, the cut one included")
				assert.Equal(t, append([]chat.Message{question}, tc.wantHistory...), resp.History)
				require.NoError(t, tt.CheckHistory(resp.History), "the history is valid to resend")
			}

			t.Run("Call", func(t *testing.T) {
				lookups.Store(0)
				hooks, seen := hookRecorder()
				model := tt.NewModel(tc.script()...)
				resp, err := toolcall.NewClient(model, toolcall.WithHooks(hooks)).Prompt("go").Tools(tools...).Call(context.Background())
				check(t, model, seen(), resp, err)
				assert.Equal(t, tc.wantLookups, lookups.Load())
			})
			t.Run("Stream", func(t *testing.T) {
				lookups.Store(0)
				hooks, seen := hookRecorder()
				model := tt.NewModel(tc.script()...)
				events, resp, err := collectStream(toolcall.NewClient(model, toolcall.WithHooks(hooks)).Prompt("go").Tools(tools...).Stream(context.Background()))
				assert.Equal(t, tc.wantEvents, events)
				check(t, model, seen(), resp, err)
				assert.Equal(t, tc.wantLookups, lookups.Load())
				assertSameAsCall(t, tt.NewModel(tc.script()...), nil, tools, resp, err)
			})
		})
	}
}

// TestReplyCutShortWithoutCalls: a cut reply without tool calls is an
// answer, with its finish reason, as before.
func TestReplyCutShortWithoutCalls(t *testing.T) {
	t.Parallel()
	script := func() *tt.Model {
		r := tt.Text("Once upon a")
		r.Response.FinishReason = chat.FinishLength
		return tt.NewModel(r)
	}
	resp, err := toolcall.NewClient(script()).Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Once upon a", resp.Content())
	require.Len(t, resp.Intermediate, 1)
	assert.Equal(t, chat.FinishLength, resp.Intermediate[0].FinishReason)

	events, resp, err := collectStream(toolcall.NewClient(script()).Prompt("go").Stream(context.Background()))
	require.NoError(t, err)
	assert.Equal(t, []string{`text "Once"`, `text " upon"`, `text " a"`, `done response=true: Once upon a`}, events)
	assert.Equal(t, chat.FinishLength, resp.Intermediate[0].FinishReason)
}

// TestReplyCutShortWithoutExecution: with execution off the caller gets
// the cut reply as it is, to check its finish reason in a loop of its own.
func TestReplyCutShortWithoutExecution(t *testing.T) {
	t.Parallel()
	var sends atomic.Int32
	call := tt.Call("c1", "send_email", `{"to":"ana@example.com"}`)
	model := tt.NewModel(cutReply(chat.FinishLength, "", call))
	resp, err := toolcall.NewClient(model, toolcall.WithEligibility(never)).Prompt("go").Tools(emailTool(t, &sends)).Call(context.Background())
	require.NoError(t, err)
	assert.Zero(t, sends.Load())
	assert.Equal(t, []chat.ToolCall{call}, resp.Message.ToolCalls)
	assert.Equal(t, chat.FinishLength, resp.Intermediate[0].FinishReason)
}

// emailTool returns a send_email tool that counts its runs.
func emailTool(t *testing.T, runs *atomic.Int32) toolcall.Tool {
	t.Helper()
	tool, err := toolcall.NewFunc("send_email", "sends an email", func(ctx context.Context, in struct {
		To      string `json:"to"`
		Subject string `json:"subject,omitempty"`
		Body    string `json:"body,omitempty"`
	}) (string, error) {
		runs.Add(1)
		return "sent", nil
	})
	require.NoError(t, err)
	return tool
}

// A program driving its own loop gets the same refusal from Manager.Execute.
func TestManagerRefusesCutReply(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	send := toolcall.MustFunc("send_email", "Sends an email", func(context.Context, struct {
		To string `json:"to"`
	}) (string, error) {
		runs.Add(1)
		return "sent", nil
	})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("mail bob")}}
	for _, reason := range []chat.FinishReason{chat.FinishLength, chat.FinishFiltered} {
		resp := &chat.Response{FinishReason: reason,
			Message: chat.AssistantMessage("", tt.Call("c1", "send_email", `{"to":"bob"}`))}
		ex, err := toolcall.NewManager().Execute(context.Background(), []toolcall.Tool{send}, req, resp)
		require.ErrorIs(t, err, toolcall.ErrReplyCut)
		assert.EqualError(t, err, fmt.Sprintf(`toolcall: model reply cut short: finish reason %q; its 1 tool call was not run`, reason))
		assert.Equal(t, req.Messages, ex.History)
		assert.Empty(t, ex.Executions)
	}
	assert.Zero(t, runs.Load())
}
