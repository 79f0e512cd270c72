package ollama_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// A loopReply is one scripted answer of the server of TestLoopBadServer.
type loopReply struct {
	status      int // 0 means 200
	header      map[string]string
	contentType string // "" means application/json
	body        string
	// cut closes the connection after body, in the middle of the response.
	cut bool
}

// loopServer answers the n-th POST to chatPath with the n-th reply (the last
// one again once they run out).
func loopServer(t *testing.T, replies ...loopReply) (*httptest.Server, *providertest.Capture) {
	t.Helper()
	return providertest.Serve(t, chatPath, func(w http.ResponseWriter, r *http.Request, i int) {
		rp := replies[min(i, len(replies)-1)]
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", cmp.Or(rp.contentType, "application/json"))
		w.WriteHeader(cmp.Or(rp.status, http.StatusOK))
		_, _ = io.WriteString(w, rp.body)
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

// toolCallLine is a /api/chat reply, or stream line, calling one tool.
// args is the JSON value sent as "arguments".
func toolCallLine(id, name, args string, done bool) string {
	b, _ := json.Marshal(map[string]any{
		"model": "tiny-toolcaller", "created_at": "2026-11-22T11:42:05Z", "done": done, "done_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
			map[string]any{"id": id, "function": map[string]any{"index": 0, "name": name, "arguments": json.RawMessage(args)}},
		}},
	})
	return string(b) + "\n"
}

// textLine is a stream line carrying text.
func textLine(text string) string {
	b, _ := json.Marshal(map[string]any{
		"model": "tiny-toolcaller", "created_at": "2026-11-22T11:42:05Z", "done": false,
		"message": map[string]any{"role": "assistant", "content": text},
	})
	return string(b) + "\n"
}

const doneLine = `{"model":"tiny-toolcaller","created_at":"2026-11-22T11:42:06Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":5}` + "\n"

// TestLoopBadServer runs the client's whole loop, Call and Stream, against
// a server whose first reply asks for two tool calls (without ids, as an
// older server sends them) and whose second reply fails in some way. A
// failure must come back as the exact error, with the response so far:
// the first round's executions and a history valid to send again. A call
// the model gets wrong is reported to the model, which answers in a third
// round.
//
// Ollama takes no API key (Config has no key nor header field), so unlike
// the openai test there is no key to look for in errors and hook data.
func TestLoopBadServer(t *testing.T) {
	t.Parallel()
	const model = `ollama: HTTP %d: model "tiny-toolcaller": `
	cutLine := `{"model":"tiny-toolcaller","created_at":"2026-11-22T11:42:05Z","message":{"role":"assistant","content":"The wea`
	for _, tc := range []struct {
		name string
		// The second reply, for Call and for Stream (nil: the same as for
		// Call); a nil chat makes the row stream-only.
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
			name:     "401 from an auth proxy",
			chat:     &loopReply{status: 401, body: `{"error":{"message":"missing bearer token"}}`},
			wantErr:  fmt.Sprintf(model, 401) + "unauthorized: missing bearer token",
			sentinel: chat.ErrUnauthorized, status: 401,
		},
		{
			name:     "404 model not found",
			chat:     &loopReply{status: 404, body: `{"error":"model 'tiny-toolcaller' not found"}`},
			wantErr:  fmt.Sprintf(model, 404) + "model not found: model 'tiny-toolcaller' not found; download it with `ollama pull tiny-toolcaller`",
			sentinel: chat.ErrModelNotFound, status: 404,
		},
		{
			name:     "429 with Retry-After",
			chat:     &loopReply{status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"error":"too many requests"}`},
			wantErr:  fmt.Sprintf(model, 429) + "rate limited: too many requests (retry after 7s)",
			sentinel: chat.ErrRateLimited, status: 429, retryAfter: 7 * time.Second,
		},
		{
			name:     "500",
			chat:     &loopReply{status: 500, body: `{"error":"llama runner process has terminated: signal: killed"}`},
			wantErr:  fmt.Sprintf(model, 500) + "server error: llama runner process has terminated: signal: killed",
			sentinel: chat.ErrServer, status: 500,
		},
		{
			name:     "503 HTML page",
			chat:     &loopReply{status: 503, contentType: "text/html", body: "<html><body><h1>503 Service Temporarily Unavailable</h1><hr><center>nginx</center></body></html>"},
			wantErr:  fmt.Sprintf(model, 503) + "server error: Service Unavailable",
			sentinel: chat.ErrServer, status: 503,
		},
		{
			name:     "200 error object",
			chat:     &loopReply{body: `{"error":"an error was encountered while running the model: unexpected EOF"}`},
			wantErr:  fmt.Sprintf(model, 200) + "server error: an error was encountered while running the model: unexpected EOF",
			sentinel: chat.ErrServer, status: 200,
		},
		{
			name:      "malformed JSON body",
			chat:      &loopReply{body: cutLine},
			wantErr:   fmt.Sprintf(model, 200) + "malformed response: response is not valid JSON: unexpected end of JSON input (at byte 111)",
			streamErr: fmt.Sprintf(model, 200) + "malformed response: stream line is not valid JSON: unexpected end of JSON input (at byte 111)",
			sentinel:  chat.ErrBadResponse, status: 200,
		},
		{
			name:      "empty 200 body",
			chat:      &loopReply{},
			wantErr:   fmt.Sprintf(model, 200) + "malformed response: response is not valid JSON: unexpected end of JSON input (at byte 0)",
			streamErr: fmt.Sprintf(model, 200) + `malformed response: stream ended without a "done": true line`,
			sentinel:  chat.ErrBadResponse, status: 200,
		},
		{
			name:     "stream without a done line",
			stream:   &loopReply{contentType: "application/x-ndjson", body: textLine("The weather") + textLine(" is")},
			wantErr:  fmt.Sprintf(model, 200) + `malformed response: stream ended without a "done": true line`,
			sentinel: chat.ErrBadResponse, status: 200,
		},
		{
			name:     "stream cut mid-line",
			stream:   &loopReply{contentType: "application/x-ndjson", body: textLine("The weather") + cutLine},
			wantErr:  fmt.Sprintf(model, 200) + "malformed response: stream line is not valid JSON: unexpected end of JSON input (at byte 111)",
			sentinel: chat.ErrBadResponse, status: 200,
		},
		{
			name: "stream with a malformed line",
			stream: &loopReply{contentType: "application/x-ndjson",
				body: textLine("The weather") + `{"model":"tiny-toolcaller","message":{"content":" is"]}` + "\n" + doneLine},
			wantErr:  fmt.Sprintf(model, 200) + "malformed response: stream line is not valid JSON: invalid character ']' after object key:value pair (at byte 54)",
			sentinel: chat.ErrBadResponse, status: 200,
		},
		{
			name:      "connection closed mid-body",
			chat:      &loopReply{body: cutLine, cut: true},
			stream:    &loopReply{contentType: "application/x-ndjson", body: textLine("The weather") + cutLine, cut: true},
			wantErr:   fmt.Sprintf(model, 200) + "malformed response: response body cut off: unexpected EOF",
			streamErr: fmt.Sprintf(model, 200) + "malformed response: stream cut off: unexpected EOF",
			sentinel:  chat.ErrBadResponse, status: 200,
		},
		{
			name:        "call to a tool not offered",
			chat:        &loopReply{body: toolCallLine("call_rm", "delete_everything", `{"confirm":true}`, true)},
			stream:      &loopReply{contentType: "application/x-ndjson", body: toolCallLine("call_rm", "delete_everything", `{"confirm":true}`, false) + doneLine},
			wantToolMsg: `tool "delete_everything" does not exist; available tools: get_weather`,
			wantCause:   toolcall.ErrToolNotFound,
		},
		{
			// Arguments a server sends as a string holding broken JSON.
			name:        "arguments that are not JSON",
			chat:        &loopReply{body: toolCallLine("call_rm", "get_weather", `"{\"city\":\"Par"`, true)},
			stream:      &loopReply{contentType: "application/x-ndjson", body: toolCallLine("call_rm", "get_weather", `"{\"city\":\"Par"`, false) + doneLine},
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
				first, last, answer := recordingReply(t, "h_tools_no_id"), recordingReply(t, "e_loop"), "The weather is warm."
				if stream {
					first, last, answer = recordingReply(t, "h_stream_tools_no_id"), recordingReply(t, "d_plain_stream"), "Hello! How can I help you?"
				}
				srv, got := loopServer(t, first, *second, last)
				var runs atomic.Int32
				weather, err := toolcall.NewTool(weatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
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
				client := toolcall.NewClient(newModel(srv, ollama.Config{MaxRetries: ollama.NoRetries}), toolcall.WithHooks(log.Hooks()))
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

				// Nothing of the first round is lost.
				require.NotNil(t, resp, "the response comes with the error")
				require.GreaterOrEqual(t, len(resp.Executions), 2)
				for i, city := range []string{"Paris", "Lyon"} {
					e := resp.Executions[i]
					assert.Equal(t, fmt.Sprintf("call_%d", i), e.Call.ID, "the id synthesised for a call without one")
					assert.Equal(t, "get_weather", e.Call.Name)
					assert.Equal(t, "sunny in "+city, e.Result)
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
					want := tc.wantErr
					if stream {
						want = cmp.Or(tc.streamErr, tc.wantErr)
					}
					require.EqualError(t, err, want)
					require.ErrorIs(t, err, tc.sentinel)
					providertest.CheckFailedSecondRound(t, resp, err, &log, "ollama", "tiny-toolcaller", tc.status, tc.retryAfter)
					assert.NotContains(t, err.Error(), "<html>")
					assert.NotContains(t, log.String(), "<html>", "no raw body in what the hooks saw")
					assert.Equal(t, 2, got.Count(), "no retry, no third request")
					return
				}

				// The model got the call wrong, was told, and answered.
				require.NoError(t, err)
				assert.Equal(t, answer, resp.Content())
				assert.Equal(t, 3, resp.Rounds)
				assert.Equal(t, 3, got.Count())
				providertest.CheckReportedBadCall(t, resp, tc.wantToolMsg, tc.wantCause)
				bad := resp.Executions[2]

				// The third request tells the model.
				var sent struct {
					Messages []struct {
						Role       string `json:"role"`
						Content    string `json:"content"`
						ToolCallID string `json:"tool_call_id"`
						ToolName   string `json:"tool_name"`
					} `json:"messages"`
				}
				require.NoError(t, json.Unmarshal(got.Get(t, 2).Body, &sent))
				require.Len(t, sent.Messages, 6)
				told := sent.Messages[5]
				assert.Equal(t, "tool", told.Role)
				assert.Equal(t, "call_rm", told.ToolCallID)
				assert.Equal(t, bad.Call.Name, told.ToolName)
				assert.Equal(t, tc.wantToolMsg, told.Content)
			})
		}
	}
}
