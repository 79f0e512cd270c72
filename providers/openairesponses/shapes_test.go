package openairesponses_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// completed is a response.completed event with no output, the usage given.
const completed = `{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5-mini","output":[],"usage":{"input_tokens":50,"output_tokens":20,"total_tokens":70}}}`

// TestStreamShapes: what a stream of each shape servers send yields, and
// the reply it makes.
func TestStreamShapes(t *testing.T) {
	t.Parallel()
	usage := chat.Usage{PromptTokens: 50, CompletionTokens: 20, TotalTokens: 70}
	for _, tc := range []struct {
		name   string
		events []string
		deltas []chat.Delta
		want   chat.Message
		finish chat.FinishReason
	}{
		{
			name: "arguments whole in the added item",
			events: []string{
				`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`,
				completed,
			},
			deltas: []chat.Delta{callDelta(0, "call_1", "get_weather", `{"city":"Paris"}`)},
			want:   chat.AssistantMessage("", call("call_1", "get_weather", `{"city":"Paris"}`)),
			finish: chat.FinishToolCalls,
		},
		{
			// The type is read without decoding when it comes first, as
			// OpenAI writes it; elsewhere, or escaped, it is decoded.
			name: "type not first, or escaped",
			events: []string{
				`{"output_index":0,"type":"response.output_text.delta","item_id":"msg_1","delta":"Hel"}`,
				`{"type":"response.output_text.delt\u0061","output_index":0,"item_id":"msg_1","delta":"lo"}`,
				`{"type" : "response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"!"}`,
				completed,
			},
			deltas: []chat.Delta{text("Hel"), text("lo"), text("!")},
			want:   chat.AssistantMessage("Hello!"),
			finish: chat.FinishStop,
		},
		{
			name: "arguments only in .done",
			events: []string{
				`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":""}}`,
				`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":"{\"city\":\"Paris\"}"}`,
				completed,
			},
			deltas: []chat.Delta{callDelta(0, "call_1", "get_weather", ""), callDelta(0, "", "", `{"city":"Paris"}`)},
			want:   chat.AssistantMessage("", call("call_1", "get_weather", `{"city":"Paris"}`)),
			finish: chat.FinishToolCalls,
		},
		{
			name: "only the done item",
			events: []string{
				`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}`,
				completed,
			},
			deltas: []chat.Delta{callDelta(0, "call_1", "get_weather", `{"city":"Paris"}`)},
			want:   chat.AssistantMessage("", call("call_1", "get_weather", `{"city":"Paris"}`)),
			finish: chat.FinishToolCalls,
		},
		{
			// Two calls whose fragments interleave, one named by item
			// id, the other by output index alone.
			name: "interleaved calls",
			events: []string{
				`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":""}}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_2","call_id":"call_2","name":"get_weather","arguments":""}}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"city\":"}`,
				`{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"city\":\"Lyon\"}"}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"}`,
				completed,
			},
			deltas: []chat.Delta{
				callDelta(0, "call_1", "get_weather", ""), callDelta(1, "call_2", "get_weather", ""),
				callDelta(0, "", "", `{"city":`), callDelta(1, "", "", `{"city":"Lyon"}`), callDelta(0, "", "", `"Paris"}`),
			},
			want:   chat.AssistantMessage("", call("call_1", "get_weather", `{"city":"Paris"}`), call("call_2", "get_weather", `{"city":"Lyon"}`)),
			finish: chat.FinishToolCalls,
		},
		{
			// .done says otherwise than the deltas: the reply has what
			// .done says, and nothing more is yielded.
			name: "done differs from the deltas",
			events: []string{
				`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather"}}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"city\":\"Pa"}`,
				`{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":"{\"city\": \"Paris\"}"}`,
				`{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"late"}`,
				completed,
			},
			deltas: []chat.Delta{callDelta(0, "call_1", "get_weather", ""), callDelta(0, "", "", `{"city":"Pa`)},
			want:   chat.AssistantMessage("", call("call_1", "get_weather", `{"city": "Paris"}`)),
			finish: chat.FinishToolCalls,
		},
		{
			// Text, then a call; the message's done item repeats the text,
			// which is not added again; a refusal is text too; events this
			// package does not read are skipped, whatever their shape.
			name: "text, refusal and a call",
			events: []string{
				`{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}`,
				`{"type":"response.content_part.added","item_id":"msg_1","part":{"type":"output_text","text":""}}`,
				`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Let me "}`,
				`{"type":"response.output_text.delta","item_id":"msg_1","delta":"check. "}`,
				`{"type":"response.refusal.delta","item_id":"msg_1","delta":"Not that."}`,
				`{"type":"response.audio.delta","delta":{"unexpected":"shape"}}`,
				`{"type":"response.output_text.done","item_id":"msg_1","text":"Let me check. "}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Let me check. "},{"type":"refusal","refusal":"Not that."}]}}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"now","arguments":""}}`,
				completed,
			},
			deltas: []chat.Delta{text("Let me "), text("check. "), text("Not that."), callDelta(0, "call_1", "now", "")},
			want:   chat.AssistantMessage("Let me check. Not that.", call("call_1", "now", "{}")),
			finish: chat.FinishToolCalls,
		},
		{
			name: "text only in the done item",
			events: []string{
				`{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello!"}]}}`,
				completed,
			},
			deltas: []chat.Delta{text("Hello!")},
			want:   chat.AssistantMessage("Hello!"),
			finish: chat.FinishStop,
		},
		{
			// A server that sends only the final event.
			name: "only response.completed",
			events: []string{
				`{"type":"response.completed","response":{"status":"completed","model":"gpt-5-mini","output":[{"type":"message","content":[{"type":"output_text","text":"Hi."}]},{"type":"function_call","call_id":"call_1","name":"now","arguments":"{}"}],"usage":{"input_tokens":50,"output_tokens":20}}}`,
			},
			deltas: []chat.Delta{text("Hi."), callDelta(0, "call_1", "now", "{}")},
			want:   chat.AssistantMessage("Hi.", call("call_1", "now", "{}")),
			finish: chat.FinishToolCalls,
		},
		{
			// Calls without call_id, or with the same one, get ids of
			// their own in the reply.
			name: "missing and repeated ids",
			events: []string{
				`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","name":"now","arguments":"{}"}}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","id":"fc_2","call_id":"call_x","name":"now","arguments":"{}"}}`,
				`{"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","id":"fc_3","call_id":"call_x","name":"now","arguments":"{}"}}`,
				completed,
			},
			deltas: []chat.Delta{callDelta(0, "", "now", "{}"), callDelta(1, "call_x", "now", "{}"), callDelta(2, "call_x", "now", "{}")},
			want:   chat.AssistantMessage("", call("call_0", "now", "{}"), call("call_x", "now", "{}"), call("call_x_1", "now", "{}")),
			finish: chat.FinishToolCalls,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The type only in the event line, for the first event.
			body := sse(tc.events...)
			srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, body)
			})
			m := newModel(srv, openairesponses.Config{})
			var deltas []chat.Delta
			resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}, func(d chat.Delta) bool {
				deltas = append(deltas, d)
				return true
			})
			require.NoError(t, err)
			assert.Equal(t, tc.deltas, deltas)
			assert.Equal(t, &chat.Response{Message: tc.want, FinishReason: tc.finish, Usage: usage, Model: "gpt-5-mini", Attempts: 1}, resp)
		})
	}
}

// TestEventTypeFromEventLine: an event whose data has no type is read by
// the name its "event:" line gives.
func TestEventTypeFromEventLine(t *testing.T) {
	t.Parallel()
	body := "event: response.output_text.delta\ndata: {\"item_id\":\"m\",\"delta\":\"Hi\"}\n\n" +
		": a comment\nid: 7\nretry: 10\n\n" +
		"event: response.completed\ndata: {\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
	srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	})
	resp, err := newModel(srv, openairesponses.Config{}).Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Hi", resp.Message.Content)
	assert.Equal(t, chat.FinishStop, resp.FinishReason)
}

// TestReplyShapes: what a JSON reply of each shape gives.
func TestReplyShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		want       *chat.Response
	}{
		{
			// Message items are joined, a refusal is text, items of other
			// types (never asked for) are skipped, arguments sent as an
			// object are kept compacted, empty ones become {}; no total
			// is the sum.
			name: "mixed output",
			body: `{"status":"completed","model":"m","output":[` +
				`{"type":"message","content":[{"type":"output_text","text":"One. "},{"type":"refusal","refusal":"Not two."}]},` +
				`{"type":"web_search_call","id":"ws_1","status":"completed"},` +
				`{"type":"message","content":[{"type":"output_text","text":" Three."}]},` +
				`{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":{"city": "Paris"}},` +
				`{"type":"function_call","call_id":"call_2","name":"now","arguments":""}` +
				`],"usage":{"input_tokens":10,"output_tokens":5}}`,
			want: &chat.Response{
				Message: chat.AssistantMessage("One. Not two. Three.",
					call("call_1", "get_weather", `{"city":"Paris"}`), call("call_2", "now", "{}")),
				FinishReason: chat.FinishToolCalls, Model: "m", Attempts: 1,
				Usage: chat.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
			},
		},
		{
			// llama-server with a reasoning model sends the reasoning
			// text as the item's content and no encrypted content: the
			// text is kept, the item is not sent back.
			name: "reasoning text without encrypted content",
			body: `{"status":"completed","model":"gpt-oss","output":[` +
				`{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"The user greets."}]},` +
				`{"type":"message","content":[{"type":"output_text","text":"Hello!"}]}],` +
				`"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":8},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":4},"total_tokens":15}}`,
			want: &chat.Response{
				Message:      chat.Message{Role: chat.RoleAssistant, Content: "Hello!", Reasoning: "The user greets."},
				FinishReason: chat.FinishStop, Model: "gpt-oss", Attempts: 1,
				Usage: chat.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, CacheReadTokens: 8, ReasoningTokens: 4},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, tc.body)
			})
			resp, err := newModel(srv, openairesponses.Config{}).Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp)
		})
	}
}

// TestStreamStopped: a consumer that stops reading ends the stream at
// once with chat.ErrStreamStopped; a nil yield reads it all.
func TestStreamStopped(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "llamacpp/b_tools_stream")
	m := newModel(srv, openairesponses.Config{})
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("Weather?")}}
	for _, stopAt := range []int{1, 2, 10} {
		n := 0
		resp, err := m.Stream(context.Background(), req, func(chat.Delta) bool {
			n++
			return n < stopAt
		})
		assert.Nil(t, resp)
		require.ErrorIs(t, err, chat.ErrStreamStopped)
		assert.Equal(t, stopAt, n)
	}
	resp, err := m.Stream(context.Background(), req, nil)
	require.NoError(t, err)
	assert.Equal(t, chat.FinishToolCalls, resp.FinishReason)
}

// TestRepeatedCallIDs: a reply of 5,000 calls with one call_id gets 5,000
// ids of its own, in linear time (finding each a free suffix by trying
// them all took minutes).
func TestRepeatedCallIDs(t *testing.T) {
	t.Parallel()
	var body strings.Builder
	body.WriteString(`{"status":"completed","output":[`)
	for i := range 5000 {
		if i > 0 {
			body.WriteString(",")
		}
		body.WriteString(`{"type":"function_call","call_id":"call_1","name":"now","arguments":"{}"}`)
	}
	body.WriteString(`]}`)
	srv, _ := serve(t, func(w http.ResponseWriter, _ int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body.String())
	})
	providertest.CheckRepeatedIDs(t, "chat", "call_1", 5000, func() (*chat.Response, error) {
		return newModel(srv, openairesponses.Config{}).Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})
	})
}
