package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/httpline"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

func text(s string) chat.Delta { return chat.Delta{Content: s} }

func callDelta(i int, id, name, args string) chat.Delta {
	return chat.Delta{ToolCall: &chat.ToolCallDelta{Index: i, ID: id, Name: name, Arguments: args}}
}

func TestStream(t *testing.T) {
	t.Parallel()
	hi := []chat.Message{chat.UserMessage("Hi there")}
	for _, tc := range []struct {
		name       string
		recording  string
		req        *chat.Request
		wantDeltas []chat.Delta
		want       *chat.Response
		wantErr    error
		status     int
		model      string
		wantMsg    string
	}{
		{
			name: "text", recording: "d_plain_stream",
			req: &chat.Request{Messages: hi},
			wantDeltas: []chat.Delta{
				text("Hello"), text("!"), text(" How"), text(" can"), text(" I"), text(" help"), text(" you"), text("?"),
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 9, CompletionTokens: 9, TotalTokens: 18},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool call in one line", recording: "c3_tools_stream",
			req: &chat.Request{
				Messages: []chat.Message{chat.UserMessage("What is the weather in Paris?")},
				Tools:    []chat.ToolDefinition{weatherTool},
			},
			wantDeltas: []chat.Delta{callDelta(0, "call_hoys4ukw", "get_weather", `{"city":"Paris"}`)},
			want: &chat.Response{
				Message: chat.AssistantMessage("",
					chat.ToolCall{ID: "call_hoys4ukw", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 156, CompletionTokens: 5, TotalTokens: 161},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "older server: calls across lines without ids", recording: "h_stream_tools_no_id",
			req: &chat.Request{
				Messages: []chat.Message{chat.UserMessage("What is the weather in Paris and Lyon?")},
				Tools:    []chat.ToolDefinition{weatherTool},
			},
			wantDeltas: []chat.Delta{
				text("Checking both."),
				callDelta(0, "call_0", "get_weather", `{"city":"Paris"}`),
				callDelta(1, "call_1", "get_weather", `{"city":"Lyon"}`),
			},
			want: &chat.Response{
				Message: chat.AssistantMessage("Checking both.",
					chat.ToolCall{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
					chat.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`)}),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 160, CompletionTokens: 25, TotalTokens: 185},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "model not found", recording: "m2_model_not_found_stream",
			req: &chat.Request{
				Model:    "does-not-exist",
				Messages: []chat.Message{chat.UserMessage("What is the weather in Paris?")},
			},
			wantErr: chat.ErrModelNotFound, status: 404, model: "does-not-exist", wantMsg: "ollama pull does-not-exist",
		},
		{
			name: "ends without done", recording: "h_stream_no_done",
			req:        &chat.Request{Messages: hi},
			wantDeltas: []chat.Delta{text("Hello"), text("!")},
			wantErr:    chat.ErrBadResponse, status: 200, model: "tiny-toolcaller", wantMsg: "without",
		},
		{
			name: "error line", recording: "h_stream_error_line",
			req:        &chat.Request{Messages: hi},
			wantDeltas: []chat.Delta{text("Hello")},
			wantErr:    chat.ErrServer, status: 200, model: "tiny-toolcaller", wantMsg: "an error was encountered while running the model",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recording)
			m := newModel(srv, ollama.Config{})

			var deltas []chat.Delta
			resp, err := m.Stream(context.Background(), tc.req, func(d chat.Delta) bool {
				deltas = append(deltas, d)
				return true
			})

			sent := got.Get(t, 0).Body
			providertest.CheckGolden(t, "stream_"+providertest.Slug(tc.name), sent, *update)
			checkCaptured(t, tc.recording, sent)
			assert.Equal(t, tc.wantDeltas, deltas)
			if tc.wantErr != nil {
				assert.Nil(t, resp)
				pe := checkProviderError(t, err, tc.wantErr, tc.status, tc.model)
				assert.Contains(t, pe.Message, tc.wantMsg)
				return
			}
			require.NoError(t, err)
			want := *tc.want
			want.Attempts = 1 // one request: nothing was retried
			assert.Equal(t, &want, resp)
		})
	}
}

// streamServer writes the lines of a recording one at a time: each only
// after next receives a value (or at once when next is nil). After the
// lines it holds the response open until the client goes away. done is
// closed when the handler returns.
func streamServer(t *testing.T, name string, next <-chan struct{}, written *atomic.Int32) (srv *httptest.Server, done <-chan struct{}) {
	t.Helper()
	rec := providertest.LoadRecording(t, name)
	lines := bytes.SplitAfter(rec.Body, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	finished := make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(finished)
		w.Header().Set("Content-Type", rec.ContentType)
		w.WriteHeader(rec.Status)
		for i, line := range lines {
			if i > 0 && next != nil {
				select {
				case <-next:
				case <-r.Context().Done():
					return
				}
			}
			if written != nil {
				written.Add(1) // before the write, so the client cannot see the line first
			}
			_, _ = w.Write(line)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, finished
}

// TestStreamLineByLine checks that each delta is yielded as soon as its
// line arrives: the server writes a line only after the previous delta.
func TestStreamLineByLine(t *testing.T) {
	t.Parallel()
	next := make(chan struct{})
	var written atomic.Int32
	srv, _ := streamServer(t, "d_plain_stream", next, &written)
	m := newModel(srv, ollama.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var pieces []string
	resp, err := m.Stream(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
		func(d chat.Delta) bool {
			pieces = append(pieces, d.Content)
			assert.Equal(t, int32(len(pieces)), written.Load(), "delta %d yielded before its line was the last written", len(pieces))
			select {
			case next <- struct{}{}:
			case <-ctx.Done():
			}
			return true
		})

	require.NoError(t, err)
	assert.Equal(t, []string{"Hello", "!", " How", " can", " I", " help", " you", "?"}, pieces)
	assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
}

func TestStreamCancel(t *testing.T) {
	t.Parallel()
	srv, handlerDone := streamServer(t, "d_plain_stream", make(chan struct{}), nil) // stalls after line 1
	m := newModel(srv, ollama.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var start time.Time
	resp, err := m.Stream(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
		func(d chat.Delta) bool {
			start = time.Now()
			time.AfterFunc(20*time.Millisecond, cancel) // cancel while Stream waits for line 2
			return true
		})

	assert.Nil(t, resp)
	require.ErrorIs(t, err, context.Canceled)
	var pe *chat.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Less(t, time.Since(start), 2*time.Second, "Stream must return promptly")
	select {
	case <-handlerDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not closed")
	}
}

func TestStreamStoppedByConsumer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		recording string
		tools     []chat.ToolDefinition
	}{
		{name: "on text", recording: "d_plain_stream"},
		{name: "on tool call", recording: "c3_tools_stream", tools: []chat.ToolDefinition{weatherTool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, handlerDone := streamServer(t, tc.recording, nil, nil) // writes all, then holds the response open
			m := newModel(srv, ollama.Config{})

			calls := 0
			resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Tools: tc.tools},
				func(chat.Delta) bool { calls++; return false })

			assert.Nil(t, resp)
			require.ErrorIs(t, err, chat.ErrStreamStopped)
			assert.Equal(t, 1, calls, "no yield after false")
			select {
			case <-handlerDone:
			case <-time.After(5 * time.Second):
				t.Fatal("the connection was not closed")
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	// A bare host:port, as OLLAMA_HOST allows.
	m := ollama.New(ollama.Config{BaseURL: addr, Model: "qwen2.5", HTTPClient: &http.Client{Transport: tr},
		MaxRetries: ollama.NoRetries}) // retry_test.go retries refused connections
	req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}

	_, chatErr := m.Chat(context.Background(), req)
	_, streamErr := m.Stream(context.Background(), req, func(chat.Delta) bool { return true })

	for _, err := range []error{chatErr, streamErr} {
		require.ErrorIs(t, err, syscall.ECONNREFUSED)
		var pe *chat.ProviderError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, 0, pe.StatusCode)
		assert.Equal(t, "qwen2.5", pe.Model)
		assert.Contains(t, pe.Message, "http://"+addr)
		assert.Contains(t, pe.Message, "ollama serve")
	}
}

func TestContextAlreadyCancelled(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "b_plain")
	m := newModel(srv, ollama.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Chat(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, errors.As(err, new(*chat.ProviderError)))
}

// TestOllamaHost runs against $OLLAMA_HOST given without a scheme, with
// the default HTTP client. It cannot run in parallel: it sets the variable.
func TestOllamaHost(t *testing.T) {
	srv, got := replay(t, "b_plain")
	t.Setenv("OLLAMA_HOST", srv.Listener.Addr().String())
	t.Cleanup(httpline.DefaultClient().CloseIdleConnections)
	m := ollama.New(ollama.Config{Model: "tiny-toolcaller"})

	resp, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}})

	require.NoError(t, err)
	assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
	checkCaptured(t, "b_plain", got.Get(t, 0).Body)
}
