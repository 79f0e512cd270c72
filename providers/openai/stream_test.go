package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

func TestStream(t *testing.T) {
	t.Parallel()
	askParis := []chat.Message{chat.UserMessage("What is the weather in Paris?")}
	for _, tc := range []struct {
		name      string
		recording string
		captured  bool
		cfg       openai.Config
		req       *chat.Request
		// deltas, when set, are the exact deltas expected; firstDelta
		// checks only the first one, for long recordings.
		deltas     []chat.Delta
		firstDelta *chat.Delta
		want       *chat.Response
		wantErr    error
		wantMsg    string
	}{
		{
			name: "text", recording: "llamacpp/d2_plain_stream", captured: true,
			req: &chat.Request{Messages: askParis, Options: chat.Options{MaxTokens: ptr(300)}},
			deltas: []chat.Delta{
				text("Hello"), text("!"), text(" How"), text(" can"), text(" I"), text(" help"), text(" you"), text("?"),
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 37, CompletionTokens: 9, TotalTokens: 46, CacheReadTokens: 21},
				Model:        "tiny-toolcaller",
			},
		},
		{
			// One fragment per token; id and name only in the first.
			name: "tool call in fragments", recording: "llamacpp/d_tools_required_stream", captured: true,
			req: &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{weatherTool},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceRequired}, Options: chat.Options{MaxTokens: ptr(300)}},
			firstDelta: ptr(callDelta(0, "1eqy8GtjAgRUt087fhEQFDvi8Cc2gasn", "get_weather", "{")),
			want: &chat.Response{
				Message: chat.AssistantMessage("", call("1eqy8GtjAgRUt087fhEQFDvi8Cc2gasn", "get_weather",
					`{"city":"Paris","unit":"fahrenheit","options":{"days":5,"detail":{"wind":false}}}`)),
				FinishReason: chat.FinishToolCalls,
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "tool result then text", recording: "llamacpp/e4_loop_none_stream", captured: true,
			req: &chat.Request{
				Messages: append(askParis[:1:1],
					chat.AssistantMessage("", call("call_abc123", "get_weather", `{"city":"Paris","unit":"celsius","options":{"days":1,"detail":{"wind":true}}}`)),
					chat.ToolMessage(call("call_abc123", "get_weather", ""), `{"temperature":21,"condition":"sunny"}`)),
				Tools:      []chat.ToolDefinition{weatherTool},
				ToolChoice: chat.ToolChoice{Mode: chat.ToolChoiceNone},
				Options:    chat.Options{MaxTokens: ptr(300)},
			},
			deltas: []chat.Delta{text("The"), text(" weather"), text(" is"), text(" warm"), text(".")},
			want: &chat.Response{
				Message:      chat.AssistantMessage("The weather is warm."),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 358, CompletionTokens: 6, TotalTokens: 364, CacheReadTokens: 357},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "ollama v1 tool call in one chunk", recording: "ollama-v1/d_tools_stream", captured: true,
			cfg:    openai.Config{Model: "tiny-toolcaller"},
			req:    &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{shortWeatherTool}},
			deltas: []chat.Delta{callDelta(0, "call_vueq4ugy", "get_weather", `{"city":"Paris"}`)},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_vueq4ugy", "get_weather", `{"city":"Paris"}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 156, CompletionTokens: 5, TotalTokens: 161},
				Model:        "tiny-toolcaller",
			},
		},
		{
			name: "interleaved calls", recording: "h_stream_interleaved",
			req: &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{shortWeatherTool}},
			deltas: []chat.Delta{
				text("Checking both."),
				callDelta(0, "call_paris", "get_weather", ""),
				callDelta(1, "call_lyon", "get_weather", ""),
				callDelta(0, "", "", `{"city":`),
				callDelta(1, "", "", `{"city":`),
				callDelta(1, "", "", `"Lyon"}`),
				callDelta(0, "", "", `"Paris"}`),
			},
			want: &chat.Response{
				Message: chat.AssistantMessage("Checking both.",
					call("call_paris", "get_weather", `{"city":"Paris"}`),
					call("call_lyon", "get_weather", `{"city":"Lyon"}`)),
				FinishReason: chat.FinishToolCalls,
				Usage:        chat.Usage{PromptTokens: 120, CompletionTokens: 40, TotalTokens: 160},
				Model:        "gpt-4o-mini-2024-07-18",
			},
		},
		{
			// No ids at all, "null" placeholders in continuations, and a
			// no-parameter tool with "" arguments.
			name: "missing ids", recording: "h_stream_missing_ids",
			req: &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{nowTool, shortWeatherTool}},
			deltas: []chat.Delta{
				callDelta(0, "", "now", ""),
				callDelta(1, "", "get_weather", `{"city"`),
				callDelta(1, "", "", `:"Paris"}`),
			},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_0", "now", `{}`), call("call_1", "get_weather", `{"city":"Paris"}`)),
				FinishReason: chat.FinishToolCalls,
				Model:        "gpt-4o-mini-2024-07-18",
			},
		},
		{
			name: "parallel calls at one index", recording: "h_stream_same_index",
			req: &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{shortWeatherTool}},
			deltas: []chat.Delta{
				callDelta(0, "call_a", "get_weather", `{"city":"Paris"}`),
				callDelta(1, "call_b", "get_weather", `{"city":"Lyon"}`),
			},
			want: &chat.Response{
				Message: chat.AssistantMessage("",
					call("call_a", "get_weather", `{"city":"Paris"}`), call("call_b", "get_weather", `{"city":"Lyon"}`)),
				FinishReason: chat.FinishToolCalls,
				Model:        "gpt-4o-mini-2024-07-18",
			},
		},
		{
			// Also: a comment line, and no [DONE] after the finish_reason.
			name: "arguments as an object", recording: "h_stream_object_arguments",
			req:    &chat.Request{Messages: askParis, Tools: []chat.ToolDefinition{shortWeatherTool}},
			deltas: []chat.Delta{callDelta(0, "call_obj", "get_weather", `{"city":"Paris"}`)},
			want: &chat.Response{
				Message:      chat.AssistantMessage("", call("call_obj", "get_weather", `{"city":"Paris"}`)),
				FinishReason: chat.FinishToolCalls,
				Model:        "gpt-4o-mini-2024-07-18",
			},
		},
		{
			name: "server answers with plain JSON", recording: "h_stream_plain_json",
			req:    &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
			deltas: []chat.Delta{text("Hello! How can I help you?")},
			want: &chat.Response{
				Message:      chat.AssistantMessage("Hello! How can I help you?"),
				FinishReason: chat.FinishStop,
				Usage:        chat.Usage{PromptTokens: 19, CompletionTokens: 9, TotalTokens: 28},
				Model:        "compat-model",
			},
		},
		{
			name: "cut off mid-event", recording: "h_stream_truncated",
			req:     &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
			deltas:  []chat.Delta{text("Hello"), text(" wor")},
			wantErr: chat.ErrBadResponse, wantMsg: "stream ended in the middle of an event",
		},
		{
			name: "error event", recording: "h_stream_error_event",
			req:     &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
			deltas:  []chat.Delta{text("Hello")},
			wantErr: chat.ErrServer, wantMsg: "The server had an error while processing your request.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recording)
			m := newModel(srv, tc.cfg)

			var deltas []chat.Delta
			resp, err := m.Stream(context.Background(), tc.req, func(d chat.Delta) bool {
				deltas = append(deltas, d)
				return true
			})

			sent := got.Get(t, 0).Body
			providertest.CheckGolden(t, "stream_"+providertest.Slug(tc.name), sent, *update)
			if tc.captured {
				checkCaptured(t, tc.recording, sent)
			}
			if tc.deltas != nil {
				assert.Equal(t, tc.deltas, deltas)
			}
			if tc.firstDelta != nil && assert.NotEmpty(t, deltas) {
				assert.Equal(t, *tc.firstDelta, deltas[0])
			}
			if tc.wantErr != nil {
				assert.Nil(t, resp)
				pe := checkProviderError(t, err, tc.wantErr, 200, "tiny")
				assert.Contains(t, pe.Message, tc.wantMsg)
				return
			}
			require.NoError(t, err)
			want := *tc.want
			want.Attempts = 1 // one request: nothing was retried
			assert.Equal(t, &want, resp)
			checkDeltasMatchReply(t, deltas, resp)
		})
	}
}

// checkDeltasMatchReply checks that a consumer that joins the deltas (text
// appended; per call index: first id, first name, arguments appended) gets
// the reply, up to what the reply normalises: synthesised ids and "{}" for
// empty arguments.
func checkDeltasMatchReply(t testing.TB, deltas []chat.Delta, resp *chat.Response) {
	t.Helper()
	var content strings.Builder
	var calls []chat.ToolCallDelta
	for _, d := range deltas {
		content.WriteString(d.Content)
		if d.ToolCall == nil {
			continue
		}
		c := d.ToolCall
		if c.Index < 0 || c.Index > len(calls) {
			t.Fatalf("delta index %d skips ahead of the %d calls so far", c.Index, len(calls))
		}
		if c.Index == len(calls) {
			calls = append(calls, chat.ToolCallDelta{Index: c.Index})
		}
		p := &calls[c.Index]
		if c.ID != "" {
			if p.ID != "" {
				t.Fatalf("call %d: id sent twice (%q, %q)", c.Index, p.ID, c.ID)
			}
			p.ID = c.ID
		}
		if c.Name != "" {
			if p.Name != "" {
				t.Fatalf("call %d: name sent twice (%q, %q)", c.Index, p.Name, c.Name)
			}
			p.Name = c.Name
		}
		p.Arguments += c.Arguments
	}
	if content.String() != resp.Message.Content {
		t.Fatalf("streamed text %q, reply text %q", content.String(), resp.Message.Content)
	}
	if len(calls) != len(resp.Message.ToolCalls) {
		t.Fatalf("streamed %d calls, reply has %d", len(calls), len(resp.Message.ToolCalls))
	}
	for i, d := range calls {
		c := resp.Message.ToolCalls[i]
		if d.Name != c.Name || d.ID != "" && d.ID != c.ID && !strings.HasPrefix(c.ID, d.ID+"_") {
			t.Fatalf("streamed call %d = %+v, reply call = %+v", i, d, c)
		}
		args := d.Arguments
		if s := strings.TrimSpace(args); s == "" || s == "null" {
			args = "{}"
		}
		if args != string(c.Arguments) {
			t.Fatalf("call %d: streamed arguments %q, reply arguments %q", i, args, c.Arguments)
		}
	}
}

// eventDeltas is the number of deltas an event of a recording carries: one
// per text piece and one per tool-call fragment.
func eventDeltas(t testing.TB, ev []byte) int {
	t.Helper()
	data, ok := bytes.CutPrefix(bytes.TrimSpace(ev), []byte("data: "))
	if !ok || string(data) == "[DONE]" {
		return 0
	}
	var chunk struct {
		Choices []struct {
			Delta struct {
				Content   string            `json:"content"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	require.NoError(t, json.Unmarshal(data, &chunk))
	n := 0
	for _, c := range chunk.Choices {
		if c.Delta.Content != "" {
			n++
		}
		n += len(c.Delta.ToolCalls)
	}
	return n
}

// streamServer writes the events of a recording one at a time: before each
// event it waits until next has received one value per delta of the
// previous event (with a nil next it writes them all at once). After the
// events it holds the response open until the client goes away. done is
// closed when the handler returns; written counts the events written.
func streamServer(t *testing.T, name string, next <-chan struct{}, written *atomic.Int32) (srv *httptest.Server, done <-chan struct{}) {
	t.Helper()
	rec := providertest.LoadRecording(t, name)
	events := bytes.SplitAfter(rec.Body, []byte("\n\n"))
	if len(events[len(events)-1]) == 0 {
		events = events[:len(events)-1]
	}
	finished := make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(finished)
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a client that goes away only once the body is read
		w.Header().Set("Content-Type", rec.ContentType)
		w.WriteHeader(rec.Status)
		for i, ev := range events {
			for n := 0; next != nil && i > 0 && n < eventDeltas(t, events[i-1]); n++ {
				select {
				case <-next:
				case <-r.Context().Done():
					return
				}
			}
			if written != nil {
				written.Add(1) // before the write, so the client cannot see the event first
			}
			_, _ = w.Write(ev)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, finished
}

// TestStreamEventByEvent checks that each delta reaches the caller as soon
// as its event arrives: the server writes an event only after the caller
// has received the deltas of the previous one.
func TestStreamEventByEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		recording string
		tools     []chat.ToolDefinition
	}{
		{recording: "llamacpp/e4_loop_none_stream"},
		{recording: "llamacpp/d_tools_required_stream", tools: []chat.ToolDefinition{weatherTool}},
		{recording: "h_stream_interleaved", tools: []chat.ToolDefinition{shortWeatherTool}},
	} {
		t.Run(tc.recording, func(t *testing.T) {
			t.Parallel()
			// deltaEvent[k] is the event (1-based) that carries delta k.
			var deltaEvent []int32
			for i, ev := range bytes.SplitAfter(providertest.LoadRecording(t, tc.recording).Body, []byte("\n\n")) {
				for range eventDeltas(t, ev) {
					deltaEvent = append(deltaEvent, int32(i+1))
				}
			}
			next := make(chan struct{})
			var written atomic.Int32
			srv, _ := streamServer(t, tc.recording, next, &written)
			m := newModel(srv, openai.Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			var deltas []chat.Delta
			resp, err := m.Stream(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}, Tools: tc.tools},
				func(d chat.Delta) bool {
					k := len(deltas)
					deltas = append(deltas, d)
					if assert.Less(t, k, len(deltaEvent), "more deltas than the recording carries") {
						assert.Equal(t, deltaEvent[k], written.Load(), "delta %d yielded before its event was the last written", k)
					}
					select {
					case next <- struct{}{}:
					case <-ctx.Done():
					}
					return true
				})

			require.NoError(t, err)
			assert.Len(t, deltas, len(deltaEvent))
			checkDeltasMatchReply(t, deltas, resp)
		})
	}
}

// TestStreamCancel cancels the context while Stream waits for an event the
// server never sends: Stream returns at once, closes the connection and
// leaves no goroutine behind (goleak checks in TestMain).
func TestStreamCancel(t *testing.T) {
	t.Parallel()
	srv, handlerDone := streamServer(t, "h_stream_interleaved", make(chan struct{}), nil) // stalls after the first event
	m := newModel(srv, openai.Config{})
	// The deadline is a backstop: if no delta ever arrives, the test fails
	// (the error is DeadlineExceeded, not Canceled) instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var cancelled time.Time
	resp, err := m.Stream(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi there")}},
		func(d chat.Delta) bool {
			cancelled = time.Now()
			cancel() // Stream is about to wait for an event that never comes
			return true
		})

	assert.Nil(t, resp)
	checkProviderError(t, err, context.Canceled, 200, "tiny")
	assert.Less(t, time.Since(cancelled), 2*time.Second, "Stream must return promptly")
	select {
	case <-handlerDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not closed")
	}
}

// TestChatCancel cancels the context while the server holds the request.
func TestChatCancel(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	handlerDone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a client that goes away only once the body is read
		close(arrived)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	m := newModel(srv, openai.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelledAt := make(chan time.Time, 1)
	go func() {
		<-arrived
		cancelledAt <- time.Now()
		cancel()
	}()

	resp, err := m.Chat(ctx, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}})

	assert.Nil(t, resp)
	checkProviderError(t, err, context.Canceled, 0, "tiny")
	assert.Less(t, time.Since(<-cancelledAt), 2*time.Second, "Chat must return promptly")
	<-handlerDone
}

func TestStreamStoppedByConsumer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		recording string
	}{
		{name: "on text", recording: "llamacpp/d2_plain_stream"},
		{name: "on a tool call fragment", recording: "llamacpp/d_tools_required_stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, handlerDone := streamServer(t, tc.recording, nil, nil) // writes all, then holds the response open
			m := newModel(srv, openai.Config{})

			calls := 0
			resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}},
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

// TestStreamNilYield: a nil yield is allowed; the reply still comes back.
func TestStreamNilYield(t *testing.T) {
	t.Parallel()
	srv, _ := replay(t, "llamacpp/d_tools_required_stream")
	resp, err := newModel(srv, openai.Config{}).Stream(context.Background(),
		&chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}, nil)
	require.NoError(t, err)
	require.Len(t, resp.Message.ToolCalls, 1)
	assert.JSONEq(t, `{"city":"Paris","unit":"fahrenheit","options":{"days":5,"detail":{"wind":false}}}`, string(resp.Message.ToolCalls[0].Arguments))
}

// TestStreamLongEvent: an event longer than the read buffer arrives whole.
func TestStreamLongEvent(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40000) // 200 KB, several buffer fills
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + long + "\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	m := openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", Model: "tiny",
		HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: "text/event-stream", body: []byte(body)}}})

	resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, nil)

	require.NoError(t, err)
	assert.Equal(t, long, resp.Message.Content)
}
