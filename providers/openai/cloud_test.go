package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// cloudAPI is the directory of testdata/cloud with the recordings of the
// real Chat Completions API (api.openai.com, and Gemini's
// OpenAI-compatible endpoint in one fixture).
const cloudAPI = "openai-chat"

// A cloudExchange is what one recorded answer must become: a reply, or an
// error. Each was written by reading the recorded body.
type cloudExchange struct {
	reply *chat.Response
	err   *cloudError
}

type cloudError struct {
	status  int
	is      error   // the sentinel the error wraps
	isNot   []error // sentinels it must not wrap
	message string  // the server's message, whole
}

// The thought signatures of Gemini's two replies in
// gemini_compat_thought_signature, on the message, not on a call.
const (
	geminiSig1 = "AVSoXO4AzAXs7GGvOY63fp8CwJK3yR8HbUPhxhfN2HaPvJnscmZCkaWvckz5NL3nIMK+si/baQcsM2Q8ME9V1RQrb3w1IKceWfjO3kHPL11odY/p6Us4GkkvJqKU/OgUnbAMbuvNdX1pyXWZUrQ7WyXZ5F4mjbxBSCLiVOTdFlK53zn+ajq5JIuG9AYHgwE/sJxUUpvNd6RcWvZR3fQb8gufjCspiO2ZdInRcdGsz/+XftFHxFbXkdtCRAw74AtjlN5osb+KgDYojdohKIEit9DcTBe7hI7oEHWMfnqYSgGrrad4FJpNB3jXmSFevE2iYYKUBzWvxJNj8fIYrCC0g4rJ1aJvuoU="
	geminiSig2 = "AVSoXO4/lu90Bn7IxVcWAjD6KH3ZHMmsCX1tnPJERDI6SZb63hrSEtmJT/v+sn2SzlecMoXBVmtcrd3keFszUgDpLjFm1gB+uMzLS1IqPdEAh+m5S71k1hfStNMFen63UnphYHWt4UrjVHXckysRLVJjCuMmE01hQXcVh9b3YXvfWfZEFA=="
)

// geminiData is the ProviderData of a Gemini reply whose message carries
// the thought signature sig, in both places Gemini puts it.
func geminiData(sig string) json.RawMessage {
	return json.RawMessage(`{"extra_content":{"google":{"thought":true,"thought_signature":"` + sig + `"}},"thought_signature":"` + sig + `"}`)
}

// cloudAnswer is a reply with text only, finished with stop.
func cloudAnswer(model, content string, u chat.Usage) cloudExchange {
	return cloudExchange{reply: &chat.Response{Message: chat.Message{Role: chat.RoleAssistant, Content: content}, FinishReason: chat.FinishStop, Usage: u, Model: model}}
}

// cloudCalls is a reply with tool calls and no text.
func cloudCalls(model string, u chat.Usage, cs ...chat.ToolCall) cloudExchange {
	return cloudExchange{reply: &chat.Response{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: cs}, FinishReason: chat.FinishToolCalls, Usage: u, Model: model}}
}

// cloudUsage is a usage without cached tokens, as in every recording of
// the cloud API (their cached_tokens are all 0; the llama.cpp recordings
// have some, see TestChat).
func cloudUsage(prompt, completion, total, reasoning int) chat.Usage {
	return chat.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: total, ReasoningTokens: reasoning}
}

const (
	gpt4o     = "gpt-4o-2024-08-06"
	gpt5mini  = "gpt-5-mini-2025-08-07"
	gpt4oMini = "gpt-4o-mini-2024-07-18"
)

// cloudWant holds, for every fixture of testdata/cloud/openai-chat, what
// each of its exchanges must come to.
var cloudWant = map[string][]cloudExchange{
	"error_400_unsupported_role": {{err: &cloudError{status: 400, is: chat.ErrBadRequest, isNot: []error{chat.ErrModelNotFound, chat.ErrToolsNotSupported},
		message: "Unsupported value: 'messages[0].role' does not support 'developer' with this model."}}},
	"error_400_web_search_options": {{err: &cloudError{status: 400, is: chat.ErrBadRequest, isNot: []error{chat.ErrModelNotFound, chat.ErrToolsNotSupported},
		message: "Web search options not supported with this model."}}},
	"error_404_unknown_model": {{err: &cloudError{status: 404, is: chat.ErrModelNotFound, isNot: []error{chat.ErrBadRequest},
		message: "The model `gpt-5.2-proo` does not exist or you do not have access to it."}}},
	"gemini_compat_thought_signature": {
		// The call's id is "": it gets one of its own. total_tokens (109)
		// counts thinking that prompt (35) and completion (12) do not.
		func() cloudExchange {
			e := cloudCalls("gemini-2.5-pro-preview-05-06", cloudUsage(35, 12, 109, 0), call("call_0", "get_current_time", `{}`))
			e.reply.Message.ProviderData = geminiData(geminiSig1)
			return e
		}(),
		func() cloudExchange {
			e := cloudAnswer("gemini-2.5-pro-preview-05-06", "The current time is Noon.", cloudUsage(66, 6, 100, 0))
			e.reply.Message.ProviderData = geminiData(geminiSig2)
			return e
		}(),
	},
	"parallel_tool_calls": {
		cloudCalls(gpt4o, cloudUsage(71, 46, 117, 0),
			call("call_jYdIdRZHxZTn5bWCq5jlMrJi", "delete_file", `{"path": ".env"}`),
			call("call_TmlTVWQbzrXCZ4jNsCVNbNqu", "create_file", `{"path": "test.txt"}`)),
		cloudAnswer(gpt4o, "The file `.env` has been deleted and `test.txt` has been created successfully.", cloudUsage(133, 19, 152, 0)),
	},
	"reasoning_model_tool_call": {
		cloudCalls(gpt5mini, cloudUsage(132, 23, 155, 0), call("call_aDdJTteHrpMdhdkEkyxjxEHH", "get_weather", `{"city":"Paris"}`)),
		cloudAnswer(gpt5mini, "It's sunny in Paris right now, about 22°C (≈72°F). Would you like an hourly forecast, the forecast for tomorrow, or weather for another city?", cloudUsage(167, 171, 338, 128)),
	},
	"reasoning_tokens_gpt_5":   {cloudAnswer("gpt-5-2025-08-07", "Paris.", cloudUsage(13, 11, 24, 0))},
	"reasoning_tokens_o3_mini": {cloudAnswer("o3-mini-2025-01-31", "Hello there! How can I help you today?", cloudUsage(7, 87, 94, 64))},
	"retry_three_rounds": {
		cloudCalls(gpt4o, cloudUsage(47, 17, 64, 0), call("call_fFAB8MNL3tUdfNIIdsIJTo0H", "get_weather_in_city", `{"city":"CDMX"}`)),
		cloudCalls(gpt4o, cloudUsage(87, 17, 104, 0), call("call_hLYHO5lK5lmiukTZv6VQzz3x", "get_weather_in_city", `{"city":"Mexico City"}`)),
		cloudAnswer(gpt4o, "The weather in Mexico City is currently sunny.", cloudUsage(116, 10, 126, 0)),
	},
	"stream_parallel_tool_calls_three_rounds": {
		// Two calls without arguments, index 0 then 1, each as "" then "{}".
		cloudCalls(gpt4o, cloudUsage(364, 40, 404, 0),
			call("call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", `{}`),
			call("call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", `{}`)),
		cloudCalls(gpt4o, cloudUsage(423, 15, 438, 0), call("call_LwxJUB9KppVyogRRLQsamRJv", "get_weather", `{"city":"Mexico City"}`)),
		cloudCalls(gpt4o, cloudUsage(448, 62, 510, 0), call("call_CCGIWaMeYWmxOQ91orkmTvzn", "final_result",
			`{"answers":[{"label":"Capital","answer":"The capital of Mexico is Mexico City."},{"label":"Weather","answer":"The weather in Mexico City is currently sunny."},{"label":"Product Name","answer":"The product name is Pydantic AI."}]}`)),
	},
	"stream_text": {cloudAnswer("gpt-5-2025-08-07", "Paris.", cloudUsage(13, 11, 24, 0))},
	"stream_tool_call": {
		cloudCalls(gpt4oMini, cloudUsage(53, 15, 68, 0), call("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", `{"country":"UK"}`)),
		cloudAnswer(gpt4oMini, "The capital of the UK is London.", cloudUsage(78, 9, 87, 0)),
	},
	"stream_tool_call_mcp": {
		cloudCalls(gpt4o, cloudUsage(179, 46, 225, 0), call("call_i6vaX3o98OPFobHi4IMkIHT8", "ask_question",
			`{"repoName":"pydantic/pydantic-ai","question":"Can you provide a summary of what the pydantic/pydantic-ai repository is about in one sentence?"}`)),
		cloudAnswer(gpt4o, "The `pydantic/pydantic-ai` repository is a Python agent framework designed to facilitate the development of production-grade Generative AI applications and workflows with a focus on type-safety and an ergonomic developer experience.", cloudUsage(359, 44, 403, 0)),
	},
	"system_prompt_tool_call": {
		cloudCalls(gpt4o, cloudUsage(109, 11, 120, 0), call("call_s7oT9jaLAsEqTgvxZTmFh0wB", "get_user_country", `{}`)),
		cloudAnswer(gpt4o, `{"city":"Mexico City","country":"Mexico"}`, cloudUsage(130, 11, 141, 0)),
	},
	"system_then_tool_call": {
		cloudCalls("gpt-4.1-mini-2025-04-14", cloudUsage(50, 15, 65, 0), call("call_bhZkmIKKItNGJ41whHUHB7p9", "get_temperature", `{"city":"Tokyo"}`)),
		cloudAnswer("gpt-4.1-mini-2025-04-14", "The temperature in Tokyo is currently 20.0 degrees Celsius.", cloudUsage(75, 15, 90, 0)),
	},
	"tool_call_json_answer": {
		cloudCalls(gpt4o, cloudUsage(71, 12, 83, 0), call("call_PkRGedQNRFUzJp2R7dO7avWR", "get_user_country", `{}`)),
		cloudAnswer(gpt4o, `{"city":"Mexico City","country":"Mexico"}`, cloudUsage(92, 15, 107, 0)),
	},
	"tool_call_then_answer": {
		cloudCalls(gpt4o, cloudUsage(42, 11, 53, 0), call("call_J1YabdC7G7kzEZNbbZopwenH", "get_user_country", `{}`)),
		cloudAnswer(gpt4o, "The largest city in Mexico is Mexico City.", cloudUsage(63, 10, 73, 0)),
	},
	"tool_call_then_output_tool": {
		cloudCalls(gpt5mini, cloudUsage(180, 215, 395, 192), call("call_LCWM0K5IkLjASFTllZhX5HM3", "get_weather", `{"city":"Paris"}`)),
		cloudCalls(gpt5mini, cloudUsage(215, 566, 781, 512), call("call_K70dlxD5HeTanhq40YEg003m", "final_result",
			`{"city":"Paris","summary":"Currently sunny in Paris with a temperature of 22°C -- clear skies and mild conditions. No precipitation reported; good weather for outdoor activity."}`)),
	},
	"tool_choice_required": {
		cloudCalls(gpt5mini, cloudUsage(130, 87, 217, 64), call("call_injwxidE5XUzmiKVfOH3rxf2", "get_weather", `{"city":"Paris"}`)),
	},
	"tool_error_three_rounds": {
		cloudCalls(gpt4o, cloudUsage(203, 15, 218, 0), call("call_rETXZWddAGZSHyVHAxptPGgc", "get_error", `{"value":false}`)),
		cloudCalls(gpt4o, cloudUsage(250, 15, 265, 0), call("call_4xGyvdghYKHN8x19KWkRtA5N", "get_error", `{"value":true}`)),
		cloudAnswer(gpt4o, `I called the tool with the correct parameter, and it returned: "This is not an error."`, cloudUsage(277, 22, 299, 0)),
	},
}

// madeUpIDs are the fixtures whose server sent calls without ids, so that
// the recording client and this package each made their own.
var madeUpIDs = map[string]bool{"gemini_compat_thought_signature": true}

// TestCloudRecordings replays every recording of the real API. Request 1
// is built from the recorded one; request n+1 from the provider's own
// reply n, kept whole as the loop keeps it, plus the tool results and user
// text of recorded request n+1. Each request sent must be the recorded
// one (see expectedBody for the normalizations), each reply what its body
// says, and each error the sentinel and message its body says.
func TestCloudRecordings(t *testing.T) {
	t.Parallel()
	for _, f := range providertest.LoadCloud(t, cloudAPI, cloudNames()) {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			want := cloudWant[f.Name]
			require.Len(t, want, len(f.Exchanges), "an expectation for each exchange")
			srv, got := providertest.ReplayCloud(t, f)
			root := strings.TrimSuffix(f.Exchanges[0].Path, "/chat/completions")
			m := openai.New(openai.Config{BaseURL: srv.URL + root, APIKey: testKey, HTTPClient: srv.Client()})

			var req *chat.Request
			ids := map[string]string{}                   // recorded call id -> the reply's
			kept := map[int]map[string]json.RawMessage{} // message index -> fields sent back with it
			var last *chat.Response
			for i, ex := range f.Exchanges {
				rec := parseRecorded(t, ex.Request)
				if i == 0 {
					req = firstRequest(t, ex.Request)
				} else {
					req = nextRequest(t, f, i, req, last, ids, kept)
				}
				require.Equal(t, rec.Stream, f.Stream(i), "exchange %d: a stream request is answered with a stream", i+1)

				var resp *chat.Response
				var err error
				var deltas []chat.Delta
				if rec.Stream {
					resp, err = m.Stream(context.Background(), req, func(d chat.Delta) bool {
						if d.ToolCall != nil {
							c := *d.ToolCall
							d.ToolCall = &c
						}
						deltas = append(deltas, d)
						return true
					})
				} else {
					resp, err = m.Chat(context.Background(), req)
				}

				sent := got.Get(t, i)
				assert.Equal(t, ex.Path, sent.Path, "exchange %d: path", i+1)
				assert.JSONEq(t, string(expectedBody(t, ex.Request, ids, kept)), string(sent.Body), "exchange %d: request body", i+1)

				w := want[i]
				if w.err != nil {
					checkCloudError(t, err, w.err, rec.Model)
					assert.Nil(t, resp)
					assert.Equal(t, i+1, len(f.Exchanges), "an error ends the fixture")
					return
				}
				require.NoError(t, err, "exchange %d", i+1)
				wantResp := *w.reply
				wantResp.Attempts = 1
				checkReplyEqual(t, &wantResp, resp, i+1)
				if rec.Stream {
					checkDeltasMatchReply(t, deltas, resp)
					checkDeltaArguments(t, deltas, resp)
				}
				last = resp
			}
			if madeUpIDs[f.Name] {
				return
			}
			for rec, own := range ids {
				assert.Equal(t, rec, own, "the server's call ids are kept")
			}
		})
	}
}

// nextRequest builds request i from request i-1, the provider's reply to
// it, and the input recorded request i adds after the reply; it records
// in ids how the recorded call ids map to the reply's, and in kept the
// fields the reply's message must carry back.
func nextRequest(t *testing.T, f providertest.CloudFixture, i int, prev *chat.Request, reply *chat.Response,
	ids map[string]string, kept map[int]map[string]json.RawMessage) *chat.Request {
	t.Helper()
	before := parseRecorded(t, f.Exchanges[i-1].Request)
	cur := parseRecorded(t, f.Exchanges[i].Request)
	n := len(before.Messages)
	require.Greater(t, len(cur.Messages), n+1, "request %d adds the reply and new input", i+1)
	asst := cur.Messages[n]
	require.Equal(t, "assistant", asst.Role)
	require.Len(t, asst.ToolCalls, len(reply.Message.ToolCalls), "request %d sends back the calls of reply %d", i+1, i)
	for j, c := range asst.ToolCalls {
		ids[c.ID] = reply.Message.ToolCalls[j].ID
	}
	// The fields a JSON reply's message had besides the usual ones go
	// back with it: read from the recorded body, not from the reply.
	var body struct {
		Choices []struct {
			Message map[string]json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	if !f.Stream(i - 1) {
		require.NoError(t, json.Unmarshal(f.Exchanges[i-1].Body, &body))
		for _, k := range []string{"extra_content", "thought_signature"} {
			if v, ok := body.Choices[0].Message[k]; ok {
				if kept[n] == nil {
					kept[n] = map[string]json.RawMessage{}
				}
				kept[n][k] = v
			}
		}
	}
	next := *prev
	next.Messages = append(append(append([]chat.Message(nil), prev.Messages...), reply.Message),
		chatMessages(t, cur.Messages[n+1:], ids)...)
	return &next
}

// checkReplyEqual compares a reply with the one expected, its
// ProviderData as JSON.
func checkReplyEqual(t *testing.T, want, got *chat.Response, n int) {
	t.Helper()
	wantData, gotData := want.Message.ProviderData, got.Message.ProviderData
	if wantData != nil {
		assert.JSONEq(t, string(wantData), string(gotData), "reply %d: message ProviderData", n)
	} else {
		assert.Nil(t, gotData, "reply %d: message ProviderData", n)
	}
	w, g := *want, *got
	w.Message.ProviderData, g.Message.ProviderData = nil, nil
	assert.Equal(t, &w, &g, "reply %d", n)
}

// checkDeltaArguments checks that each call's argument deltas, joined,
// are its arguments as the stream sent them (the reply has "{}" where the
// stream sent none).
func checkDeltaArguments(t *testing.T, deltas []chat.Delta, resp *chat.Response) {
	t.Helper()
	args := make([]string, len(resp.Message.ToolCalls))
	for _, d := range deltas {
		if d.ToolCall != nil {
			args[d.ToolCall.Index] += d.ToolCall.Arguments
		}
	}
	for i, c := range resp.Message.ToolCalls {
		assert.Equal(t, string(c.Arguments), args[i], "call %d: arguments streamed", i)
	}
}

func checkCloudError(t *testing.T, err error, want *cloudError, model string) {
	t.Helper()
	pe := checkProviderError(t, err, want.is, want.status, model)
	for _, not := range want.isNot {
		assert.False(t, errors.Is(err, not), "error must not wrap %v", not)
	}
	assert.Equal(t, want.message, pe.Message)
	assert.Equal(t, 1, pe.Attempts, "a 4xx other than 408, 409 and 429 is not retried")
	assert.Empty(t, pe.RequestID, "the recordings kept no x-request-id, and OpenAI's error body has none")
}

// TestCloudErrorsByWhatTheySay: what the recorded errors say decides the
// sentinel, not only the status: a model_not_found code is a missing model
// at 400 as at 404 (the Responses API's status), a 404 that names no model
// is a wrong URL, and a 429 insufficient_quota is no rate limit.
func TestCloudErrorsByWhatTheySay(t *testing.T) {
	t.Parallel()
	notFound := string(providertest.LoadRecording(t, "cloud/openai-chat/error_404_unknown_model/01").Body)
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		is      error
		isNot   []error
		message string
	}{
		{name: "recorded 404 model_not_found", status: 404, body: notFound, is: chat.ErrModelNotFound, isNot: []error{chat.ErrBadRequest},
			message: "The model `gpt-5.2-proo` does not exist or you do not have access to it."},
		{name: "400 model_not_found", status: 400,
			body: `{"error":{"message":"The requested model 'gpt-x' does not exist.","type":"invalid_request_error","param":"model","code":"model_not_found"}}`,
			is:   chat.ErrModelNotFound, isNot: []error{chat.ErrBadRequest}, message: "The requested model 'gpt-x' does not exist."},
		{name: "404 Not Found", status: 404, body: `{"error":{"message":"Not Found","type":"invalid_request_error","param":null,"code":null}}`,
			is: chat.ErrBadRequest, isNot: []error{chat.ErrModelNotFound}, message: "no /chat/completions at "},
		{name: "400 model_not_found in the message only", status: 400,
			body: `{"error":{"message":"Invalid value for 'model': model_not_found is not a model name","type":"invalid_request_error","param":"model","code":"invalid_value"}}`,
			is:   chat.ErrBadRequest, isNot: []error{chat.ErrModelNotFound}, message: "Invalid value for 'model'"},
		{name: "429 insufficient_quota", status: 429,
			body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			is:   chat.ErrQuotaExceeded, isNot: []error{chat.ErrRateLimited}, message: "You exceeded your current quota"},
		{name: "429 rate limit", status: 429,
			body: `{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM).","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			is:   chat.ErrRateLimited, isNot: []error{chat.ErrQuotaExceeded}, message: "Rate limit reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, stream := range []bool{false, true} {
				srv, got := providertest.Serve(t, chatPath, func(w http.ResponseWriter, _ *http.Request, _ int) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.status)
					_, _ = w.Write([]byte(tc.body))
				})
				m := newModel(srv, openai.Config{})
				openai.SetRetryHooks(m, (&providertest.Sleeper{}).Sleep, providertest.NoJitter)
				req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}
				var err error
				if stream {
					_, err = m.Stream(context.Background(), req, nil)
				} else {
					_, err = m.Chat(context.Background(), req)
				}
				pe := checkProviderError(t, err, tc.is, tc.status, "tiny")
				for _, not := range tc.isNot {
					assert.False(t, errors.Is(err, not), "stream %v: must not wrap %v", stream, not)
				}
				assert.Contains(t, pe.Message, tc.message, "stream %v", stream)
				if tc.is == chat.ErrRateLimited {
					assert.Equal(t, 3, got.Count(), "stream %v: a rate limit is retried", stream)
					continue
				}
				assert.Equal(t, 1, got.Count(), "stream %v: sent once, never retried", stream)
				assert.Equal(t, 1, pe.Attempts)
			}
		})
	}
}
