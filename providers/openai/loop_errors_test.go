package openai_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// loopKey is the API key of TestLoopBadServer. Error bodies echo it
// ({{key}}) or the Authorization header ({{auth}}); it must show in no
// error and in nothing the hooks see.
const loopKey = "sk-test-SECRET-123"

// A loopReply is one scripted answer of the server of TestLoopBadServer.
type loopReply struct {
	status      int // 0 means 200
	header      map[string]string
	contentType string // "" means application/json
	body        string
	// cut closes the connection after body, in the middle of the response.
	cut bool
}

// loopServer answers the n-th POST to chatPath with the n-th reply (the
// last one again once they run out).
func loopServer(t *testing.T, replies ...loopReply) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	return providertest.Serve(t, chatPath, func(w http.ResponseWriter, r *http.Request, i int) {
		rp := replies[min(i, len(replies)-1)]
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", cmp.Or(rp.contentType, "application/json"))
		w.WriteHeader(cmp.Or(rp.status, http.StatusOK))
		auth := r.Header.Get("Authorization")
		body := strings.ReplaceAll(rp.body, "{{auth}}", auth)
		body = strings.ReplaceAll(body, "{{key}}", strings.TrimPrefix(auth, "Bearer "))
		_, _ = io.WriteString(w, body)
		if rp.cut {
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the server drops the connection mid-body
		}
	})
}

// recordingReply serves a recording from testdata.
func recordingReply(t *testing.T, name string) loopReply {
	rec := providertest.LoadRecording(t, name)
	return loopReply{status: rec.Status, contentType: rec.ContentType, body: string(rec.Body)}
}

// chatToolCallReply is a non-streamed reply calling one tool.
func chatToolCallReply(id, name, args string) loopReply {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-r2", "object": "chat.completion", "model": "gpt-4o-mini",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
				map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}},
			}},
		}},
	})
	return loopReply{body: string(b)}
}

// sseEvent is one data line of a Chat Completions stream.
func sseEvent(delta map[string]any, finish any) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-r2", "object": "chat.completion.chunk", "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	return "data: " + string(b) + "\n\n"
}

// streamToolCallReply is a streamed reply calling one tool, the arguments
// in one fragment.
func streamToolCallReply(id, name, args string) loopReply {
	return loopReply{contentType: "text/event-stream", body: sseEvent(map[string]any{"role": "assistant", "tool_calls": []any{
		map[string]any{"index": 0, "id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}},
	}}, nil) + sseEvent(map[string]any{}, "tool_calls") + "data: [DONE]\n\n"}
}

// requireNoKeyIn fails if loopKey shows in s, quoting where.
func requireNoKeyIn(t *testing.T, what, s string) {
	t.Helper()
	if i := strings.Index(s, loopKey); i >= 0 {
		t.Fatalf("the API key shows in %s: ...%s...", what, s[max(0, i-100):min(len(s), i+len(loopKey)+20)])
	}
}

// requireNoLoopKey fails if loopKey shows in err: its message, its %+v and
// %#v forms, or those of any error it wraps.
func requireNoLoopKey(t *testing.T, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, s := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
			requireNoKeyIn(t, fmt.Sprintf("the error (%T)", e), s)
		}
	}
}

// TestLoopBadServer runs the client's whole loop, Call and Stream, against
// a server whose first reply asks for two parallel tool calls and whose
// second reply fails in some way. A failure must come back as the exact
// error, with the response so far: the first round's executions and a
// history valid to send again. A call the model gets wrong is reported to
// the model, which answers in a third round. The API key shows in no
// error and in nothing the hooks see.
func TestLoopBadServer(t *testing.T) {
	t.Parallel()
	const model = `openai: HTTP %d: model "gpt-4o-mini": `
	textEvent := sseEvent(map[string]any{"role": "assistant", "content": "The weather"}, nil)
	for _, tc := range []struct {
		name string
		// The second reply, for Call and for Stream; a nil one skips the
		// mode (a stream-only failure).
		chat, stream *loopReply
		wantErr      string // the exact error of Call
		streamErr    string // the exact error of Stream, when it differs
		sentinel     error  // wrapped by the *chat.ProviderError
		status       int    // the ProviderError's StatusCode
		retryAfter   time.Duration

		// Rows without an error: the second reply calls a tool badly, the
		// model is told wantToolMsg, and the third reply answers.
		wantToolMsg string
		wantCause   error // what the call's *ToolError wraps
	}{
		{
			name:     "401 echoing the key",
			chat:     &loopReply{status: 401, body: `{"error":{"message":"Incorrect API key provided: {{key}}. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
			wantErr:  fmt.Sprintf(model, 401) + "unauthorized: Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.",
			sentinel: chat.ErrUnauthorized, status: 401,
		},
		{
			name:     "404 model not found",
			chat:     &loopReply{status: 404, body: "{\"error\":{\"message\":\"The model `gpt-4o-mini` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}"},
			wantErr:  fmt.Sprintf(model, 404) + "model not found: The model `gpt-4o-mini` does not exist or you do not have access to it.",
			sentinel: chat.ErrModelNotFound, status: 404,
		},
		{
			name: "429 with Retry-After",
			chat: &loopReply{status: 429, header: map[string]string{"Retry-After": "20"},
				body: `{"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
			wantErr:  fmt.Sprintf(model, 429) + "rate limited: Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1. (retry after 20s)",
			sentinel: chat.ErrRateLimited, status: 429, retryAfter: 20 * time.Second,
		},
		{
			name:     "500",
			chat:     &loopReply{status: 500, body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`},
			wantErr:  fmt.Sprintf(model, 500) + "server error: The server had an error while processing your request. Sorry about that!",
			sentinel: chat.ErrServer, status: 500,
		},
		{
			// The page is not quoted, and with it the header it echoes.
			name:     "503 HTML page echoing the header",
			chat:     &loopReply{status: 503, contentType: "text/html", body: "<html><body><h1>503 Service Temporarily Unavailable</h1><pre>{{auth}}</pre></body></html>"},
			wantErr:  fmt.Sprintf(model, 503) + "server error: Service Unavailable",
			sentinel: chat.ErrServer, status: 503,
		},
		{
			name:     "200 error object echoing the header",
			chat:     &loopReply{body: `{"error":{"message":"upstream timed out for {{auth}}","type":"server_error"}}`},
			wantErr:  fmt.Sprintf(model, 200) + "server error: upstream timed out for Bearer [redacted]",
			sentinel: chat.ErrServer, status: 200,
		},
		{
			name:      "malformed JSON body",
			chat:      &loopReply{body: `{"id":"chatcmpl-r2","choices":[{"index":0,"message":{"role":"assistant","content":"The wea`},
			wantErr:   fmt.Sprintf(model, 200) + "malformed response: response is not valid JSON: unexpected end of JSON input (at byte 90)",
			streamErr: fmt.Sprintf(model, 200) + "malformed response: stream ended in the middle of an event",
			sentinel:  chat.ErrBadResponse, status: 200,
		},
		{
			name:      "empty 200 body",
			chat:      &loopReply{},
			wantErr:   fmt.Sprintf(model, 200) + "malformed response: response is not valid JSON: unexpected end of JSON input (at byte 0)",
			streamErr: fmt.Sprintf(model, 200) + "malformed response: stream ended before the reply was complete (no finish_reason, no [DONE])",
			sentinel:  chat.ErrBadResponse, status: 200,
		},
		{
			name:     "stream without [DONE] or finish_reason",
			stream:   &loopReply{contentType: "text/event-stream", body: textEvent},
			wantErr:  fmt.Sprintf(model, 200) + "malformed response: stream ended before the reply was complete (no finish_reason, no [DONE])",
			sentinel: chat.ErrBadResponse, status: 200,
		},
		{
			name:     "stream with a malformed event",
			stream:   &loopReply{contentType: "text/event-stream", body: textEvent + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" is\"}]}\n\n" + "data: [DONE]\n\n"},
			wantErr:  fmt.Sprintf(model, 200) + "malformed response: stream event is not valid JSON: invalid character ']' after object key:value pair (at byte 49)",
			sentinel: chat.ErrBadResponse, status: 200,
		},
		{
			name:      "connection closed mid-body",
			chat:      &loopReply{body: `{"id":"chatcmpl-r2","choices":[{"index":0,"message":{"role":"assistant","content":"The wea`, cut: true},
			stream:    &loopReply{contentType: "text/event-stream", body: textEvent + `data: {"id":"chatcmpl-r2","choi`, cut: true},
			wantErr:   fmt.Sprintf(model, 200) + "malformed response: response body cut off: unexpected EOF",
			streamErr: fmt.Sprintf(model, 200) + "malformed response: stream cut off: unexpected EOF",
			sentinel:  chat.ErrBadResponse, status: 200,
		},
		{
			name:        "call to a tool not offered",
			chat:        ptr(chatToolCallReply("call_rm", "delete_everything", `{"confirm":true}`)),
			stream:      ptr(streamToolCallReply("call_rm", "delete_everything", `{"confirm":true}`)),
			wantToolMsg: `tool "delete_everything" does not exist; available tools: get_weather`,
			wantCause:   toolcall.ErrToolNotFound,
		},
		{
			name:        "arguments that are not JSON",
			chat:        ptr(chatToolCallReply("call_rm", "get_weather", `{"city":"Par`)),
			stream:      ptr(streamToolCallReply("call_rm", "get_weather", `{"city":"Par`)),
			wantToolMsg: `invalid arguments for tool "get_weather": city: arguments are not valid JSON: unexpected end of input`,
		},
	} {
		for _, mode := range []string{"call", "stream"} {
			second := tc.chat
			if mode == "stream" && tc.stream != nil {
				second = tc.stream
			}
			if second == nil {
				continue
			}
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				stream := mode == "stream"
				first, last := recordingReply(t, "h_parallel_calls"), recordingReply(t, "llamacpp/e_loop_none")
				if stream {
					first, last = recordingReply(t, "h_stream_interleaved"), recordingReply(t, "llamacpp/e4_loop_none_stream")
				}
				srv, got := loopServer(t, first, *second, last)
				var runs atomic.Int32
				weather, err := toolcall.NewTool(shortWeatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
					runs.Add(1)
					var in struct{ City string }
					if err := json.Unmarshal(args, &in); err != nil {
						return "", err
					}
					return "sunny in " + in.City, nil
				})
				require.NoError(t, err)
				var log providertest.HookLog
				// Retries off: the failure must reach the loop as the server sent it.
				client := toolcall.NewClient(newModel(srv, openai.Config{APIKey: loopKey, Model: "gpt-4o-mini", MaxRetries: openai.NoRetries}),
					toolcall.WithHooks(log.Hooks()))
				prompt := client.Prompt("What is the weather in Paris and Lyon?").Tools(weather)

				var resp *toolcall.Response
				results := 0 // EventToolResult events
				if stream {
					for ev, e := range prompt.Stream(context.Background()) {
						switch {
						case e != nil: // the last event
							resp, err = ev.Response, e
						case ev.Kind == toolcall.EventToolResult:
							results++
						case ev.Kind == toolcall.EventDone:
							resp = ev.Response
						}
					}
				} else {
					resp, err = prompt.Call(context.Background())
				}

				// The key was sent, and shows nowhere else.
				assert.Equal(t, "Bearer "+loopKey, got.Get(t, 0).Header.Get("Authorization"))
				requireNoLoopKey(t, err)
				requireNoKeyIn(t, "what the hooks saw", log.String())

				// Nothing of the first round is lost.
				require.NotNil(t, resp, "the response comes with the error")
				require.GreaterOrEqual(t, len(resp.Executions), 2)
				for i, want := range []struct{ id, city string }{{"call_paris", "Paris"}, {"call_lyon", "Lyon"}} {
					e := resp.Executions[i]
					assert.Equal(t, want.id, e.Call.ID)
					assert.Equal(t, "get_weather", e.Call.Name)
					assert.Equal(t, "sunny in "+want.city, e.Result)
					assert.False(t, e.IsError)
					assert.NoError(t, e.Err)
					assert.Equal(t, 1, e.Round)
				}
				require.NoError(t, toolcalltest.CheckHistory(resp.History))
				assert.Equal(t, int32(2), runs.Load(), "the tool ran for the first round's calls only")
				if stream {
					assert.Equal(t, len(resp.Executions), results, "an EventToolResult per execution")
				}

				if tc.wantToolMsg == "" {
					want := cmp.Or(tc.streamErr, tc.wantErr)
					if !stream {
						want = tc.wantErr
					}
					require.EqualError(t, err, want)
					require.ErrorIs(t, err, tc.sentinel)
					providertest.CheckFailedSecondRound(t, resp, err, &log, "openai", "gpt-4o-mini", tc.status, tc.retryAfter)
					assert.Equal(t, 2, got.Count(), "no retry, no third request")
					if strings.Contains(want, "[redacted]") {
						assert.Contains(t, log.String(), "[redacted]", "the hooks saw the redacted echo")
					}
					return
				}

				// The model got the call wrong, was told, and answered.
				require.NoError(t, err)
				assert.Equal(t, "The weather is warm.", resp.Content())
				assert.Equal(t, 3, resp.Rounds)
				assert.Equal(t, 3, got.Count())
				providertest.CheckReportedBadCall(t, resp, tc.wantToolMsg, tc.wantCause)

				// The third request tells the model.
				var sent struct {
					Messages []struct {
						Role       string `json:"role"`
						Content    string `json:"content"`
						ToolCallID string `json:"tool_call_id"`
					} `json:"messages"`
				}
				require.NoError(t, json.Unmarshal(got.Get(t, 2).Body, &sent))
				require.Len(t, sent.Messages, 6)
				told := sent.Messages[5]
				assert.Equal(t, "tool", told.Role)
				assert.Equal(t, "call_rm", told.ToolCallID)
				assert.Equal(t, tc.wantToolMsg, told.Content)
			})
		}
	}
}
