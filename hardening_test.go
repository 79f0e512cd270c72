package toolcall_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

type hardTools struct {
	_ toolcall.Method `tool:"Echo" description:"echo"`
	_ toolcall.Method `tool:"Big" description:"a big result"`
	_ toolcall.Method `tool:"Ping" description:"ping"`
}

type echoArgs struct {
	Text  string   `json:"text" jsonschema:"maxLength=50"`
	Count int      `json:"count,omitempty" jsonschema:"minimum=0,maximum=10"`
	Mode  string   `json:"mode,omitempty" jsonschema:"enum=loud,enum=quiet"`
	Tags  []string `json:"tags,omitempty" jsonschema:"maxItems=3"`
	Inner struct {
		Level int `json:"level"`
	} `json:"inner,omitzero"`
}

func (hardTools) Echo(in echoArgs) string { return in.Text }
func (hardTools) Big() string             { return strings.Repeat("é", 1000) }
func (hardTools) Ping() string            { return "pong" }

// TestBadInputTable drives the loop with bad arguments and odd model
// replies: each row gives the model-facing result of the first call, and
// checks that the other call's result is kept and the history stays valid.
func TestBadInputTable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		name, tool, args string
		want             string // the model-facing result, exactly
		isError          bool
		opts             []toolcall.ClientOption
	}{
		{"empty args", "Ping", ``, "pong", false, nil},
		{"null args", "Ping", `null`, "pong", false, nil},
		{"blank args", "Ping", "\t\n ", "pong", false, nil},
		{"empty object", "Ping", `{}`, "pong", false, nil},
		{"args to a no-arg tool", "Ping", `{"x":1}`, `invalid arguments for tool "Ping": x: unknown field; remove it`, true, nil},
		{"array args", "Echo", `[]`, `invalid arguments for tool "Echo": expected object, got array`, true, nil},
		{"string args", "Echo", `"hi"`, `invalid arguments for tool "Echo": expected object, got string`, true, nil},
		{"number args", "Echo", `42`, `invalid arguments for tool "Echo": expected object, got number`, true, nil},
		{"true args", "Echo", `true`, `invalid arguments for tool "Echo": expected object, got boolean`, true, nil},
		{"truncated object", "Echo", `{"text":"a"`, `invalid arguments for tool "Echo": arguments are not valid JSON: unexpected end of input`, true, nil},
		{"truncated string", "Echo", `{"text":"a`, `invalid arguments for tool "Echo": text: arguments are not valid JSON: unexpected end of input`, true, nil},
		{"trailing comma", "Echo", `{"text":"a",}`, `invalid arguments for tool "Echo": arguments are not valid JSON: expected a field name at byte 12`, true, nil},
		{"single quotes", "Echo", `{'text':'a'}`, `invalid arguments for tool "Echo": arguments are not valid JSON: expected a field name at byte 1`, true, nil},
		{"trailing garbage", "Echo", `{"text":"a"}x`, `invalid arguments for tool "Echo": arguments are not valid JSON: data after the top-level value`, true, nil},
		{"two objects", "Echo", `{"text":"a"}{"text":"b"}`, `invalid arguments for tool "Echo": arguments are not valid JSON: data after the top-level value`, true, nil},
		{"tool_call text leak", "Echo", `<tool_call>{"text":"a"}</tool_call>`, `invalid arguments for tool "Echo": arguments are not valid JSON: invalid character '<' at byte 0`, true, nil},
		{"missing required", "Echo", `{"count":1}`, `invalid arguments for tool "Echo": text: required field is missing`, true, nil},
		{"wrong type", "Echo", `{"text":1}`, `invalid arguments for tool "Echo": text: expected string, got number`, true, nil},
		{"null required", "Echo", `{"text":null}`, `invalid arguments for tool "Echo": text: expected string, got null`, true, nil},
		{"null optional", "Echo", `{"text":"a","count":null}`, `invalid arguments for tool "Echo": count: expected integer, got null`, true, nil},
		{"nested wrong type", "Echo", `{"text":"a","inner":{"level":"high"}}`, `invalid arguments for tool "Echo": inner.level: expected integer, got string`, true, nil},
		{"nested missing", "Echo", `{"text":"a","inner":{}}`, `invalid arguments for tool "Echo": inner.level: required field is missing`, true, nil},
		{"enum", "Echo", `{"text":"a","mode":"LOUD"}`, `invalid arguments for tool "Echo": mode: must be one of "loud", "quiet"`, true, nil},
		{"maximum", "Echo", `{"text":"a","count":11}`, `invalid arguments for tool "Echo": count: must be <= 10`, true, nil},
		{"minimum", "Echo", `{"text":"a","count":-1}`, `invalid arguments for tool "Echo": count: must be >= 0`, true, nil},
		{"integral float", "Echo", `{"text":"a","count":2.0}`, "a", false, nil},
		{"fraction for int", "Echo", `{"text":"a","count":2.5}`, `invalid arguments for tool "Echo": count: expected integer, got 2.5`, true, nil},
		{"huge number", "Echo", `{"text":"a","count":1e400}`, `invalid arguments for tool "Echo": count: must be <= 10`, true, nil},
		{"maxLength", "Echo", `{"text":"` + long + `"}`, `invalid arguments for tool "Echo": text: must be at most 50 characters long`, true, nil},
		{"maxItems", "Echo", `{"text":"a","tags":["1","2","3","4"]}`, `invalid arguments for tool "Echo": tags: must have at most 3 items`, true, nil},
		{"array item type", "Echo", `{"text":"a","tags":["1",2]}`, `invalid arguments for tool "Echo": tags[1]: expected string, got number`, true, nil},
		{"duplicate keys", "Echo", `{"text":"a","text":"b"}`, `invalid arguments for tool "Echo": text: arguments are not valid JSON: duplicate field "text"`, true, nil},
		{"invalid UTF-8", "Echo", "{\"text\":\"\xc3\x28\"}", `invalid arguments for tool "Echo": text: arguments are not valid JSON: invalid UTF-8 in string`, true, nil},
		{"escaped unicode", "Echo", `{"text":"\u00e9\ud83d\ude00"}`, "é😀", false, nil},
		{"bad escape", "Echo", `{"text":"\x"}`, `invalid arguments for tool "Echo": text: arguments are not valid JSON: invalid escape at byte 9`, true, nil},
		{"control character", "Echo", "{\"text\":\"a\x01\"}", `invalid arguments for tool "Echo": text: arguments are not valid JSON: control character in string at byte 10`, true, nil},
		{"case-mismatched field", "Echo", `{"Text":"a"}`, `invalid arguments for tool "Echo": Text: unknown field; remove it; text: required field is missing`, true, nil},
		{"deep nesting in an unknown field", "Echo", `{"text":"a","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, `invalid arguments for tool "Echo": x: unknown field; remove it`, true, nil},
		{"nesting past the limit", "Echo", `{"text":"a","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, `invalid arguments for tool "Echo": x` + strings.Repeat("[0]", 10000) + `: arguments are not valid JSON: nesting deeper than 10000 levels`, true, nil},
		{"nesting past a lowered limit", "Echo", `{"text":"[[[[","x":[[[1]]]}`, `invalid arguments for tool "Echo": arrays and objects nest more than 3 levels deep, the limit`, true, []toolcall.ClientOption{toolcall.WithLimits(toolcall.Limits{MaxArgumentDepth: 3})}},
		{"nesting at a lowered limit", "Echo", `{"text":"[{[{\"]]]]}"}`, `[{[{"]]]]}`, false, []toolcall.ClientOption{toolcall.WithLimits(toolcall.Limits{MaxArgumentDepth: 1})}},
		{"arguments over the size limit", "Echo", `{"text":"` + long + `"}`, `invalid arguments for tool "Echo": arguments are 211 bytes long, the limit is 100`, true, []toolcall.ClientOption{toolcall.WithLimits(toolcall.Limits{MaxArgumentBytes: 100})}},
		{"result over the size limit", "Big", ``, strings.Repeat("é", 5) + "\n[truncated: result was 2000 bytes, limit 11]", false, []toolcall.ClientOption{toolcall.WithLimits(toolcall.Limits{MaxResultBytes: 11})}},
		{"hallucinated tool", "Nope", `{}`, `tool "Nope" does not exist; available tools: Echo, Big, Ping`, true, nil},
		{"empty tool name", "", `{}`, `tool "" does not exist; available tools: Echo, Big, Ping`, true, nil},
		{"tool name with spaces", "Echo ", `{"text":"a"}`, `tool "Echo " does not exist; available tools: Echo, Big, Ping`, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := tt.NewModel(tt.ToolCalls(tt.Call("bad", tc.tool, tc.args), tt.Call("ok", "Ping", ``)), tt.Text("done"))
			resp, err := toolcall.NewClient(model, tc.opts...).Prompt("go").Tools(hardTools{}).Call(context.Background())
			require.NoError(t, err)
			msgs := model.Requests()[1].Messages
			require.Len(t, msgs, 4)
			assert.Equal(t, tc.want, msgs[2].Content)
			assert.Equal(t, tc.isError, msgs[2].IsError)
			assert.Equal(t, "pong", msgs[3].Content, "the other result is kept")
			assertValidHistory(t, resp.History)
		})
	}
}

// TestModelReplyQuirks sends odd model replies through the loop: each row
// asserts the exact error or the exact answer and history, and that the
// Response (returned with errors too) is valid to resend.
func TestModelReplyQuirks(t *testing.T) {
	t.Parallel()
	user := chat.UserMessage("go")
	final := chat.AssistantMessage("final")
	pong := func(id string) chat.Message {
		return chat.Message{Role: chat.RoleTool, Content: "pong", ToolCallID: id, ToolName: "Ping"}
	}
	withCalls := func(text string, finish chat.FinishReason, calls ...chat.ToolCall) tt.Reply {
		return tt.Reply{Response: &chat.Response{Message: chat.AssistantMessage(text, calls...), FinishReason: finish}}
	}
	for _, tc := range []struct {
		name        string
		reply       tt.Reply
		wantErr     string // exact; empty for success
		wantContent string
		wantHistory []chat.Message
		wantRounds  int
	}{
		{"nil response", tt.Reply{Func: func(*chat.Request) (*chat.Response, error) { return nil, nil }},
			`chat: malformed response: model returned no response`, "", []chat.Message{user}, 1},
		{"response and error", tt.Reply{Func: func(*chat.Request) (*chat.Response, error) {
			return tt.Text("half").Response, errors.New("stream broke")
		}}, "stream broke", "", []chat.Message{user}, 1},
		{"model error", tt.Fail(errors.New("overloaded")), "overloaded", "", []chat.Message{user}, 1},
		{"empty reply", tt.Text(""), `toolcall: empty answer: the model's reply has no text and no tool calls (finish reason "stop")`, "",
			[]chat.Message{user, chat.AssistantMessage("")}, 1},
		{"text and calls", withCalls("let me check", "", tt.Call("1", "Ping", ``)), "", "final",
			[]chat.Message{user, chat.AssistantMessage("let me check", tt.Call("1", "Ping", ``)), pong("1"), final}, 2},
		{"calls with finish reason stop", withCalls("", chat.FinishStop, tt.Call("1", "Ping", ``)), "", "final",
			[]chat.Message{user, chat.AssistantMessage("", tt.Call("1", "Ping", ``)), pong("1"), final}, 2},
		{"duplicate call ids", tt.ToolCalls(tt.Call("same", "Ping", ``), tt.Call("same", "Ping", ``)), "", "final",
			[]chat.Message{user, chat.AssistantMessage("", tt.Call("same", "Ping", ``), tt.Call("same_1", "Ping", ``)), pong("same"), pong("same_1"), final}, 2},
		{"empty call id", tt.ToolCalls(tt.Call("", "Ping", ``)), "", "final",
			[]chat.Message{user, chat.AssistantMessage("", tt.Call("call_0", "Ping", ``)), pong("call_0"), final}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := tt.NewModel(tc.reply, tt.Text("final"))
			resp, err := toolcall.NewClient(model).Prompt("go").Tools(hardTools{}).Call(context.Background())
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.NotNil(t, resp, "a response is returned with errors too")
			assert.Equal(t, tc.wantContent, resp.Content())
			assert.Equal(t, tc.wantHistory, resp.History)
			assert.Equal(t, tc.wantRounds, resp.Rounds)
			assertValidHistory(t, resp.History)
			if reqs := model.Requests(); len(reqs) > 1 {
				assert.Equal(t, tc.wantHistory[:len(tc.wantHistory)-1], reqs[1].Messages, "the second request resent the history")
			}
		})
	}
}

// TestStress runs 1,000 concurrent calls on one client with failing, slow,
// panicking and returnDirect tools: every call ends with a response or an
// error, and every history is valid to resend.
func TestStress(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	mk := func(name string, direct bool, fn func(ctx context.Context, n int) (string, error)) toolcall.Tool {
		tool, err := toolcall.NewFunc(name, name, func(ctx context.Context, in struct {
			N int `json:"n"`
		}) (string, error) {
			runs.Add(1)
			return fn(ctx, in.N)
		}, toolcall.WithReturnDirect(direct))
		require.NoError(t, err)
		return tool
	}
	tools := []toolcall.Tool{
		mk("ok", false, func(_ context.Context, n int) (string, error) { return fmt.Sprint(n), nil }),
		mk("fail", false, func(context.Context, int) (string, error) { return "", errors.New("failed") }),
		mk("slow", false, func(ctx context.Context, n int) (string, error) {
			select {
			case <-time.After(time.Duration(n%5) * time.Millisecond):
				return "slow", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}),
		mk("panic", false, func(context.Context, int) (string, error) { panic("boom") }),
		mk("direct", true, func(context.Context, int) (string, error) { return "direct", nil }),
		mk("fatal", false, func(context.Context, int) (string, error) { return "", toolcall.ErrFatal }),
	}
	names := []string{"ok", "fail", "slow", "panic", "direct", "fatal", "missing"}
	model := tt.NewFuncModel(func(req *chat.Request) (*chat.Response, error) {
		var seed int
		fmt.Sscan(strings.TrimPrefix(req.Messages[0].Content, "q"), &seed)
		round := strings.Count(fmt.Sprint(len(req.Messages)), "") // varies with the round
		if len(req.Messages) > 9 || (seed+round)%7 == 0 {
			return tt.Text("answer").Response, nil
		}
		var calls []chat.ToolCall
		for i := range 1 + seed%3 {
			name := names[(seed+i+len(req.Messages))%len(names)]
			calls = append(calls, tt.Call(fmt.Sprintf("c%d-%d", len(req.Messages), i), name, fmt.Sprintf(`{"n":%d}`, seed)))
		}
		return tt.ToolCalls(calls...).Response, nil
	})
	client := toolcall.NewClient(model, toolcall.WithTools(tools), toolcall.WithMaxIterations(4), toolcall.WithLimits(toolcall.Limits{ToolTimeout: time.Second}))
	var wg sync.WaitGroup
	var answered, failed atomic.Int64
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp, err := client.Prompt(fmt.Sprint("q", i)).Call(ctx)
			if err != nil {
				failed.Add(1)
				if !errors.Is(err, toolcall.ErrFatal) && !errors.Is(err, toolcall.ErrMaxIterations) {
					t.Errorf("call %d: unexpected error %v", i, err)
				}
			} else {
				answered.Add(1)
			}
			if resp == nil {
				t.Errorf("call %d: no response", i)
				return
			}
			assertValidHistory(t, resp.History)
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 1000, answered.Load()+failed.Load())
	assert.Positive(t, answered.Load())
	assert.Positive(t, failed.Load())
	assert.Positive(t, runs.Load())
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func FuzzToolName(f *testing.F) {
	for _, s := range []string{"get_weather", "", "a b", "é", strings.Repeat("x", 64), strings.Repeat("x", 65), "a\x00", "Google Search", "a.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		valid := namePattern.MatchString(name)
		_, err := toolcall.NewFunc(name, "d", currentWeather)
		if valid != (err == nil) {
			t.Fatalf("NewFunc(%q): %v", name, err)
		}
		if err != nil && !errors.Is(err, toolcall.ErrInvalidTool) {
			t.Fatalf("NewFunc(%q): %v does not wrap ErrInvalidTool", name, err)
		}
	})
}
