package toolcalls

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/toolcall-go/toolcall/chat"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ids(calls []chat.ToolCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.ID
	}
	return out
}

// TestUniqueIDs fills missing ids and suffixes repeated ones, and copies
// the calls only when something changes.
func TestUniqueIDs(t *testing.T) {
	calls := []chat.ToolCall{{ID: "a"}, {}, {ID: "a"}, {ID: "a_1"}, {}}
	got, changed := UniqueIDs(calls)
	assert.True(t, changed)
	assert.Equal(t, []string{"a", "call_1", "a_1", "a_1_1", "call_4"}, ids(got))
	assert.Equal(t, []string{"a", "", "a", "a_1", ""}, ids(calls), "the caller's calls are not modified")

	fine := []chat.ToolCall{{ID: "x"}, {ID: "y"}}
	got, changed = UniqueIDs(fine)
	assert.False(t, changed)
	assert.Same(t, &fine[0], &got[0])
}

// TestUniqueIDsManyRepeated: a reply of thousands of calls with one id
// (the reply is untrusted) gets unique ids in linear time; trying the
// suffixes from 1 against every earlier call would take minutes.
func TestUniqueIDsManyRepeated(t *testing.T) {
	calls := make([]chat.ToolCall, 20000)
	for i := range calls {
		calls[i].ID = "x"
	}
	got, changed := UniqueIDs(calls)
	assert.True(t, changed)
	seen := make(map[string]bool, len(got))
	for _, c := range got {
		seen[c.ID] = true
	}
	assert.Len(t, seen, len(calls))
	assert.Equal(t, "x", got[0].ID)
	assert.Equal(t, "x_19999", got[len(got)-1].ID)
}

func TestWithUniqueIDs(t *testing.T) {
	mr := &chat.Response{Message: chat.Message{ToolCalls: []chat.ToolCall{{}, {}}}}
	got := WithUniqueIDs(mr)
	assert.Equal(t, []string{"call_0", "call_1"}, ids(got.Message.ToolCalls))
	assert.Equal(t, []string{"", ""}, ids(mr.Message.ToolCalls), "the model's reply is not modified")
	ok := &chat.Response{Message: chat.Message{ToolCalls: []chat.ToolCall{{ID: "c"}}}}
	assert.Same(t, ok, WithUniqueIDs(ok))
}

func TestCut(t *testing.T) {
	call := []chat.ToolCall{{ID: "c"}}
	two := []chat.ToolCall{{ID: "c"}, {ID: "d"}}
	for _, tc := range []struct {
		reason chat.FinishReason
		calls  []chat.ToolCall
		want   string
	}{
		{chat.FinishLength, call, `finish reason "length"; its 1 tool call was not run`},
		{chat.FinishFiltered, two, `finish reason "content_filter"; its 2 tool calls were not run`},
		{chat.FinishLength, nil, ""},
		{chat.FinishToolCalls, two, ""},
	} {
		mr := &chat.Response{Message: chat.Message{ToolCalls: tc.calls}, FinishReason: tc.reason}
		assert.Equal(t, tc.want, Cut(mr))
	}
}
