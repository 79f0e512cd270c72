package httpline

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStream: a stream goes to read with the Accept asked for; a whole
// JSON reply goes to whole when there is one, and is yielded as a stream
// would have been; a nil yield takes every delta.
func TestStream(t *testing.T) {
	ctype := make(chan string, 1)
	srv, headers := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", <-ctype)
		_, _ = io.WriteString(w, "data: hi\n")
	})
	e := endpoint(srv)
	read := func(ctx context.Context, rep *Reply, yield func(chat.Delta) bool) (*chat.Response, error) {
		data, err := rep.ReadAll(ctx)
		require.NoError(t, err)
		yield(chat.Delta{Content: "streamed"})
		return &chat.Response{Message: chat.Message{Content: string(data)}}, nil
	}
	whole := func(context.Context, *Reply) (*chat.Response, error) {
		return &chat.Response{Message: chat.Message{Content: "whole", ToolCalls: []chat.ToolCall{{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)}}}}, nil
	}
	stream := func(ct string, whole func(context.Context, *Reply) (*chat.Response, error), yield func(chat.Delta) bool) (*chat.Response, error) {
		ctype <- ct
		resp, err := e.Stream(context.Background(), "m", "text/event-stream", []byte(`{}`), yield, read, whole)
		assert.Equal(t, "text/event-stream", (<-headers).Get("Accept"))
		return resp, err
	}
	var got []chat.Delta
	collect := func(d chat.Delta) bool { got = append(got, d); return true }

	resp, err := stream("text/event-stream", whole, collect)
	require.NoError(t, err)
	assert.Equal(t, "data: hi\n", resp.Message.Content)
	assert.Equal(t, 1, resp.Attempts)
	assert.Equal(t, []chat.Delta{{Content: "streamed"}}, got)

	got = nil
	resp, err = stream("application/json; charset=utf-8", whole, collect)
	require.NoError(t, err)
	assert.Equal(t, "whole", resp.Message.Content)
	assert.Equal(t, 1, resp.Attempts)
	assert.Equal(t, []chat.Delta{{Content: "whole"}, {ToolCall: &chat.ToolCallDelta{Index: 0, ID: "a", Name: "f", Arguments: `{}`}}}, got)

	_, err = stream("application/json", whole, func(chat.Delta) bool { return false })
	assert.ErrorIs(t, err, chat.ErrStreamStopped, "yield stopped the whole reply")

	got = nil
	resp, err = stream("application/json", nil, collect)
	require.NoError(t, err)
	assert.Equal(t, "data: hi\n", resp.Message.Content, "without whole, read reads a JSON reply")
	assert.Equal(t, []chat.Delta{{Content: "streamed"}}, got)

	for _, w := range []func(context.Context, *Reply) (*chat.Response, error){whole, nil} {
		for _, ct := range []string{"text/event-stream", "application/json"} {
			_, err = stream(ct, w, nil)
			require.NoError(t, err, "a nil yield takes every delta (%s)", ct)
		}
	}
}

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
		assert.Equal(t, want, r.isJSON(), "%q", ctype)
	}
}

func TestYieldWhole(t *testing.T) {
	resp := &chat.Response{Message: chat.Message{Content: "Let me check.", ToolCalls: []chat.ToolCall{
		{ID: "a", Name: "f", Arguments: json.RawMessage(`{"x":1}`)},
		{ID: "b", Name: "g", Arguments: json.RawMessage(`{}`)},
	}}}
	var got []chat.Delta
	assert.True(t, yieldWhole(resp, func(d chat.Delta) bool { got = append(got, d); return true }))
	assert.Equal(t, []chat.Delta{
		{Content: "Let me check."},
		{ToolCall: &chat.ToolCallDelta{Index: 0, ID: "a", Name: "f", Arguments: `{"x":1}`}},
		{ToolCall: &chat.ToolCallDelta{Index: 1, ID: "b", Name: "g", Arguments: `{}`}},
	}, got)

	// It stops when yield does.
	n := 0
	assert.False(t, yieldWhole(resp, func(chat.Delta) bool { n++; return n < 2 }))
	assert.Equal(t, 2, n)

	// No text: no empty delta.
	got = nil
	assert.True(t, yieldWhole(&chat.Response{}, func(d chat.Delta) bool { got = append(got, d); return true }))
	assert.Empty(t, got)
}
