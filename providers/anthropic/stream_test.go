package anthropic_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

const (
	msgStart  = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"output_tokens":1}}}`
	msgStop   = `{"type":"message_stop"}`
	textStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
)

func msgDelta(stop string) string {
	return `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":{"output_tokens":7}}`
}

// TestStream covers what the recorded streams do not: calls interleaved
// by block index, a call that starts with its whole input, a text block's
// start with text, unknown events and deltas, and streams that end
// early.
func TestStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		events  []string
		want    *chat.Response
		deltas  []chat.Delta
		wantErr error  // the sentinel of a failed stream
		errMsg  string // part of its message
	}{
		{
			name: "interleaved calls",
			events: []string{msgStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{}}}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"get_weather","input":{}}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Paris\"}"}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Lyon\"}"}}`,
				`{"type":"content_block_stop","index":0}`, `{"type":"content_block_stop","index":1}`,
				msgDelta("tool_use"), msgStop},
			want: &chat.Response{Message: chat.AssistantMessage("", call("toolu_a", "get_weather", `{"city":"Paris"}`), call("toolu_b", "get_weather", `{"city":"Lyon"}`)),
				FinishReason: chat.FinishToolCalls},
			deltas: []chat.Delta{callDelta(0, "toolu_a", "get_weather", ""), callDelta(1, "toolu_b", "get_weather", ""),
				callDelta(1, "", "", `{"city":`), callDelta(0, "", "", `{"city":"Paris"}`), callDelta(1, "", "", `"Lyon"}`)},
		},
		{
			name: "call with its whole input and no fragments",
			events: []string{msgStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{ "city": "Paris" }}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"now","input":{}}}`,
				`{"type":"content_block_stop","index":1}`,
				msgDelta("tool_use"), msgStop},
			want: &chat.Response{Message: chat.AssistantMessage("", call("toolu_a", "get_weather", `{ "city": "Paris" }`), call("toolu_b", "now", `{}`)),
				FinishReason: chat.FinishToolCalls},
			deltas: []chat.Delta{callDelta(0, "toolu_a", "get_weather", ""), callDelta(0, "", "", `{"city":"Paris"}`), callDelta(1, "toolu_b", "now", "")},
		},
		{
			name: "text in the block's start, unknown events and deltas, comments",
			events: []string{msgStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hel"}}`,
				`{"type":"ping"}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}`,
				`{"type":"something_new","data":{}}`,
				`{"type":"content_block_stop","index":0}`,
				msgDelta("end_turn"), msgStop},
			want:   &chat.Response{Message: chat.AssistantMessage("Hello"), FinishReason: chat.FinishStop},
			deltas: []chat.Delta{text("Hel"), text("lo")},
		},
		{
			name:   "stop sequence",
			events: []string{msgStart, textStart, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"1, 2"}}`, msgDelta("stop_sequence"), msgStop},
			want:   &chat.Response{Message: chat.AssistantMessage("1, 2"), FinishReason: chat.FinishStop},
			deltas: []chat.Delta{text("1, 2")},
		},
		{
			name:   "no message_stop after the stop reason",
			events: []string{msgStart, textStart, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`, msgDelta("end_turn")},
			want:   &chat.Response{Message: chat.AssistantMessage("Hi"), FinishReason: chat.FinishStop},
			deltas: []chat.Delta{text("Hi")},
		},
		{
			name:    "cut before the stop reason",
			events:  []string{msgStart, textStart, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`},
			deltas:  []chat.Delta{text("Hi")},
			wantErr: io.ErrUnexpectedEOF, errMsg: "stream cut off",
		},
		{
			name:    "delta of a block that did not start",
			events:  []string{msgStart, `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}`},
			wantErr: chat.ErrBadResponse, errMsg: "input_json_delta for content block 3, which did not start",
		},
		{
			name:    "delta of another block's type",
			events:  []string{msgStart, textStart, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`},
			wantErr: chat.ErrBadResponse, errMsg: "input_json_delta for content block 0, which is text",
		},
		{
			name:    "block started twice",
			events:  []string{msgStart, textStart, textStart},
			wantErr: chat.ErrBadResponse, errMsg: "content block 0 started twice",
		},
		{
			name:    "event without an index",
			events:  []string{msgStart, `{"type":"content_block_start","content_block":{"type":"text","text":""}}`},
			wantErr: chat.ErrBadResponse, errMsg: "content_block_start event without an index",
		},
		{
			name: "unknown stop reason with a call",
			events: []string{msgStart, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"now","input":{}}}`,
				msgDelta("something_new"), msgStop},
			deltas:  []chat.Delta{callDelta(0, "toolu_a", "now", "")},
			wantErr: chat.ErrBadResponse, errMsg: `stop_reason "something_new" is unknown and the reply has tool calls`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := serve(t, reply(sse(tc.events...)))
			var deltas []chat.Delta
			resp, err := newModel(srv, anthropic.Config{}).Stream(context.Background(), hiRequest, collect(&deltas))
			assert.Equal(t, tc.deltas, deltas)
			if tc.wantErr != nil {
				assert.Nil(t, resp)
				pe := checkProviderError(t, err, tc.wantErr, 200, "tiny-toolcaller")
				assert.ErrorIs(t, err, chat.ErrBadResponse)
				assert.Contains(t, pe.Error(), tc.errMsg)
				return
			}
			require.NoError(t, err)
			tc.want.Model, tc.want.Attempts = "claude-test", 1
			tc.want.Usage = chat.Usage{PromptTokens: 15, CompletionTokens: 7, TotalTokens: 22, CacheWriteTokens: 5}
			assert.Equal(t, tc.want, resp)
		})
	}
}

// TestStreamStopped: when yield returns false, Stream stops reading and
// returns ErrStreamStopped.
func TestStreamStopped(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "llamacpp/d_plain_stream")
	n := 0
	resp, err := newModel(srv, anthropic.Config{}).Stream(context.Background(), hiRequest, func(chat.Delta) bool {
		n++
		return n < 3
	})
	assert.Nil(t, resp)
	assert.Equal(t, chat.ErrStreamStopped, err)
	assert.Equal(t, 3, n)
}

// TestStopReasons: each stop_reason becomes the finish reason the loop
// knows; a reply cut short or refused keeps its calls, which the loop
// does not run.
func TestStopReasons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stop  string
		calls bool
		want  chat.FinishReason
	}{
		{"end_turn", false, chat.FinishStop},
		{"end_turn", true, chat.FinishToolCalls},
		{"stop_sequence", false, chat.FinishStop},
		{"tool_use", true, chat.FinishToolCalls},
		{"max_tokens", false, chat.FinishLength},
		{"max_tokens", true, chat.FinishLength},
		{"model_context_window_exceeded", true, chat.FinishLength},
		{"refusal", false, chat.FinishFiltered},
		{"refusal", true, chat.FinishFiltered},
		// An unknown reason on a text reply is passed on.
		{"something_new", false, "something_new"},
	} {
		t.Run(tc.stop+map[bool]string{true: "/calls"}[tc.calls], func(t *testing.T) {
			t.Parallel()
			content := `{"type":"text","text":"Hi"}`
			if tc.calls {
				content = `{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{"city":"Paris"}}`
			}
			srv, _ := serve(t, reply(`{"type":"message","role":"assistant","model":"claude-test","content":[`+content+`],"stop_reason":"`+tc.stop+`","usage":{"input_tokens":3,"output_tokens":1}}`))
			resp, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.FinishReason)
			assert.Equal(t, tc.calls, resp.HasToolCalls())
		})
	}
}

// TestMissingAndRepeatedIDs: a call without an id gets "toolu_<index>"
// and a repeated id a "_<n>" suffix, so that results can be matched.
func TestMissingAndRepeatedIDs(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, reply(`{"type":"message","role":"assistant","model":"m","content":[`+
		`{"type":"tool_use","name":"now","input":{}},{"type":"tool_use","id":"t","name":"now","input":{}},{"type":"tool_use","id":"t","name":"now","input":null}],"stop_reason":"tool_use"}`))
	resp, err := newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
	require.NoError(t, err)
	assert.Equal(t, []chat.ToolCall{call("toolu_0", "now", `{}`), call("t", "now", `{}`), call("t_1", "now", `{}`)}, resp.Message.ToolCalls)
}

// TestRepeatedCallIDs: a reply of 5,000 calls with one id gets 5,000
// ids, in time in proportion to the calls (trying every suffix from 1 for
// each call is quadratic).
func TestRepeatedCallIDs(t *testing.T) {
	t.Parallel()
	const n = 5000
	blocks := strings.Repeat(`{"type":"tool_use","id":"toolu_1","name":"now","input":{}},`, n)
	srv, _ := serve(t, reply(`{"type":"message","role":"assistant","model":"m","content":[`+strings.TrimSuffix(blocks, ",")+`],"stop_reason":"tool_use"}`))
	providertest.CheckRepeatedIDs(t, "chat", "toolu_1", n, func() (*chat.Response, error) {
		return newModel(srv, anthropic.Config{}).Chat(context.Background(), hiRequest)
	})
}

// TestStreamAnsweredWithJSON: a server that answers a stream request
// with a whole reply (application/json) is read as one: its text and
// calls are yielded, and an error body is an error.
func TestStreamAnsweredWithJSON(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t,
		reply(`{"type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_a","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":1}}`),
		status(200, apiErrorBody("overloaded_error", "Overloaded")))
	m := newModel(srv, anthropic.Config{})
	var deltas []chat.Delta
	resp, err := m.Stream(context.Background(), hiRequest, collect(&deltas))
	require.NoError(t, err)
	assert.Equal(t, []chat.Delta{text("Let me check."), callDelta(0, "toolu_a", "get_weather", `{"city":"Paris"}`)}, deltas)
	assert.Equal(t, chat.FinishToolCalls, resp.FinishReason)

	_, err = m.Stream(context.Background(), hiRequest, nil)
	checkProviderError(t, err, chat.ErrServer, 200, "tiny-toolcaller")
}
