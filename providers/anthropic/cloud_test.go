package anthropic_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// cloudAPI is the directory of the recordings of api.anthropic.com under
// testdata/cloud (see its README.md).
const cloudAPI = "anthropic-messages"

// An exchangeWant is what one recorded exchange must come to, written by
// hand from the recorded body: the finish reason, the usage and the calls
// of a reply, or the error of a failed request. The rest of a reply (its
// text, reasoning and ProviderData, a stream's deltas) is in a golden
// file, testdata/golden/cloud/FIXTURE.NN.json, checked by hand against
// the recorded body.
type exchangeWant struct {
	finish chat.FinishReason
	usage  chat.Usage
	calls  []chat.ToolCall
	// Of a failed request: the sentinel, message and request id.
	err            error
	msg, requestID string
}

// usage is a reply's usage with no cache counts: PromptTokens is
// input_tokens, CompletionTokens output_tokens, ReasoningTokens the
// thinking tokens of output_tokens_details.
func usage(in, out, thinking int) chat.Usage {
	return chat.Usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out, ReasoningTokens: thinking}
}

func stop(in, out int) exchangeWant {
	return exchangeWant{finish: chat.FinishStop, usage: usage(in, out, 0)}
}

func calls(in, out int, cs ...chat.ToolCall) exchangeWant {
	return exchangeWant{finish: chat.FinishToolCalls, usage: usage(in, out, 0), calls: cs}
}

// cloudWants holds every fixture of testdata/cloud/anthropic-messages,
// each exchange in order. No recording has a cache count other than 0:
// TestUsage checks those.
var cloudWants = map[string][]exchangeWant{
	"adaptive_thinking_leading_ws_text": {stop(31, 30)},
	"adaptive_thinking_summarized":      {{finish: chat.FinishStop, usage: usage(13, 44, 33)}},
	"error_400_invalid_request": {{err: chat.ErrBadRequest, requestID: "req_011Ca7jT9AHpgXgdv8igm4z9",
		msg: "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium."}},
	"error_404_unknown_model": {{err: chat.ErrModelNotFound, requestID: "req_011CdufXo8Y2LVfY2veyuQWG", msg: "model: claude-sonet-4-5"}},
	"parallel_tool_use": {
		calls(423, 202,
			call("toolu_0167cfEnoQaPviGdVXA95zcu", "retrieve_entity_info", `{"name":"Alice"}`),
			call("toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "retrieve_entity_info", `{"name":"Bob"}`),
			call("toolu_01XFyAjstT3966qvRynZyVPo", "retrieve_entity_info", `{"name":"Charlie"}`),
			call("toolu_013mnQZbgtK2oe3Mo3XKJsx3", "retrieve_entity_info", `{"name":"Daisy"}`)),
		stop(771, 77),
	},
	"parallel_tool_use_no_text": {
		calls(797, 91,
			call("toolu_01XhRHVXkKSCMGnaoHjpKax8", "lookup_country", `{"city":"Tokyo"}`),
			call("toolu_01DrZpF6pdh3dMMQ2rLTeM3E", "get_founded_year", `{"city":"Tokyo"}`)),
		stop(957, 23),
	},
	"redacted_thinking_two_turns": {stop(92, 196), stop(168, 232)},
	"retry_is_error_three_rounds": {
		calls(569, 55, call("toolu_01XupuyMqa2AMdYe9CwEUGPu", "get_capital", `{"country":"Frankreich"}`)),
		calls(656, 64, call("toolu_011vQK3kCpPH231s4V7XDV96", "get_capital", `{"country":"France"}`)),
		stop(733, 16),
	},
	"sequential_tools_three_rounds": {
		calls(628, 50, call("toolu_01Ttepb9joVoQFHP568v7UAL", "country_source", `{}`)),
		calls(691, 53, call("toolu_011j5uC2Tg3TZJo3nmLtJ8Mm", "capital_lookup", `{"country":"Japan"}`)),
		stop(757, 6),
	},
	"stop_sequence":            {stop(32, 5)},
	"stream_redacted_thinking": {stop(92, 189)}, // message_start said 88 output tokens
	"stream_thinking":          {stop(43, 282)},
	"stream_thinking_tool_use": {
		{finish: chat.FinishToolCalls, usage: usage(597, 101, 45),
			calls: []chat.ToolCall{call("toolu_01TUGHRCfso8VSw9ekt21nAR", "get_temperature", `{"city":"Utrecht"}`)}},
		stop(713, 26),
	},
	"stream_tool_use_text_editor": {
		calls(1270, 82, call("toolu_015czvgRAN7XL7DZXTBbSXiP", "str_replace_based_edit_tool", `{"command":"view","path":"/tmp/example.py"}`)),
		stop(1391, 49),
	},
	"strict_tool_use_then_answer": {
		calls(561, 54, call("toolu_01DeBjbbqmpp3RkK5ANyNZ8o", "get_weather", `{"city":"San Francisco"}`)),
		stop(640, 26),
	},
	"text_then_parallel_tool_use": {
		calls(612, 101,
			call("toolu_01BBTvQnxdxk7vPHD1ytXyGs", "get_weather", `{"city":"Denver"}`),
			call("toolu_017Q9pGQ9Hx126pyyLLnVqJV", "get_elevation", `{"city":"Denver"}`)),
		stop(798, 50),
	},
	"text_then_tool_use": {
		calls(383, 65, call("toolu_01JJ8TequDsrEU2pv1QFRWAK", "get_user_country", `{}`)),
		stop(460, 91),
	},
	"text_then_tool_use_strict_unsupported": {
		calls(377, 64, call("toolu_01UaDMN725vkJqkK44k4Dzs1", "get_weather", `{"city":"Amsterdam"}`)),
		stop(464, 30),
	},
	"thinking_two_turns": {stop(43, 321), stop(354, 525)},
	"tool_choice_any":    {calls(655, 38, call("toolu_01Dxp8hdnkA8bsrVJJ8LB9q1", "get_weather", `{"city":"Paris"}`))},
	"tool_result_is_error": {
		calls(582, 52, call("toolu_01TPSnLV2mMXtrhmUcLnz8LV", "lookup", `{"item":"missing"}`)),
		stop(658, 5),
	},
	"tool_use_then_answer": {
		calls(572, 53, call("toolu_01WN4AuToBnJyXNQXwQBBebj", "get_weather", `{"city":"Paris"}`)),
		stop(646, 31),
	},
	"tool_use_then_output_tool": {
		calls(732, 38, call("toolu_01ALzezEGs8tF6RPL5m4hRZA", "get_weather", `{"city":"Paris"}`)),
		calls(805, 68, call("toolu_018twzVJ3jJf4UfRAjyvBMLo", "final_result", `{"city":"Paris","summary":"The weather in Paris is sunny with a temperature of 22°C."}`)),
	},
	"tool_with_thinking": {
		calls(398, 155, call("toolu_01YGzqpRE16Vricda3Aqcejo", "get_user_country", `{}`)),
		stop(566, 126),
	},
}

// cloudGolden is what the golden file of an exchange holds: the reply,
// and for a stream its deltas.
type cloudGolden struct {
	Response *chat.Response `json:"response"`
	Deltas   []chat.Delta   `json:"deltas,omitempty"`
}

// TestCloud replays every recording of api.anthropic.com: each exchange
// through Chat, or Stream when it was streamed. The first request is
// built from the recorded one; each next request from the provider's own
// reply, kept whole, and the new input of the recorded next request, and
// what the provider sent must be the recorded request (see sentAs for
// the forms that may differ). So ids pair up, and thinking blocks,
// signatures and redacted data go back unchanged and in place. Each reply
// is checked against cloudWants and its golden file; a stream's deltas
// must add up to its reply. Each recorded error must come out as its
// sentinel, with the server's message and the body's request id.
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
			m := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), APIKey: testKey})
			req := chatRequest(t, f.Exchanges[0].Request)
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
				checkSDK(t, sent.Body)
				want, got := sentAs(t, ex.Request, sent.Body)
				require.JSONEq(t, string(want), string(got), "request %d differs from the recorded one", i+1)

				w := wants[i]
				if w.err != nil {
					assert.Nil(t, resp)
					pe := checkProviderError(t, err, w.err, ex.Status, req.Model)
					assert.Equal(t, w.msg, pe.Message)
					assert.Equal(t, w.requestID, pe.RequestID)
					assert.Equal(t, 1, pe.Attempts)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, w.finish, resp.FinishReason)
				assert.Equal(t, w.usage, resp.Usage)
				checkCalls(t, w.calls, resp.Message.ToolCalls)
				if f.Stream(i) {
					text, streamed := providertest.Assemble(deltas)
					assert.Equal(t, resp.Message.Content, text, "the text deltas add up to the reply's text")
					checkCalls(t, resp.Message.ToolCalls, streamed)
				}
				checkCloudGolden(t, f.Name, i, cloudGolden{Response: resp, Deltas: deltas})
			}
			assert.Equal(t, len(f.Exchanges), c.Count(), "one request per exchange, none retried")
		})
	}
}

// checkCalls compares calls by id, name and arguments as JSON values; an
// empty argument text stands for {}, as the package sends it.
func checkCalls(t *testing.T, want, got []chat.ToolCall) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].ID, got[i].ID)
		assert.Equal(t, want[i].Name, got[i].Name)
		w, g := string(want[i].Arguments), string(got[i].Arguments)
		if w == "" {
			w = "{}"
		}
		if g == "" {
			g = "{}"
		}
		assert.JSONEq(t, w, g, "arguments of call %d", i)
	}
}

// checkCloudGolden compares a reply with its golden file, or writes the
// file with -update.
func checkCloudGolden(t *testing.T, fixture string, i int, g cloudGolden) {
	t.Helper()
	got, err := json.Marshal(g)
	require.NoError(t, err)
	name := filepath.Join("cloud", fixture+"."+twoDigits(i+1))
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Join("testdata", "golden", "cloud"), 0o755))
	}
	providertest.CheckGolden(t, name, got, *update)
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }
