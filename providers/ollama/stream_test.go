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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

func text(s string) toolcall.StreamDelta { return toolcall.StreamDelta{Content: s} }

func callDelta(i int, id, name, args string) toolcall.StreamDelta {
	return toolcall.StreamDelta{ToolCall: &toolcall.ToolCallDelta{Index: i, ID: id, Name: name, Arguments: args}}
}

func TestStream(t *testing.T) {
	t.Parallel()
	hi := []toolcall.Message{toolcall.UserMessage("Hi there")}
	for _, tc := range []struct {
		name       string
		recording  string
		req        *toolcall.Request
		wantDeltas []toolcall.StreamDelta
		want       *toolcall.ModelResponse
		wantErr    error
		status     int
		model      string
		wantMsg    string
	}{
		{
			name: "text", recording: "d_plain_stream",
			req: &toolcall.Request{Messages: hi},
			wantDeltas: []toolcall.StreamDelta{
				text("Hello"), text("!"), text(" How"), text(" can"), text(" I"), text(" help"), text(" you"), text("?"),
			},
			want: &toolcall.ModelResponse{
				Message:      toolcall.AssistantMessage("Hello! How can I help you?"),
				FinishReason: toolcall.FinishStop,
				Usage:        toolcall.Usage{PromptTokens: 9, CompletionTokens: 9, TotalTokens: 18},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool call in one line", recording: "c3_tools_stream",
			req: &toolcall.Request{
				Messages: []toolcall.Message{toolcall.UserMessage("What is the weather in Paris?")},
				Tools:    []toolcall.Definition{weatherTool},
			},
			wantDeltas: []toolcall.StreamDelta{callDelta(0, "call_hoys4ukw", "get_weather", `{"city":"Paris"}`)},
			want: &toolcall.ModelResponse{
				Message: toolcall.AssistantMessage("",
					toolcall.ToolCall{ID: "call_hoys4ukw", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}),
				FinishReason: toolcall.FinishToolCalls,
				Usage:        toolcall.Usage{PromptTokens: 156, CompletionTokens: 5, TotalTokens: 161},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "older server: calls across lines without ids", recording: "h_stream_tools_no_id",
			req: &toolcall.Request{
				Messages: []toolcall.Message{toolcall.UserMessage("What is the weather in Paris and Lyon?")},
				Tools:    []toolcall.Definition{weatherTool},
			},
			wantDeltas: []toolcall.StreamDelta{
				text("Checking both."),
				callDelta(0, "call_0", "get_weather", `{"city":"Paris"}`),
				callDelta(1, "call_1", "get_weather", `{"city":"Lyon"}`),
			},
			want: &toolcall.ModelResponse{
				Message: toolcall.AssistantMessage("Checking both.",
					toolcall.ToolCall{ID: "call_0", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
					toolcall.ToolCall{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`)}),
				FinishReason: toolcall.FinishToolCalls,
				Usage:        toolcall.Usage{PromptTokens: 160, CompletionTokens: 25, TotalTokens: 185},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "model not found", recording: "m2_model_not_found_stream",
			req: &toolcall.Request{
				Model:    "does-not-exist",
				Messages: []toolcall.Message{toolcall.UserMessage("What is the weather in Paris?")},
			},
			wantErr: toolcall.ErrModelNotFound, status: 404, model: "does-not-exist", wantMsg: "ollama pull does-not-exist",
		},
		{
			name: "ends without done", recording: "h_stream_no_done",
			req:        &toolcall.Request{Messages: hi},
			wantDeltas: []toolcall.StreamDelta{text("Hello"), text("!")},
			wantErr:    toolcall.ErrBadResponse, status: 200, model: "tiny-toolcaller", wantMsg: "without",
		},
		{
			name: "error line", recording: "h_stream_error_line",
			req:        &toolcall.Request{Messages: hi},
			wantDeltas: []toolcall.StreamDelta{text("Hello")},
			wantErr:    toolcall.ErrServer, status: 200, model: "tiny-toolcaller", wantMsg: "an error was encountered while running the model",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recording)
			m := newModel(srv, ollama.Config{})

			var deltas []toolcall.StreamDelta
			resp, err := m.Stream(context.Background(), tc.req, func(d toolcall.StreamDelta) bool {
				deltas = append(deltas, d)
				return true
			})

			sent := got.body(t, 0)
			providertest.CheckGolden(t, "stream_"+slug(tc.name), sent, *update)
			checkCaptured(t, tc.recording, sent)
			assert.Equal(t, tc.wantDeltas, deltas)
			if tc.wantErr != nil {
				assert.Nil(t, resp)
				pe := checkProviderError(t, err, tc.wantErr, tc.status, tc.model)
				assert.Contains(t, pe.Message, tc.wantMsg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp)
		})
	}
}

// streamServer writes the lines of a recording one at a time: each only
// after next receives a value (or at once when next is nil). After the
// lines it holds the response open until the client goes away. done is
// closed when the handler returns.
func streamServer(t *testing.T, name string, next <-chan struct{}, written *atomic.Int32) (srv *httptest.Server, done <-chan struct{}) {
	t.Helper()
	rec := loadRecording(t, name)
	lines := bytes.SplitAfter(rec.body, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	finished := make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(finished)
		w.Header().Set("Content-Type", rec.contentType)
		w.WriteHeader(rec.status)
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
	resp, err := m.Stream(ctx, &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}},
		func(d toolcall.StreamDelta) bool {
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
	resp, err := m.Stream(ctx, &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}},
		func(d toolcall.StreamDelta) bool {
			start = time.Now()
			time.AfterFunc(20*time.Millisecond, cancel) // cancel while Stream waits for line 2
			return true
		})

	assert.Nil(t, resp)
	require.ErrorIs(t, err, context.Canceled)
	var pe *toolcall.ProviderError
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
		tools     []toolcall.Definition
	}{
		{name: "on text", recording: "d_plain_stream"},
		{name: "on tool call", recording: "c3_tools_stream", tools: []toolcall.Definition{weatherTool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, handlerDone := streamServer(t, tc.recording, nil, nil) // writes all, then holds the response open
			m := newModel(srv, ollama.Config{})

			calls := 0
			resp, err := m.Stream(context.Background(), &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi")}, Tools: tc.tools},
				func(toolcall.StreamDelta) bool { calls++; return false })

			assert.Nil(t, resp)
			require.ErrorIs(t, err, toolcall.ErrStreamStopped)
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
	m := ollama.New(ollama.Config{BaseURL: addr, Model: "qwen2.5", HTTPClient: &http.Client{Transport: tr}})
	req := &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("hi")}}

	_, chatErr := m.Chat(context.Background(), req)
	_, streamErr := m.Stream(context.Background(), req, func(toolcall.StreamDelta) bool { return true })

	for _, err := range []error{chatErr, streamErr} {
		require.ErrorIs(t, err, syscall.ECONNREFUSED)
		var pe *toolcall.ProviderError
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
	_, err := m.Chat(ctx, &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("hi")}})
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, errors.As(err, new(*toolcall.ProviderError)))
}

// TestOllamaHost runs against $OLLAMA_HOST given without a scheme, with
// the default HTTP client. It cannot run in parallel: it sets the variable.
func TestOllamaHost(t *testing.T) {
	srv, got := replay(t, "b_plain")
	t.Setenv("OLLAMA_HOST", srv.Listener.Addr().String())
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	m := ollama.New(ollama.Config{Model: "tiny-toolcaller"})

	resp, err := m.Chat(context.Background(), &toolcall.Request{Messages: []toolcall.Message{toolcall.UserMessage("Hi there")}})

	require.NoError(t, err)
	assert.Equal(t, "Hello! How can I help you?", resp.Message.Content)
	checkCaptured(t, "b_plain", got.body(t, 0))
}
