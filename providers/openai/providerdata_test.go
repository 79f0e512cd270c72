package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/openai"
)

// TestCloudGeminiLoop runs the recorded Gemini conversation through the
// tool loop of a Client: the thought signature Gemini put on the message
// (not on the call) goes back on that message, the call without an id
// gets one the tool result answers, and the second request is the recorded
// one but for the normalizations expectedBody states.
func TestCloudGeminiLoop(t *testing.T) {
	t.Parallel()
	const name = "gemini_compat_thought_signature"
	var f providertest.CloudFixture
	for _, fx := range providertest.LoadCloud(t, cloudAPI, cloudNames()) {
		if fx.Name == name {
			f = fx
		}
	}
	require.Equal(t, name, f.Name)
	first := firstRequest(t, f.Exchanges[0].Request)
	require.Len(t, first.Tools, 1)
	for _, stream := range []bool{false, true} {
		srv, got := providertest.ReplayCloud(t, f)
		m := openai.New(openai.Config{BaseURL: srv.URL + "/v1beta/openai", APIKey: testKey, HTTPClient: srv.Client()})
		now, err := toolcall.NewTool(first.Tools[0], func(context.Context, json.RawMessage) (string, error) { return "Noon", nil })
		require.NoError(t, err)
		prompt := toolcall.NewClient(m).Prompt(first.Messages[0].Content).Model(first.Model).Tools(now).ToolChoice(first.ToolChoice)
		var resp *toolcall.Response
		if stream {
			// The recording answered with JSON bodies, which a stream
			// takes as they are.
			for ev, err := range prompt.Stream(context.Background()) {
				require.NoError(t, err)
				if ev.Kind == toolcall.EventDone {
					resp = ev.Response
				}
			}
		} else {
			resp, err = prompt.Call(context.Background())
			require.NoError(t, err)
		}
		require.NotNil(t, resp)
		assert.Equal(t, "The current time is Noon.", resp.Content())
		assert.JSONEq(t, string(geminiData(geminiSig2)), string(resp.Message.ProviderData), "the answer's signature is kept too")

		body := got.Get(t, 1).Body
		kept := map[int]map[string]json.RawMessage{1: {
			"extra_content":     json.RawMessage(`{"google":{"thought":true,"thought_signature":"` + geminiSig1 + `"}}`),
			"thought_signature": json.RawMessage(`"` + geminiSig1 + `"`),
		}}
		want := expectedBody(t, f.Exchanges[1].Request, map[string]string{"pyd_ai_cee885c699414386a7e14b7ec43cadbc": "call_0"}, kept)
		if stream {
			// The recording did not stream: its request has "stream":
			// false and no stream_options.
			var b map[string]any
			require.NoError(t, json.Unmarshal(body, &b))
			assert.Equal(t, true, b["stream"])
			assert.Equal(t, map[string]any{"include_usage": true}, b["stream_options"])
			b["stream"] = false
			delete(b, "stream_options")
			body = mustJSON(t, b)
		}
		assert.JSONEq(t, string(want), string(body), "stream %v", stream)
	}
}

func cloudNames() []string {
	names := make([]string, 0, len(cloudWant))
	for name := range cloudWant {
		names = append(names, name)
	}
	return names
}

// TestStreamMessageFields: a stream keeps the first extra_content object
// and thought_signature string its message's deltas bring, as Chat keeps
// them from a whole message, and they go back with the message.
func TestStreamMessageFields(t *testing.T) {
	t.Parallel()
	stream := `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"It is"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"content":" noon.","thought_signature":null}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"extra_content":{"google":{"thought_signature":"sig1"}},"thought_signature":"sig1"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"extra_content":{"google":{"thought_signature":"sig2"}},"thought_signature":"sig2"},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	resp, err := cannedModel(200, "text/event-stream", stream).Stream(context.Background(), fuzzRequest, nil)
	require.NoError(t, err)
	assert.Equal(t, "It is noon.", resp.Message.Content)
	assert.JSONEq(t, `{"extra_content":{"google":{"thought_signature":"sig1"}},"thought_signature":"sig1"}`, string(resp.Message.ProviderData))

	sent := &providertest.Capture{}
	m := capturingModel(sent)
	_, err = m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("time?"), resp.Message, chat.UserMessage("thanks")}})
	require.NoError(t, err)
	var body struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(sent.Get(t, 0).Body, &body))
	require.Len(t, body.Messages, 3)
	assert.JSONEq(t, `{"role":"assistant","content":"It is noon.","extra_content":{"google":{"thought_signature":"sig1"}},"thought_signature":"sig1"}`,
		string(mustJSON(t, body.Messages[1])))
	for _, i := range []int{0, 2} {
		assert.NotContains(t, body.Messages[i], "extra_content")
		assert.NotContains(t, body.Messages[i], "thought_signature")
	}
}

// TestMessageProviderData: what of an assistant message's ProviderData is
// sent back. Another provider's data, or none, adds nothing; data this
// package cannot send back is refused before the request is sent, with
// the message it is in.
func TestMessageProviderData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		want       string // the fields added to the message, as JSON
		wantErr    string
	}{
		{name: "none", data: ``, want: `{}`},
		{name: "anthropic's blocks", data: `{"anthropic_content":[{"type":"thinking","thinking":"hm","signature":"s"}]}`, want: `{}`},
		{name: "a list", data: `[1,2]`, want: `{}`},
		{name: "gemini", data: `{"extra_content":{"google":{"thought_signature":"s"}},"thought_signature":"s"}`,
			want: `{"extra_content":{"google":{"thought_signature":"s"}},"thought_signature":"s"}`},
		{name: "signature only", data: ` {"thought_signature":"s"}`, want: `{"thought_signature":"s"}`},
		{name: "nulls", data: `{"extra_content":null,"thought_signature":null}`, want: `{}`},
		{name: "not JSON", data: `{"extra_content":`, wantErr: "message 1: ProviderData is not a valid JSON object"},
		{name: "extra_content not an object", data: `{"extra_content":"s"}`, wantErr: "message 1: ProviderData: extra_content is string, want an object"},
		{name: "signature not a string", data: `{"thought_signature":{"a":1}}`, wantErr: "message 1: ProviderData: thought_signature is object, want a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sent := &providertest.Capture{}
			asst := chat.AssistantMessage("ok", call("c1", "now", `{}`))
			asst.ProviderData = json.RawMessage(tc.data)
			req := &chat.Request{Messages: []chat.Message{chat.UserMessage("hi"), asst, {Role: chat.RoleTool, ToolCallID: "c1", Content: "noon"}}}
			_, err := capturingModel(sent).Chat(context.Background(), req)
			if tc.wantErr != "" {
				pe := checkProviderError(t, err, chat.ErrBadRequest, 0, "m")
				assert.True(t, strings.HasPrefix(pe.Message, tc.wantErr), pe.Message)
				assert.Zero(t, sent.Count(), "nothing is sent")
				return
			}
			require.NoError(t, err)
			var body struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(sent.Get(t, 0).Body, &body))
			added := map[string]json.RawMessage{}
			for k, v := range body.Messages[1] {
				if !strings.Contains(" role content tool_calls ", " "+k+" ") {
					added[k] = v
				}
			}
			assert.JSONEq(t, tc.want, string(mustJSON(t, added)))
		})
	}
}

func capturingModel(sent *providertest.Capture) *openai.Model {
	ok := []byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	return openai.New(openai.Config{BaseURL: "http://compat.invalid/v1", APIKey: testKey, Model: "m",
		HTTPClient: &http.Client{Transport: cannedBody{status: 200, contentType: "application/json", body: ok, sent: sent}}})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
