package toolcalltest_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// `go test ./... -update` passes -update to every package; this one has no
// golden files but must accept the flag.
var _ = flag.Bool("update", false, "no golden files in this package")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func userRequest(text string) *chat.Request {
	return &chat.Request{Messages: []chat.Message{chat.UserMessage(text)}}
}

func TestModelRepliesInOrderAndRecords(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	m := toolcalltest.NewModel(
		toolcalltest.ToolCalls(toolcalltest.Call("c1", "lookup", `{"id":1}`)),
		toolcalltest.Fail(boom),
		toolcalltest.Text("done"),
	)
	assert.Equal(t, 3, m.Remaining())

	r1, err := m.Chat(ctx, userRequest("one"))
	require.NoError(t, err)
	assert.Equal(t, chat.FinishToolCalls, r1.FinishReason)
	require.Len(t, r1.Message.ToolCalls, 1)
	assert.Equal(t, "lookup", r1.Message.ToolCalls[0].Name)

	_, err = m.Chat(ctx, userRequest("two"))
	assert.ErrorIs(t, err, boom)

	r3, err := m.Chat(ctx, userRequest("three"))
	require.NoError(t, err)
	assert.Equal(t, "done", r3.Message.Content)
	assert.Equal(t, 0, m.Remaining())

	_, err = m.Chat(ctx, userRequest("four"))
	assert.EqualError(t, err, "toolcalltest: no reply scripted for request 4")

	reqs := m.Requests()
	require.Len(t, reqs, 4)
	for i, want := range []string{"one", "two", "three", "four"} {
		assert.Equal(t, want, reqs[i].Messages[0].Content)
	}
	assert.Len(t, m.RequestBodies(), 4)
}

func TestModelRepliesAreIndependentCopies(t *testing.T) {
	ctx := context.Background()
	reply := toolcalltest.ToolCalls(toolcalltest.Call("c1", "a", `{}`))
	m := toolcalltest.NewModel(reply, reply)
	r1, err := m.Chat(ctx, userRequest("x"))
	require.NoError(t, err)
	r1.Message.ToolCalls[0].Name = "changed"
	r2, err := m.Chat(ctx, userRequest("x"))
	require.NoError(t, err)
	assert.Equal(t, "a", r2.Message.ToolCalls[0].Name, "changing one reply must not change the next")

	// Changing the caller's request after the call leaves the record alone.
	req := userRequest("before")
	m = toolcalltest.NewModel(toolcalltest.Text("ok"))
	_, err = m.Chat(ctx, req)
	require.NoError(t, err)
	req.Messages[0].Content = "after"
	assert.Equal(t, "before", m.Requests()[0].Messages[0].Content)
	m.Requests()[0].Messages[0].Content = "changed"
	assert.Equal(t, "before", m.Requests()[0].Messages[0].Content)
}

func TestModelCheck(t *testing.T) {
	ctx := context.Background()
	wantUser := func(text string) func(*chat.Request) error {
		return func(req *chat.Request) error {
			if got := req.Messages[len(req.Messages)-1].Content; got != text {
				return fmt.Errorf("last message %q, want %q", got, text)
			}
			return nil
		}
	}
	m := toolcalltest.NewModel(
		toolcalltest.Expect(wantUser("hello"), toolcalltest.Text("hi")),
		toolcalltest.Expect(wantUser("bye"), toolcalltest.Text("unreachable")),
	)
	resp, err := m.Chat(ctx, userRequest("hello"))
	require.NoError(t, err)
	assert.Equal(t, "hi", resp.Message.Content)
	_, err = m.Chat(ctx, userRequest("hello again"))
	assert.EqualError(t, err, `toolcalltest: request 2: last message "hello again", want "bye"`)
}

func TestModelWaitHonoursContext(t *testing.T) {
	release := make(chan struct{})
	m := toolcalltest.NewModel(toolcalltest.Reply{Wait: release, Response: toolcalltest.Text("late").Response})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := m.Chat(ctx, userRequest("x"))
		errc <- err
	}()
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)

	// A cancelled context fails before the script is consumed.
	m = toolcalltest.NewModel(toolcalltest.Text("kept"))
	_, err := m.Chat(ctx, userRequest("x"))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, m.Remaining())
	close(release)
}

func TestFuncModelConcurrent(t *testing.T) {
	m := toolcalltest.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		return toolcalltest.Text("echo " + req.Messages[0].Content).Response, nil
	})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			resp, err := m.Chat(context.Background(), userRequest(fmt.Sprint(i)))
			if assert.NoError(t, err) {
				assert.Equal(t, fmt.Sprintf("echo %d", i), resp.Message.Content)
			}
		})
	}
	wg.Wait()
	assert.Len(t, m.Requests(), 50)
}

func TestModelStream(t *testing.T) {
	ctx := context.Background()
	m := toolcalltest.NewModel(
		toolcalltest.Text("It is sunny."),
		toolcalltest.ToolCalls(toolcalltest.Call("c1", "a", `{"x":1}`), toolcalltest.Call("c2", "b", `{}`)),
	)
	var pieces []string
	resp, err := m.Stream(ctx, userRequest("x"), func(d chat.Delta) bool {
		pieces = append(pieces, d.Content)
		return true
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"It", " is", " sunny."}, pieces)
	assert.Equal(t, strings.Join(pieces, ""), resp.Message.Content)

	var deltas []chat.ToolCallDelta
	_, err = m.Stream(ctx, userRequest("x"), func(d chat.Delta) bool {
		deltas = append(deltas, *d.ToolCall)
		return true
	})
	require.NoError(t, err)
	assert.Equal(t, []chat.ToolCallDelta{
		{Index: 0, ID: "c1", Name: "a"}, {Index: 0, Arguments: `{"x":1}`},
		{Index: 1, ID: "c2", Name: "b"}, {Index: 1, Arguments: `{}`},
	}, deltas)

	m = toolcalltest.NewModel(toolcalltest.Text("a b c"))
	_, err = m.Stream(ctx, userRequest("x"), func(chat.Delta) bool { return false })
	assert.ErrorIs(t, err, chat.ErrStreamStopped)
}

func TestWireJSON(t *testing.T) {
	req := &chat.Request{
		Model: "m",
		Messages: []chat.Message{
			chat.UserMessage("hi"),
			chat.AssistantMessage("", toolcalltest.Call("c1", "now", ""), toolcalltest.Call("c2", "add", `{"a":1}`)),
			{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "now", Content: "noon"},
		},
		Tools: []chat.ToolDefinition{{
			Name: "add", Description: "Add", InputSchema: []byte(`{"type":"object"}`), Strict: true,
		}},
		ToolChoice: chat.ToolChoice{Name: "add"},
	}
	// Byte for byte: providers/openai's TestWireJSONMatchesProvider holds
	// the provider to the same bytes.
	assert.Equal(t, `{"model":"m","stream":false,`+
		`"tools":[{"function":{"name":"add","description":"Add","strict":true,"parameters":{"type":"object"}},"type":"function"}],`+
		`"tool_choice":{"type":"function","function":{"name":"add"}},"messages":[`+
		`{"role":"user","content":"hi"},`+
		`{"role":"assistant","content":null,"tool_calls":[`+
		`{"id":"c1","type":"function","function":{"name":"now","arguments":"{}"}},`+
		`{"id":"c2","type":"function","function":{"name":"add","arguments":"{\"a\":1}"}}]},`+
		`{"role":"tool","content":"noon","tool_call_id":"c1"}]}`+"\n", string(toolcalltest.WireJSON(req)))

	req.ToolChoice = chat.ToolChoice{Mode: chat.ToolChoiceRequired}
	assert.Contains(t, string(toolcalltest.WireJSON(req)), `"tool_choice":"required"`)

	// Options and their extra keys are on the wire too; an extra key does
	// not replace a field. Without tools, tool_choice and
	// parallel_tool_calls are left out, as OpenAI rejects them.
	temp, maxTokens, parallel := 0.2, 100, false
	opts := chat.Options{Temperature: &temp, MaxTokens: &maxTokens, ParallelToolCalls: &parallel, Stop: []string{"END"},
		Extra: map[string]any{"user": "u1", "model": "other", "tools": []string{"x"}}}
	wire := toolcalltest.WireJSON(&chat.Request{Model: "m", Messages: req.Messages[:1], Options: opts,
		ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}})
	assert.JSONEq(t, `{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}],
		"temperature":0.2,"max_tokens":100,"stop":["END"],"user":"u1"}`, string(wire))

	// Reasoning and provider data go back as the provider sends them.
	wire = toolcalltest.WireJSON(&chat.Request{Model: "m", Messages: []chat.Message{{
		Role: chat.RoleAssistant, Reasoning: "Think first.", ProviderData: []byte(`{"ignored":true}`),
		ToolCalls: []chat.ToolCall{{ID: "c1", Name: "now", ProviderData: []byte(`{"google": {"thought_signature": "sig=="}}`)}},
	}}})
	assert.JSONEq(t, `{"model":"m","stream":false,"messages":[{"role":"assistant","content":null,"reasoning_content":"Think first.",
		"tool_calls":[{"id":"c1","type":"function","function":{"name":"now","arguments":"{}"},"extra_content":{"google":{"thought_signature":"sig=="}}}]}]}`,
		string(wire))

	// A request the provider would not send.
	wire = toolcalltest.WireJSON(&chat.Request{Model: "m", Messages: req.Messages[:1],
		Tools: []chat.ToolDefinition{{Name: "bad", InputSchema: []byte(`{`)}}})
	assert.Contains(t, string(wire), `{"error":`)
}

func TestCheckHistory(t *testing.T) {
	user := chat.UserMessage("go")
	call := func(ids ...string) chat.Message {
		var calls []chat.ToolCall
		for _, id := range ids {
			calls = append(calls, toolcalltest.Call(id, "ping", `{}`))
		}
		return chat.AssistantMessage("", calls...)
	}
	answer := func(id, name string) chat.Message {
		return chat.Message{Role: chat.RoleTool, ToolCallID: id, ToolName: name, Content: "pong"}
	}
	for _, tc := range []struct {
		name string
		msgs []chat.Message
		want string
	}{
		{"empty", nil, ""},
		{"answered", []chat.Message{user, call("a", "b"), answer("b", "ping"), answer("a", ""), chat.AssistantMessage("done")}, ""},
		{"unanswered", []chat.Message{user, call("a", "b"), answer("a", "ping")}, `message 1: call "b" to ping has no tool message`},
		{"answered twice", []chat.Message{user, call("a"), answer("a", "ping"), answer("a", "ping")}, `message 3: tool message for call "a", which message 1 does not make or has answered`},
		{"orphan", []chat.Message{user, answer("a", "ping")}, `message 1: tool message for call "a" answers no call`},
		{"after text", []chat.Message{user, call("a"), answer("a", "ping"), chat.AssistantMessage("x"), answer("a", "ping")}, `message 4: tool message for call "a" answers no call`},
		{"no id", []chat.Message{user, call("")}, "message 1: a call of ping has no id"},
		{"repeated id", []chat.Message{user, call("a", "a")}, `message 1: call id "a" appears twice`},
		{"wrong tool name", []chat.Message{user, call("a"), answer("a", "pong")}, `message 2: tool message names pong, the call "a" is to ping`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := toolcalltest.CheckHistory(tc.msgs)
			if tc.want == "" {
				require.NoError(t, err)
			} else {
				require.EqualError(t, err, tc.want)
			}
		})
	}
}

// TestReasoningAndProviderDataInRequests: a reply's reasoning and provider
// data stay in the history a Client sends next, and Requests and
// RequestBodies show them.
func TestReasoningAndProviderDataInRequests(t *testing.T) {
	signature := `{"google":{"thought_signature":"c2ln"}}`
	call := toolcalltest.Call("c1", "now", `{}`)
	call.ProviderData = []byte(signature)
	reply := toolcalltest.ToolCalls(call)
	reply.Response.Message.Reasoning = "Check the clock."
	reply.Response.Message.ProviderData = []byte(`{"opaque":1}`)
	model := toolcalltest.NewModel(reply, toolcalltest.Text("Noon."))
	now, err := toolcall.NewTool(chat.ToolDefinition{Name: "now"}, func(context.Context, json.RawMessage) (string, error) { return "noon", nil })
	require.NoError(t, err)
	resp, err := toolcall.NewClient(model).Prompt("Time?").Tools(now).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Noon.", resp.Content())

	reqs := model.Requests()
	require.Len(t, reqs, 2)
	replayed := reqs[1].Messages[1]
	assert.Equal(t, reply.Response.Message, replayed)
	assert.Equal(t, "Check the clock.", replayed.Reasoning)
	assert.JSONEq(t, signature, string(replayed.ToolCalls[0].ProviderData))
	assert.Equal(t, replayed, resp.History[1])

	body := string(model.RequestBodies()[1])
	assert.Contains(t, body, `{"role":"assistant","content":null,"reasoning_content":"Check the clock.","tool_calls":[`+
		`{"id":"c1","type":"function","function":{"name":"now","arguments":"{}"},"extra_content":`+signature+`}]}`)
	assert.NotContains(t, body, "opaque", "Message.ProviderData has no OpenAI field")
}

func TestKeepRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ask := func(m *toolcalltest.Model, n int) {
		for i := range n {
			if _, err := m.Chat(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage(fmt.Sprint("q", i))}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	answer := func(*chat.Request) (*chat.Response, error) {
		return &chat.Response{Message: chat.AssistantMessage("a")}, nil
	}

	last := toolcalltest.NewFuncModel(answer).KeepRequests(2)
	ask(last, 5)
	reqs := last.Requests()
	if len(reqs) != 2 || reqs[0].Messages[0].Content != "q3" || reqs[1].Messages[0].Content != "q4" {
		t.Fatalf("KeepRequests(2) kept %v", reqs)
	}
	if b := last.RequestBodies(); len(b) != 2 || !strings.Contains(string(b[1]), "q4") {
		t.Fatalf("bodies: %q", b)
	}
	none := toolcalltest.NewFuncModel(answer).KeepRequests(0)
	ask(none, 3)
	if len(none.Requests()) != 0 || len(none.RequestBodies()) != 0 {
		t.Fatal("KeepRequests(0) kept requests")
	}
	all := toolcalltest.NewFuncModel(answer)
	ask(all, 3)
	if len(all.Requests()) != 3 {
		t.Fatal("a new Model keeps every request")
	}
	// The number in a too-long script's error counts every request.
	short := toolcalltest.NewModel(toolcalltest.Text("a")).KeepRequests(0)
	ask(short, 1)
	if _, err := short.Chat(ctx, &chat.Request{}); err == nil || !strings.Contains(err.Error(), "request 2") {
		t.Fatalf("got %v", err)
	}
}
