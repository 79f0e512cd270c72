package openairesponses_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// cloudFixtures are the recordings of api.openai.com's Responses API in
// testdata/cloud/openai-responses, every one checked by
// TestCloudRecordings.
var cloudFixtures = []string{
	"error_400_invalid_temperature",
	"error_400_model_not_found",
	"error_400_reasoning_without_following_item",
	"error_400_unsupported_values",
	"failed_function_call_output",
	"function_call_no_item_ids",
	"function_call_then_answer",
	"function_call_then_output_tool",
	"incomplete_max_output_tokens",
	"parallel_function_calls",
	"reasoning_function_call",
	"reasoning_function_call_gpt_5",
	"reasoning_function_call_then_answer",
	"reasoning_text_and_function_call",
	"reasoning_two_turns",
	"reasoning_without_encrypted_content",
	"stream_function_call",
	"stream_reasoning_function_call",
	"stream_reasoning_summary",
	"stream_reasoning_text_function_call",
	"tool_choice_required",
}

// independentFixtures are the fixtures whose requests are not one
// conversation: each is built from its recording.
var independentFixtures = map[string]bool{
	"error_400_unsupported_values":               true,
	"incomplete_max_output_tokens":               true,
	"error_400_reasoning_without_following_item": true,
}

// TestCloudRecordings replays every recording of the real Responses API.
// Request 1 is built from the recorded request as a caller would build it
// (requestFrom); in a conversation, request n+1 is request n, plus the
// reply this package made of answer n, kept whole as the tool loop keeps
// it, plus the tool results and user text of recorded request n+1. Each
// request sent must have the recorded input (comparableInput lists the
// normalizations), include and tools; each answer must give the reply or
// error of its golden file, testdata/golden/cloud/FIXTURE/NN.json, which
// were checked by hand against the recorded bodies; and a stream's deltas
// must add up to its reply.
func TestCloudRecordings(t *testing.T) {
	t.Parallel()
	for _, f := range providertest.LoadCloud(t, "openai-responses", cloudFixtures) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			srv, got := providertest.ReplayCloud(t, f)
			m := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: srv.Client()})
			var req *chat.Request
			var prev *chat.Response
			for i, ex := range f.Exchanges {
				rec := readRecorded(t, ex.Request)
				// ids renames the recorded call ids that are not this
				// package's (see comparableInput).
				ids := map[string]string{}
				// dropReasoning: the recorded request holds a reasoning
				// item that this package leaves out, on purpose.
				dropReasoning := false
				switch {
				case f.Name == "error_400_reasoning_without_following_item" && i == 1:
					// The recording client edited the text of reply 1
					// and sent its reasoning item before the edited
					// text: the API refused it. This package sends the
					// edited text without that reasoning item.
					edited := prev.Message
					recAssistant, ok := recordedMessage(t, rec.Input[2])
					require.True(t, ok)
					edited.Content = recAssistant.Content
					req = &chat.Request{Model: req.Model, Options: req.Options,
						Messages: append(slices.Clone(req.Messages), edited, chat.UserMessage("Anything to add?"))}
					dropReasoning = true
				case i == 0 || independentFixtures[f.Name]:
					req = requestFrom(t, rec)
				default:
					next := *req
					next.Messages = append(slices.Clone(req.Messages), prev.Message)
					added := newInput(t, rec)
					require.NotEmpty(t, added, "request %d adds nothing", i+1)
					for k, msg := range added {
						if msg.Role == chat.RoleTool && !hasCall(prev, msg.ToolCallID) {
							// The k-th result answers the k-th call.
							require.Less(t, k, len(prev.Message.ToolCalls))
							ids[msg.ToolCallID] = prev.Message.ToolCalls[k].ID
							msg.ToolCallID = prev.Message.ToolCalls[k].ID
						}
						next.Messages = append(next.Messages, msg)
					}
					req = &next
				}

				// A stream request refused by validation gets a JSON error
				// body: the recorded request says which was sent.
				require.False(t, f.Stream(i) && !rec.Stream)
				resp, err := sendChecked(t, m, req, rec.Stream)
				if ex.Status != 200 {
					var pe *chat.ProviderError
					require.ErrorAs(t, err, &pe)
					assert.Equal(t, ex.Status, pe.StatusCode)
					assert.Equal(t, req.Model, pe.Model)
					assert.Equal(t, 1, pe.Attempts, "a 400 is not retried")
					providertest.CheckNoKey(t, err, testKey)
				} else {
					require.NoError(t, err)
				}
				checkCloudGolden(t, fmt.Sprintf("%s/%02d", f.Name, i+1), summarize(t, resp, err))

				sent := got.Get(t, i)
				assert.Equal(t, ex.Path, sent.Path)
				checkSDK(t, sent.Body)
				want := comparableInput(t, ex.Request, ids)
				if dropReasoning {
					want = slices.DeleteFunc(want, func(v any) bool { return v.(map[string]any)["type"] == "reasoning" })
				}
				wantJSON, _ := json.Marshal(want)
				gotJSON, _ := json.Marshal(comparableInput(t, sent.Body, nil))
				assert.JSONEq(t, string(wantJSON), string(gotJSON), "input of request %d", i+1)
				sentReq := readRecorded(t, sent.Body)
				assert.ElementsMatch(t, rec.Include, sentReq.Include, "include of request %d", i+1)
				assert.Equal(t, rec.Model, sentReq.Model)
				assert.Equal(t, rec.Instructions, sentReq.Instructions)
				assert.Equal(t, rec.Stream, sentReq.Stream)
				assert.Equal(t, comparableTools(t, rec.Tools), comparableTools(t, sentReq.Tools))
				prev = resp
			}
			requests := len(f.Exchanges)
			if prev != nil && len(prev.Message.ProviderData) > 0 {
				// The last reply goes back too (the replay answers 500,
				// once): the items it kept are the recorded ones.
				last := f.Exchanges[len(f.Exchanges)-1]
				next := append(slices.Clone(req.Messages), prev.Message)
				for _, c := range prev.Message.ToolCalls {
					next = append(next, chat.ToolMessage(c, "ok"))
				}
				once := openairesponses.New(openairesponses.Config{BaseURL: srv.URL + "/v1", APIKey: testKey, HTTPClient: srv.Client(), MaxRetries: openairesponses.NoRetries})
				_, err := once.Chat(context.Background(), &chat.Request{Model: req.Model, Messages: next})
				require.ErrorIs(t, err, chat.ErrServer)
				checkKeptItems(t, last.Body, f.Stream(len(f.Exchanges)-1), got.Get(t, requests).Body)
				requests++
			}
			assert.Equal(t, requests, got.Count())
		})
	}
}

// checkKeptItems checks the reasoning and message items of a request body
// that come from a recorded reply against the reply's output items (a
// stream's from its output_item.done events): each as received, a message
// without logprobs; and every reasoning item with encrypted content is
// there.
func checkKeptItems(t *testing.T, reply []byte, stream bool, body []byte) {
	t.Helper()
	var items []json.RawMessage
	if stream {
		for _, line := range strings.Split(string(reply), "\n") {
			var ev struct {
				Type string
				Item json.RawMessage
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if ok && json.Unmarshal([]byte(data), &ev) == nil && ev.Type == "response.output_item.done" {
				items = append(items, ev.Item)
			}
		}
	} else {
		var r struct{ Output []json.RawMessage }
		require.NoError(t, json.Unmarshal(reply, &r))
		items = r.Output
	}
	want := map[string]map[string]any{}
	for _, raw := range items {
		var it map[string]any
		require.NoError(t, json.Unmarshal(raw, &it))
		if c, ok := it["content"].([]any); ok && it["type"] == "message" {
			for _, p := range c {
				delete(p.(map[string]any), "logprobs")
			}
		}
		want[it["id"].(string)] = it
	}
	sentReasoning := 0
	for _, raw := range inputItems(t, body) {
		var it map[string]any
		require.NoError(t, json.Unmarshal(raw, &it))
		id, _ := it["id"].(string)
		if it["type"] == "function_call" || want[id] == nil {
			continue // a call, or an item of an earlier reply
		}
		assert.Equal(t, want[id], it, "item %s as received", id)
		if it["type"] == "reasoning" {
			sentReasoning++
		}
	}
	wantReasoning := 0
	for _, it := range want {
		if enc, _ := it["encrypted_content"].(string); it["type"] == "reasoning" && enc != "" {
			wantReasoning++
		}
	}
	assert.Equal(t, wantReasoning, sentReasoning)
	assert.NotZero(t, sentReasoning)
}

func hasCall(resp *chat.Response, id string) bool {
	for _, c := range resp.Message.ToolCalls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// comparableTools returns the tools of a request body as JSON values, a
// null or empty description left out: the recording client sent one for a
// tool without a description, this package sends none.
func comparableTools(t *testing.T, tools []json.RawMessage) []any {
	t.Helper()
	var out []any
	for _, raw := range tools {
		var tl map[string]any
		require.NoError(t, json.Unmarshal(raw, &tl))
		if d, ok := tl["description"]; ok && (d == nil || d == "") {
			delete(tl, "description")
		}
		out = append(out, tl)
	}
	return out
}

// sendChecked sends req with Chat, or with Stream when stream is set; a
// stream's deltas must add up to the reply it returns: the text, and each
// call's id, name and arguments.
func sendChecked(t *testing.T, m *openairesponses.Model, req *chat.Request, stream bool) (*chat.Response, error) {
	t.Helper()
	if !stream {
		return m.Chat(context.Background(), req)
	}
	var text strings.Builder
	var calls []chat.ToolCall
	resp, err := m.Stream(context.Background(), req, func(d chat.Delta) bool {
		text.WriteString(d.Content)
		if tc := d.ToolCall; tc != nil {
			require.LessOrEqual(t, tc.Index, len(calls), "a delta of call %d before call %d", tc.Index, len(calls))
			if tc.Index == len(calls) {
				calls = append(calls, chat.ToolCall{})
			}
			c := &calls[tc.Index]
			if tc.ID != "" {
				assert.Empty(t, c.ID, "call %d: a second id", tc.Index)
				c.ID = tc.ID
			}
			if tc.Name != "" {
				assert.Empty(t, c.Name, "call %d: a second name", tc.Index)
				c.Name = tc.Name
			}
			c.Arguments = append(c.Arguments, tc.Arguments...)
		}
		return true
	})
	if err != nil {
		return resp, err
	}
	assert.Equal(t, resp.Message.Content, text.String(), "the text deltas add up to the reply's text")
	if len(calls) == 0 {
		calls = nil
	}
	assert.Equal(t, resp.Message.ToolCalls, calls, "the call deltas add up to the reply's calls")
	return resp, err
}

// TestReasoningSummaryParts: the parts of a reasoning summary are sections
// of their own, joined by a blank line, in a stream (where each part's text
// comes whole in its reasoning_summary_text.done event) as in a JSON reply
// (where the parts are the item's summary list).
func TestReasoningSummaryParts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		stream bool
		parts  int
	}{
		{name: "stream_reasoning_summary", stream: true, parts: 4},
		{name: "reasoning_function_call", parts: 5},
		{name: "reasoning_two_turns", parts: 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := providertest.LoadRecording(t, "cloud/openai-responses/"+tc.name+"/01")
			var texts []string
			if tc.stream {
				for _, line := range strings.Split(string(rec.Body), "\n") {
					var ev struct{ Type, Text string }
					data, ok := strings.CutPrefix(line, "data: ")
					if ok && json.Unmarshal([]byte(data), &ev) == nil && ev.Type == "response.reasoning_summary_text.done" {
						texts = append(texts, ev.Text)
					}
				}
			} else {
				var r struct {
					Output []struct{ Summary []struct{ Text string } }
				}
				require.NoError(t, json.Unmarshal(rec.Body, &r))
				for _, it := range r.Output {
					for _, p := range it.Summary {
						texts = append(texts, p.Text)
					}
				}
			}
			require.Len(t, texts, tc.parts)
			srv, _ := serve(t, func(w http.ResponseWriter, _ int) { rec.ServeHTTP(w, nil) })
			m := newModel(srv, openairesponses.Config{})
			resp, err := sendChecked(t, m, &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")}}, tc.stream)
			require.NoError(t, err)
			assert.Equal(t, strings.Join(texts, "\n\n"), resp.Message.Reasoning)
		})
	}
}
