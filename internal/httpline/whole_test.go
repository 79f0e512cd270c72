package httpline

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
)

func TestReplyIsJSON(t *testing.T) {
	for ctype, want := range map[string]bool{
		"application/json":                 true,
		"Application/JSON; charset=utf-8":  true,
		"text/event-stream":                false,
		"application/x-ndjson":             false,
		"":                                 false,
		"application/json; charset=\"utf-": true, // the type, though a parameter does not parse
	} {
		r := &Reply{Response: &http.Response{Header: http.Header{"Content-Type": {ctype}}}}
		assert.Equal(t, want, r.IsJSON(), "%q", ctype)
	}
}

func TestYieldWhole(t *testing.T) {
	resp := &chat.Response{Message: chat.Message{Content: "Let me check.", ToolCalls: []chat.ToolCall{
		{ID: "a", Name: "f", Arguments: json.RawMessage(`{"x":1}`)},
		{ID: "b", Name: "g", Arguments: json.RawMessage(`{}`)},
	}}}
	var got []chat.Delta
	assert.True(t, YieldWhole(resp, func(d chat.Delta) bool { got = append(got, d); return true }))
	assert.Equal(t, []chat.Delta{
		{Content: "Let me check."},
		{ToolCall: &chat.ToolCallDelta{Index: 0, ID: "a", Name: "f", Arguments: `{"x":1}`}},
		{ToolCall: &chat.ToolCallDelta{Index: 1, ID: "b", Name: "g", Arguments: `{}`}},
	}, got)

	// It stops when yield does.
	n := 0
	assert.False(t, YieldWhole(resp, func(chat.Delta) bool { n++; return n < 2 }))
	assert.Equal(t, 2, n)

	// No text: no empty delta.
	got = nil
	assert.True(t, YieldWhole(&chat.Response{}, func(d chat.Delta) bool { got = append(got, d); return true }))
	assert.Empty(t, got)
}
