package gemini_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/gemini"
	"github.com/toolcall-go/toolcall/toolcalltest"
)

// TestLoopOnRecordedReplies runs the toolcall loop on the recorded
// replies of function_call_then_answer: the call runs with the model's
// arguments, its result goes back, and the answer ends the loop; the
// history is one a model can be sent again.
func TestLoopOnRecordedReplies(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "call", true: "stream"}[stream], func(t *testing.T) {
			t.Parallel()
			var f providertest.CloudFixture
			for _, g := range providertest.LoadCloud(t, cloudAPI, slices.Collect(maps.Keys(cloudWants))) {
				if g.Name == "function_call_then_answer" {
					f = g
				}
			}
			srv, c := providertest.ReplayCloud(t, f)
			m := gemini.New(gemini.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), APIKey: testKey, Model: "gemini-2.5-flash"})
			weather := toolcall.MustFunc("get_weather", "Get the current weather for a city.", func(ctx context.Context, in struct {
				City string `json:"city"`
			}) (string, error) {
				return "Sunny, 22C in " + in.City, nil
			})
			prompt := toolcall.NewClient(m).Prompt("What's the weather in Paris?").Tools(weather)
			var resp *toolcall.Response
			var err error
			if stream {
				// The recordings are whole replies: Stream reads them as such.
				for ev, e := range prompt.Stream(context.Background()) {
					if e != nil {
						err = e
					}
					if ev.Kind == toolcall.EventDone {
						resp = ev.Response
					}
				}
			} else {
				resp, err = prompt.Call(context.Background())
			}
			require.NoError(t, err)
			assert.Equal(t, "The weather in Paris is sunny with a temperature of 22C.", resp.Content())
			require.Len(t, resp.Executions, 1)
			assert.Equal(t, "Sunny, 22C in Paris", resp.Executions[0].Result)
			assert.Equal(t, 2, c.Count())
			require.NoError(t, toolcalltest.CheckHistory(resp.History))
		})
	}
}

// TestReplyCutShort: a reply with a complete call and finishReason
// MAX_TOKENS finishes with FinishLength, and a Client runs none of its
// calls, with Chat and with Stream.
func TestReplyCutShort(t *testing.T) {
	t.Parallel()
	const wantErr = `toolcall: model reply cut short: finish reason "length"; its 1 tool call was not run`
	const body = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"send_email","args":{"to":"ana@example.com","subject":"Invoice"}}}]},"finishReason":"MAX_TOKENS","index":0}],` +
		`"usageMetadata":{"promptTokenCount":90,"candidatesTokenCount":12,"totalTokenCount":102},"modelVersion":"gemini-test-001"}`
	want := &chat.Response{
		Message:      chat.AssistantMessage("", call("call_0", "send_email", `{"to":"ana@example.com","subject":"Invoice"}`)),
		FinishReason: chat.FinishLength,
		Usage:        chat.Usage{PromptTokens: 90, CompletionTokens: 12, TotalTokens: 102},
		Model:        "gemini-test-001",
		Attempts:     1,
	}
	want.Message.ProviderData = json.RawMessage(`{"gemini_parts":[{"functionCall":{"name":"send_email","args":{"to":"ana@example.com","subject":"Invoice"}}}]}`)
	for _, tc := range []struct {
		name   string
		body   string
		stream bool
	}{
		{name: "chat", body: body},
		{name: "stream", body: sse(body), stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := serve(t, reply(tc.body))
			providertest.CutReply(t, newModel(srv, gemini.Config{}), chat.Options{}, got, tc.stream, want, wantErr)
		})
	}
}
