package openairesponses_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openairesponses"
)

// TestSendBack takes a recorded reply of the real API, lets the caller
// change it or not, and checks the input items of the next request: the
// reply's items in its order, each reasoning item before the item that
// followed it, as received; what the caller changed as the message says,
// without the reasoning item that led to it, which the API would refuse
// ("provided without its required following item").
func TestSendBack(t *testing.T) {
	t.Parallel()
	const (
		meaning   = "cloud/openai-responses/error_400_reasoning_without_following_item/01"
		phase     = "cloud/openai-responses/reasoning_text_and_function_call/01"
		noEncrypt = "cloud/openai-responses/reasoning_without_encrypted_content/01"
	)
	for _, tc := range []struct {
		name   string
		reply  string
		change func(m *chat.Message)
		want   []string // itemSummary of the assistant's items
	}{
		{name: "reasoning and text", reply: meaning, want: []string{
			"reasoning rs_68c42de022c881948db7ed1cc2529f2e0202c9ad459e0d23",
			"message assistant msg_68c42de31d348194a251b43ad913ef140202c9ad459e0d23"}},
		{name: "edited text", reply: meaning,
			change: func(m *chat.Message) { m.Content = "The meaning of life is 42" },
			want:   []string{"message assistant"}},
		{name: "reasoning, commentary and call", reply: phase, want: []string{
			"reasoning rs_094ebefab06f6c100069efd58250cc8195b3b443e9b3d9bd84",
			"message assistant msg_094ebefab06f6c100069efd58302b4819587854b18d82b5690",
			"function_call call_ALAJMWK9buNN7RXxxXbECcHa fc_094ebefab06f6c100069efd5833ce081959f3a131863e89e53"}},
		{name: "edited commentary", reply: phase,
			change: func(m *chat.Message) { m.Content = "Looking it up." },
			want: []string{"message assistant",
				"function_call call_ALAJMWK9buNN7RXxxXbECcHa fc_094ebefab06f6c100069efd5833ce081959f3a131863e89e53"}},
		{name: "changed call", reply: phase,
			change: func(m *chat.Message) { m.ToolCalls[0].ID = "call_mine" },
			want: []string{
				"reasoning rs_094ebefab06f6c100069efd58250cc8195b3b443e9b3d9bd84",
				"message assistant msg_094ebefab06f6c100069efd58302b4819587854b18d82b5690",
				"function_call call_mine"}},
		{name: "added call", reply: phase,
			change: func(m *chat.Message) { m.ToolCalls = append(m.ToolCalls, call("call_more", "get_capital", `{}`)) },
			want: []string{
				"reasoning rs_094ebefab06f6c100069efd58250cc8195b3b443e9b3d9bd84",
				"message assistant msg_094ebefab06f6c100069efd58302b4819587854b18d82b5690",
				"function_call call_ALAJMWK9buNN7RXxxXbECcHa fc_094ebefab06f6c100069efd5833ce081959f3a131863e89e53",
				"function_call call_more"}},
		{
			// o3-mini without include: its reasoning item has no
			// encrypted content and names an item kept on the server,
			// which store false does not keep: the text goes alone.
			name: "reasoning without encrypted content", reply: noEncrypt,
			want: []string{"message assistant"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first := providertest.LoadRecording(t, tc.reply)
			srv, got := serve(t, func(w http.ResponseWriter, i int) {
				if i == 0 {
					first.ServeHTTP(w, nil)
					return
				}
				providertest.LoadRecording(t, "llamacpp/e_unknown_model").ServeHTTP(w, nil)
			})
			m := newModel(srv, openairesponses.Config{})
			ask := chat.UserMessage("Question?")
			resp, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{ask}})
			require.NoError(t, err)
			msg := resp.Message
			msg.ToolCalls = append([]chat.ToolCall(nil), msg.ToolCalls...)
			if tc.change != nil {
				tc.change(&msg)
			}
			msgs := []chat.Message{ask, msg}
			for _, c := range msg.ToolCalls {
				msgs = append(msgs, chat.ToolMessage(c, "Potato City"))
			}
			_, err = m.Chat(context.Background(), &chat.Request{Messages: msgs})
			require.NoError(t, err)
			items := inputItems(t, got.Get(t, 1).Body)
			var kinds []string
			for _, it := range items[1 : len(items)-len(msg.ToolCalls)] {
				kinds = append(kinds, itemSummary(it))
			}
			assert.Equal(t, tc.want, kinds)

			// What goes back as received is what the reply had.
			output := recordedOutput(t, first.Body)
			for _, it := range items {
				var head struct{ ID, Type string }
				require.NoError(t, json.Unmarshal(it, &head))
				switch {
				case head.Type == "reasoning":
					assert.JSONEq(t, string(output[head.ID]), string(it))
				case head.Type == "message" && head.ID != "":
					assert.Equal(t, msg.Content, messageText(t, it))
					var sent, recv map[string]any
					require.NoError(t, json.Unmarshal(it, &sent))
					require.NoError(t, json.Unmarshal(output[head.ID], &recv))
					for _, p := range recv["content"].([]any) {
						delete(p.(map[string]any), "logprobs")
					}
					assert.Equal(t, recv, sent, "the message item as received, without logprobs")
				}
			}
		})
	}
}

// recordedOutput returns the output items of a reply by id.
func recordedOutput(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var r struct{ Output []json.RawMessage }
	require.NoError(t, json.Unmarshal(body, &r))
	byID := map[string]json.RawMessage{}
	for _, raw := range r.Output {
		var head struct{ ID string }
		require.NoError(t, json.Unmarshal(raw, &head))
		byID[head.ID] = raw
	}
	return byID
}

func messageText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m struct{ Content []struct{ Text string } }
	require.NoError(t, json.Unmarshal(raw, &m))
	var s string
	for _, p := range m.Content {
		s += p.Text
	}
	return s
}

// TestSendBackOrder: the order kept in ProviderData is the order sent,
// whatever it is: a reasoning item that ended a reply stays last, and a
// message item between two calls stays between them.
func TestSendBackOrder(t *testing.T) {
	t.Parallel()
	pd := `{"openai_responses":{"output":[` +
		`{"call":0,"id":"fc_1","call_id":"call_1"},` +
		`{"item":{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"And then:","annotations":[]}]}},` +
		`{"item":{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA1"}},` +
		`{"call":1,"id":"fc_2","call_id":"call_2"},` +
		`{"item":{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAA2"}}]}}`
	msg := chat.AssistantMessage("And then:", call("call_1", "now", "{}"), call("call_2", "now", ""))
	msg.ProviderData = json.RawMessage(pd)
	srv, got := replay(t, "llamacpp/e_unknown_model")
	m := newModel(srv, openairesponses.Config{})
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Time?"), msg}})
	require.NoError(t, err)
	var kinds []string
	for _, it := range inputItems(t, got.Get(t, 0).Body) {
		kinds = append(kinds, itemSummary(it))
	}
	assert.Equal(t, []string{"message user", "function_call call_1 fc_1", "message assistant msg_1",
		"reasoning rs_1", "function_call call_2 fc_2", "reasoning rs_2"}, kinds)
}
