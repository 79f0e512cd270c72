package gemini_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
)

// cloudAPI is the directory of the recordings of the Gemini API under
// testdata/cloud (see its README.md).
const cloudAPI = "gemini"

// An exchangeWant is what one recorded exchange must come to, written by
// hand from the recorded body: the finish reason, the usage, the calls
// and the kinds of the parts that carry a thoughtSignature, in order; or
// the error of a failed request. The text and thoughts of a reply are
// checked against the recorded body's parts, joined (recordedReply).
type exchangeWant struct {
	finish chat.FinishReason
	usage  chat.Usage
	calls  []chat.ToolCall
	sigs   []string // "call", "text": the parts a signature came with
	// Of a failed request: the sentinel and message.
	err error
	msg string
}

// usage is a reply's usage: prompt, candidates and thoughts token counts,
// and the API's totalTokenCount, which must be their sum.
func usage(prompt, candidates, thoughts, total int) chat.Usage {
	return chat.Usage{PromptTokens: prompt, CompletionTokens: candidates + thoughts, TotalTokens: total, ReasoningTokens: thoughts}
}

func stop(u chat.Usage, sigs ...string) exchangeWant {
	return exchangeWant{finish: chat.FinishStop, usage: u, sigs: sigs}
}

// calls is a turn of calls; only the first call carries a signature
// when sig is set.
func calls(u chat.Usage, sig bool, cs ...chat.ToolCall) exchangeWant {
	w := exchangeWant{finish: chat.FinishToolCalls, usage: u, calls: cs}
	if sig {
		w.sigs = []string{"call"}
	}
	return w
}

// cloudWants holds every fixture of testdata/cloud/gemini, each exchange
// in order. No call of a reply has an id but in
// stream_function_call_then_json: the others get this package's call_N.
var cloudWants = map[string][]exchangeWant{
	"error_404_unknown_model": {{err: chat.ErrModelNotFound,
		msg: "models/gemini-3.6-flahs is not found for API version v1beta, or is not supported for generateContent. Call ModelService.ListModels to see the list of available models and their supported methods."}},
	"function_call_ids_in_history": {
		calls(usage(66, 10, 0, 76), false, call("call_0", "get_answer", `{}`)),
		stop(usage(94, 7, 0, 101)),
	},
	"function_call_no_args": {
		calls(usage(21, 1, 0, 22), false, call("call_0", "bar", `{}`)),
		calls(usage(27, 5, 0, 32), false, call("call_0", "final_result", `{"bar":"hello"}`)),
	},
	"function_call_signature_then_text": {
		calls(usage(57, 15, 124, 196), true, call("call_0", "get_capital", `{"country":"France"}`)),
		calls(usage(109, 16, 199, 324), true, call("call_0", "get_capital", `{"country":"La France"}`)),
		stop(usage(142, 1, 97, 240), "text"),
	},
	"function_call_signature_then_text_signature": {
		calls(usage(125, 12, 395, 532), true, call("call_0", "get_user_country", `{}`)),
		stop(usage(156, 13, 121, 290), "text"),
	},
	"function_call_then_answer": {
		calls(usage(49, 15, 48, 112), true, call("call_0", "get_weather", `{"city":"Paris"}`)),
		stop(usage(88, 15, 0, 103)),
	},
	"function_call_then_output_tool": {
		calls(usage(137, 15, 85, 237), true, call("call_0", "get_weather", `{"city":"Paris"}`)),
		calls(usage(176, 29, 81, 286), true, call("call_0", "final_result", `{"city":"Paris","summary":"It is Sunny and 22C in Paris."}`)),
	},
	"function_calls_three_rounds": {
		calls(usage(79, 15, 69, 163), true, call("call_0", "get_weather", `{"city":"Paris"}`)),
		calls(usage(122, 15, 33, 170), true, call("call_0", "get_time", `{"city":"Paris"}`)),
		stop(usage(162, 21, 28, 211), "text"),
	},
	"function_response_error": {
		calls(usage(59, 13, 145, 217), true, call("call_0", "lookup", `{"item":"missing"}`)),
		stop(usage(87, 15, 0, 102)),
	},
	"max_tokens":          {{finish: chat.FinishLength, usage: usage(15, 5, 0, 20)}},
	"max_tokens_no_parts": {{finish: chat.FinishLength, usage: usage(15, 0, 2, 17)}},
	"parallel_function_calls_five_rounds": {
		calls(usage(83, 30, 190, 303), true,
			call("call_0", "generate_topic", `{}`), call("call_1", "generate_topic", `{}`), call("call_2", "generate_topic", `{}`)),
		calls(usage(348, 10, 40, 398), true, call("call_0", "generate_topic", `{}`)),
		calls(usage(415, 10, 105, 530), true, call("call_0", "generate_topic", `{}`)),
		calls(usage(546, 10, 106, 662), true, call("call_0", "generate_topic", `{}`)),
		calls(usage(679, 65, 235, 979), true, call("call_0", "final_result",
			`{"response":["What kind of car does a sheep drive? A Lamborghini!","Why don't you see penguins in Great Britain? Because they're afraid of Wales!","What happened when the wheel was invented? It caused a revolution!"]}`)),
	},
	"safety_no_content": {{finish: chat.FinishFiltered, usage: usage(14, 0, 0, 14)}},
	// The call streams with an id of the API's; the answer's signature
	// comes on an empty text part in the last chunk.
	"stream_function_call_then_json": {
		calls(usage(29, 12, 69, 110), true, call("96c1su3s", "get_user_country", `{}`)),
		stop(usage(128, 21, 30, 179), "text"),
	},
	// usage changes between chunks: promptTokenCount 55, then 257.
	"stream_function_call_thought_signature": {
		calls(usage(29, 10, 202, 241), true, call("call_0", "get_country", `{}`)),
		stop(usage(257, 8, 0, 265)),
	},
	"stream_function_calls_three_rounds": {
		calls(usage(52, 5, 0, 57), false, call("call_0", "get_capital", `{"country":"France"}`)),
		calls(usage(64, 5, 0, 69), false, call("call_0", "get_temperature", `{"city":"Paris"}`)),
		stop(usage(79, 12, 0, 91)), // the first chunk said 169 prompt tokens
	},
	"stream_thought_parts":    {stop(usage(34, 469, 787, 1290), "text")},
	"thought_parts_two_turns": {stop(usage(29, 736, 1001, 1766), "text"), stop(usage(1280, 958, 1115, 3353), "text")},
}

// TestCloud replays every recording of the Gemini API: each exchange
// through Chat, or Stream when it was streamed. The first request is
// built from the recorded one; each next request from the provider's own
// reply, kept whole, and the new input of the recorded next request, and
// what the provider sent must be the recorded request (see sentAs for the
// forms that may differ). So calls and results pair up, no id of this
// package's is sent, and signatures and thoughts go back unchanged and on
// their parts. Each reply is checked against cloudWants and against the
// text and thoughts of its recorded body; a stream's deltas must add up to
// its reply. The recorded error must come out as its sentinel, with the
// server's message.
func TestCloud(t *testing.T) {
	t.Parallel()
	names := make([]string, 0, len(cloudWants))
	for name := range cloudWants {
		names = append(names, name)
	}
	for _, f := range providertest.LoadCloud(t, cloudAPI, names) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			wants := cloudWants[f.Name]
			require.Len(t, wants, len(f.Exchanges), "an expectation for each exchange")
			srv, c := providertest.ReplayCloud(t, f)
			m := gemini.New(gemini.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), APIKey: testKey})
			model := modelOf(t, f.Exchanges[0].Path)
			req := chatRequest(t, model, f.Exchanges[0].Request)
			conv := &conversation{}
			var resp *chat.Response
			for i, ex := range f.Exchanges {
				if i > 0 {
					req = nextRequest(t, req, resp, f.Exchanges[i-1].Request, ex.Request)
				}
				var (
					deltas []chat.Delta
					err    error
				)
				if f.Stream(i) {
					resp, err = m.Stream(context.Background(), req, collect(&deltas))
				} else {
					resp, err = m.Chat(context.Background(), req)
				}
				sent := c.Get(t, i)
				assert.Equal(t, ex.Path, sent.Path)
				assert.Equal(t, ex.Query, sent.Query)
				assert.Equal(t, testKey, sent.Header.Get("X-Goog-Api-Key"))
				assert.NotContains(t, sent.Path+sent.Query, testKey)
				checkGenai(t, sent.Body)
				want, got := conv.sentAs(t, ex.Request, sent.Body)
				require.JSONEq(t, string(want), string(got), "request %d differs from the recorded one", i+1)
				conv.replied(t, ex)

				w := wants[i]
				if w.err != nil {
					assert.Nil(t, resp)
					pe := checkProviderError(t, err, w.err, ex.Status, model)
					assert.Equal(t, w.msg, pe.Message)
					assert.Equal(t, 1, pe.Attempts)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, w.finish, resp.FinishReason)
				assert.Equal(t, w.usage, resp.Usage)
				checkCalls(t, w.calls, resp.Message.ToolCalls)
				rec := recordedReply(t, ex)
				assert.Equal(t, rec.text, resp.Message.Content)
				assert.Equal(t, rec.thoughts, resp.Message.Reasoning)
				assert.Equal(t, chat.RoleAssistant, resp.Message.Role)
				assert.Equal(t, rec.model, resp.Model)
				checkKept(t, w, rec, resp)
				if f.Stream(i) {
					text, streamed := providertest.Assemble(deltas)
					assert.Equal(t, resp.Message.Content, text, "the text deltas add up to the reply's text")
					checkCalls(t, resp.Message.ToolCalls, streamed)
				}
			}
			assert.Equal(t, len(f.Exchanges), c.Count(), "one request per exchange, none retried")
		})
	}
}

// checkKept checks the parts a reply keeps in ProviderData: each signature
// of the recorded reply, unchanged, on a part of the kind the want says,
// in order; and nothing kept for a reply with no call, thought or
// signature.
func checkKept(t *testing.T, w exchangeWant, rec recorded, resp *chat.Response) {
	t.Helper()
	require.Len(t, rec.sigs, len(w.sigs), "signatures of the recorded reply")
	if len(w.calls) == 0 && len(w.sigs) == 0 && rec.thoughts == "" {
		assert.Empty(t, resp.Message.ProviderData)
		return
	}
	var pd struct {
		Parts []struct {
			Text             *string         `json:"text"`
			Thought          bool            `json:"thought"`
			ThoughtSignature string          `json:"thoughtSignature"`
			FunctionCall     json.RawMessage `json:"functionCall"`
		} `json:"gemini_parts"`
	}
	require.NoError(t, json.Unmarshal(resp.Message.ProviderData, &pd))
	var kinds, sigs []string
	ncalls := 0
	for _, p := range pd.Parts {
		kind := "text"
		switch {
		case p.FunctionCall != nil:
			kind = "call"
			ncalls++
		case p.Thought:
			kind = "thought"
		}
		if p.ThoughtSignature != "" {
			kinds, sigs = append(kinds, kind), append(sigs, p.ThoughtSignature)
		}
	}
	assert.Equal(t, len(w.calls), ncalls, "a part for each call")
	assert.Equal(t, w.sigs, nilIfEmpty(kinds), "the parts signatures are on")
	assert.Equal(t, rec.sigs, nilIfEmpty(sigs), "the signatures, unchanged")
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// checkCalls compares calls by id, name and arguments as JSON values.
func checkCalls(t *testing.T, want, got []chat.ToolCall) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].ID, got[i].ID)
		assert.Equal(t, want[i].Name, got[i].Name)
		assert.JSONEq(t, string(want[i].Arguments), string(got[i].Arguments), "arguments of call %d", i)
	}
}

// modelOf is the model of a recorded request's path,
// /v1beta/models/MODEL:generateContent.
func modelOf(t *testing.T, path string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	require.True(t, ok, path)
	model, _, ok := strings.Cut(rest, ":")
	require.True(t, ok, path)
	return model
}
