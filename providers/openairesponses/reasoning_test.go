package openairesponses_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// reasoningItems returns the reasoning items of a recording as the bytes
// the server sent: from the output of a JSON reply, or from the
// output_item.done events of a stream.
func reasoningItems(t *testing.T, name string) map[string][]byte {
	t.Helper()
	items := make(map[string][]byte)
	add := func(raw json.RawMessage) {
		var head struct{ Type, ID string }
		require.NoError(t, json.Unmarshal(raw, &head))
		if head.Type == "reasoning" {
			items[head.ID] = raw
		}
	}
	rec := providertest.LoadRecording(t, name)
	if !strings.HasPrefix(rec.ContentType, "text/event-stream") {
		var r struct{ Output []json.RawMessage }
		require.NoError(t, json.Unmarshal(rec.Body, &r))
		for _, raw := range r.Output {
			add(raw)
		}
		return items
	}
	sc := bufio.NewScanner(bytes.NewReader(rec.Body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		var ev struct {
			Type string
			Item json.RawMessage
		}
		if ok && json.Unmarshal(data, &ev) == nil && ev.Type == "response.output_item.done" {
			add(ev.Item)
		}
	}
	require.NoError(t, sc.Err())
	return items
}

// inputItems returns the input items of a request body, as sent.
func inputItems(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var r struct{ Input []json.RawMessage }
	require.NoError(t, json.Unmarshal(body, &r))
	return r.Input
}

// itemSummary describes an input item in a few words: its type, its role
// or call_id, and its id when it has one.
func itemSummary(raw json.RawMessage) string {
	var it struct {
		Type, Role, ID string
		CallID         string `json:"call_id"`
	}
	_ = json.Unmarshal(raw, &it)
	return strings.Join(strings.Fields(fmt.Sprintf("%s %s%s %s", it.Type, it.Role, it.CallID, it.ID)), " ")
}

// TestReasoningRoundTrip runs the tool loop over a reasoning model's
// replies: the first has reasoning items (two with encrypted content, one
// without) around two function calls; the second a reasoning item and the
// answer. Each request after a reply must carry that reply's reasoning
// items byte for byte as received, each before the item it preceded,
// which carries its output id, and never the item without encrypted
// content, which names an item stored on the server (none is: store is
// false).
func TestReasoningRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, first string
		stream      bool
	}{
		{name: "chat", first: "h_reasoning_tools"},
		{name: "stream", first: "h_stream_reasoning_tools", stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.first, "h_reasoning_answer", "llamacpp/e_unknown_model")
			m := newModel(srv, openairesponses.Config{Model: "gpt-5-mini"})
			weather := toolcall.MustFunc("get_weather", "Get the weather in a city", func(_ context.Context, in struct {
				City string `json:"city"`
			}) (string, error) {
				return map[string]string{"Paris": "sunny", "Lyon": "rain"}[in.City], nil
			})
			prompt := toolcall.NewClient(m).Prompt("Weather in Paris and Lyon?").Tools(weather).
				Options(chat.Options{Extra: map[string]any{"reasoning": map[string]any{"effort": "low", "summary": "auto"}}})
			var resp *toolcall.Response
			var err error
			if tc.stream {
				for ev, e := range prompt.Stream(context.Background()) {
					if ev.Kind == toolcall.EventDone || e != nil {
						resp, err = ev.Response, e
					}
				}
			} else {
				resp, err = prompt.Call(context.Background())
			}
			require.NoError(t, err)
			assert.Equal(t, "Sunny in Paris, rain in Lyon.", resp.Content())
			require.Len(t, resp.Intermediate, 2)
			first := resp.Intermediate[0]
			assert.Equal(t, "**Weather in two cities**\n\nThe user asks for Paris & Lyon <both>; café talk aside, call get_weather twice.\n\nStored on the server only.",
				first.Message.Reasoning)
			assert.Equal(t, chat.Usage{PromptTokens: 118, CompletionTokens: 210, TotalTokens: 328, CacheReadTokens: 64, ReasoningTokens: 192}, first.Usage)
			assert.Equal(t, chat.Usage{PromptTokens: 498, CompletionTokens: 250, TotalTokens: 748, CacheReadTokens: 320, ReasoningTokens: 216}, resp.Usage)

			sent := reasoningItems(t, tc.first)
			second := inputItems(t, got.Get(t, 1).Body)
			var kinds []string
			for _, it := range second {
				kinds = append(kinds, itemSummary(it))
			}
			assert.Equal(t, []string{
				"message user",
				"reasoning rs_68e4a1c0f2d08190b3",
				"function_call call_wT7pQ2mX9 fc_68e4a1c1a0388190b3",
				"reasoning rs_68e4a1c1f9f08190b3",
				"function_call call_Ly0nR4kZ2 fc_68e4a1c2b1c48190b3",
				"function_call_output call_wT7pQ2mX9",
				"function_call_output call_Ly0nR4kZ2",
			}, kinds)
			require.Len(t, second, 7)
			assert.Equal(t, string(sent["rs_68e4a1c0f2d08190b3"]), string(second[1]), "the first reasoning item, byte for byte")
			assert.Equal(t, string(sent["rs_68e4a1c1f9f08190b3"]), string(second[3]), "the second reasoning item, byte for byte")
			assert.NotContains(t, string(got.Get(t, 1).Body), "rs_68e4a1c2f0a08190b3", "the item without encrypted content")

			// The conversation goes on from the history: the answer's
			// reasoning item goes back before its message item, which
			// goes back as received, with its id, without logprobs.
			require.NoError(t, toolcalltest.CheckHistory(resp.History))
			next := append(resp.History, chat.UserMessage("Thanks!"))
			_, err = m.Chat(context.Background(), &chat.Request{Messages: next})
			require.NoError(t, err)
			third := inputItems(t, got.Get(t, 2).Body)
			require.Len(t, third, 10)
			answer := reasoningItems(t, "h_reasoning_answer")
			assert.Equal(t, string(answer["rs_68e4a1d0c3e08190b3"]), string(third[7]))
			assert.JSONEq(t, `{"id":"msg_68e4a1d1a5c88190b3","type":"message","status":"completed","role":"assistant",
				"content":[{"type":"output_text","annotations":[],"text":"Sunny in Paris, rain in Lyon."}]}`, string(third[8]))
			assert.JSONEq(t, `{"type":"message","role":"user","content":"Thanks!"}`, string(third[9]))
			assert.Equal(t, second, third[:7], "the earlier items are sent again as they were")
		})
	}
}

// TestReasoningItemsFromFile checks the recordings the round trip relies
// on: the reasoning items are in the files as one line each, so that
// "byte for byte" compares what a server sent.
func TestReasoningItemsFromFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"h_reasoning_tools", "h_stream_reasoning_tools", "h_reasoning_answer"} {
		items := reasoningItems(t, name)
		require.NotEmpty(t, items, name)
		raw := providertest.LoadRecording(t, name).Body
		for id, item := range items {
			assert.True(t, bytes.Contains(raw, item), "%s: item %s is not in the file as received", name, id)
		}
	}
}

// TestStreamReasoningOnlyInFinalOutput: a server whose stream brings the
// calls but the reasoning items only in the final response: they are
// kept from there, each before the call it preceded.
func TestStreamReasoningOnlyInFinalOutput(t *testing.T) {
	t.Parallel()
	final := providertest.LoadRecording(t, "h_reasoning_tools").Body
	body := sse(
		`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_68e4a1c1a0388190b3","type":"function_call","status":"completed","arguments":"{\"city\":\"Paris\"}","call_id":"call_wT7pQ2mX9","name":"get_weather"}}`,
		`{"type":"response.output_item.done","output_index":3,"item":{"id":"fc_68e4a1c2b1c48190b3","type":"function_call","status":"completed","arguments":"{\"city\":\"Lyon\"}","call_id":"call_Ly0nR4kZ2","name":"get_weather"}}`,
		`{"type":"response.completed","response":`+strings.TrimSpace(string(final))+`}`,
	)
	srv, got := serve(t, func(w http.ResponseWriter, i int) {
		if i == 0 {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(providertest.LoadRecording(t, "h_reasoning_answer").Body)
	})
	m := newModel(srv, openairesponses.Config{})
	ask := chat.UserMessage("Weather in Paris and Lyon?")
	resp, err := m.Stream(context.Background(), &chat.Request{Messages: []chat.Message{ask}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "**Weather in two cities**\n\nThe user asks for Paris & Lyon <both>; café talk aside, call get_weather twice.\n\nStored on the server only.",
		resp.Message.Reasoning)
	msgs := []chat.Message{ask, resp.Message}
	for _, c := range resp.Message.ToolCalls {
		msgs = append(msgs, chat.ToolMessage(c, "sunny"))
	}
	_, err = m.Chat(context.Background(), &chat.Request{Messages: msgs})
	require.NoError(t, err)
	sent := reasoningItems(t, "h_reasoning_tools")
	second := inputItems(t, got.Get(t, 1).Body)
	require.Len(t, second, 7)
	assert.Equal(t, string(sent["rs_68e4a1c0f2d08190b3"]), string(second[1]))
	assert.Equal(t, "function_call call_wT7pQ2mX9 fc_68e4a1c1a0388190b3", itemSummary(second[2]))
	assert.Equal(t, string(sent["rs_68e4a1c1f9f08190b3"]), string(second[3]))
	assert.Equal(t, "function_call call_Ly0nR4kZ2 fc_68e4a1c2b1c48190b3", itemSummary(second[4]))
}
