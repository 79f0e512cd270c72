package anthropic_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestStreamLimit: Config.MaxResponseBytes bounds everything a stream
// keeps, not only the deltas: a block that arrives whole in its
// content_block_start (a call's input, redacted thinking, a block of a
// type this package does not know), thinking and signatures, and the
// number of blocks, each of which counts some bytes besides its own. A
// block's start counts its bytes that are not UTF-8 for the three each
// decodes to: its thinking or call id is kept decoded.
func TestStreamLimit(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 512<<10)       // within a line's bound, past the limit
	notUTF8 := strings.Repeat("\xff", 30<<10) // two are within 64 KiB as sent, past it decoded
	many := func(n int, block string) []string {
		events := []string{msgStart}
		for i := range n {
			events = append(events,
				fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block),
				fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
		}
		return append(events, msgDelta("end_turn"), msgStop)
	}
	for _, tc := range []struct {
		name   string
		limit  int
		events []string
	}{
		{name: "2 MB of input in a call's start", limit: 1 << 10, events: []string{msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"` + big + `"}}}`,
			`{"type":"content_block_stop","index":0}`, msgDelta("tool_use"), msgStop}},
		{name: "redacted thinking", limit: 1 << 10, events: []string{msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"` + big + `"}}`,
			`{"type":"content_block_stop","index":0}`, msgDelta("end_turn"), msgStop}},
		{name: "a block of an unknown type", limit: 1 << 10, events: []string{msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"new_kind","payload":"` + big + `"}}`,
			`{"type":"content_block_stop","index":0}`, msgDelta("end_turn"), msgStop}},
		{name: "thinking in its start", limit: 1 << 10, events: []string{msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"` + big + `","signature":""}}`,
			`{"type":"content_block_stop","index":0}`, msgDelta("end_turn"), msgStop}},
		{name: "signature deltas", limit: 1 << 10, events: append([]string{msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
			strings.Split(strings.Repeat(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abcdefgh"}};`, 200), ";")...)},
		{name: "many empty text blocks", limit: 64 << 10, events: many(1000, `{"type":"text","text":""}`)},
		{name: "many calls", limit: 64 << 10, events: many(1000, `{"type":"tool_use","id":"t","name":"f","input":{}}`)},
		{name: "thinking not UTF-8 in its start", limit: 64 << 10, events: many(2, `{"type":"thinking","thinking":"`+notUTF8+`","signature":""}`)},
		{name: "call ids not UTF-8", limit: 64 << 10, events: many(2, `{"type":"tool_use","id":"`+notUTF8+`","name":"f","input":{}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			events := tc.events
			if events[len(events)-1] == "" {
				events = events[:len(events)-1]
			}
			srv, _ := serve(t, reply(sse(events...)))
			m := newModel(srv, anthropic.Config{MaxResponseBytes: tc.limit})
			resp, err := m.Stream(context.Background(), hiRequest, nil)
			assert.Nil(t, resp)
			checkProviderError(t, err, chat.ErrBadResponse, 200, "tiny-toolcaller")
			assert.Contains(t, err.Error(), fmt.Sprintf("streamed reply is larger than the %d KiB limit (Config.MaxResponseBytes)", tc.limit>>10))
		})
	}
}

// TestReplyBlockLimit: a reply that is not streamed is read up to the
// limit, and its blocks count too: many tiny blocks in a small body
// exceed it.
func TestReplyBlockLimit(t *testing.T) {
	t.Parallel()
	blocks := strings.TrimSuffix(strings.Repeat(`{"type":"text","text":""},`, 1000), ",")
	body := `{"type":"message","role":"assistant","model":"claude","content":[` + blocks + `],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`
	require.Less(t, len(body), 64<<10)
	srv, _ := serve(t, reply(body))
	resp, err := newModel(srv, anthropic.Config{MaxResponseBytes: 64 << 10}).Chat(context.Background(), hiRequest)
	assert.Nil(t, resp)
	checkProviderError(t, err, chat.ErrBadResponse, 200, "tiny-toolcaller")
	assert.Contains(t, err.Error(), "reply of 1000 content blocks is larger than the 64 KiB limit (Config.MaxResponseBytes)")
}

// TestRecordedWithinSmallLimit: the recorded streams of the API, thinking
// with its signature, redacted thinking and a call, fit in 8 KiB: the
// reply is the one read without a limit.
func TestRecordedWithinSmallLimit(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"stream_thinking_tool_use/01", "stream_redacted_thinking/01", "stream_tool_use_text_editor/01"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, _ := replay(t, "cloud/anthropic-messages/"+name)
			want, err := newModel(srv, anthropic.Config{MaxResponseBytes: -1}).Stream(context.Background(), hiRequest, nil)
			require.NoError(t, err)
			got, err := newModel(srv, anthropic.Config{MaxResponseBytes: 8 << 10}).Stream(context.Background(), hiRequest, nil)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}
