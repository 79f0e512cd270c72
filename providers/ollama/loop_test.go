package ollama_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"github.com/toolcall-go/toolcall/providers/ollama"
)

// TestClientLoop runs the library's tool loop over the captured exchanges:
// the model calls get_weather, the tool runs, the model answers.
func TestClientLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		recordings []string
		stream     bool
	}{
		{name: "chat", recordings: []string{"c2_tools", "e_loop"}},
		{name: "chat older server", recordings: []string{"h_tools_no_id", "e_loop"}},
		// The second reply of a streamed loop must be a stream too.
		{name: "stream", recordings: []string{"c3_tools_stream", "d_plain_stream"}, stream: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, got := replay(t, tc.recordings...)
			weather, err := toolcall.NewTool(weatherTool, func(ctx context.Context, args json.RawMessage) (string, error) {
				return `{"temperature":21}`, nil
			})
			require.NoError(t, err)
			client := toolcall.NewClient(newModel(srv, ollama.Config{}))
			prompt := client.Prompt("What is the weather in Paris?").Tools(weather)

			var content string
			if tc.stream {
				for ev, err := range prompt.Stream(context.Background()) {
					require.NoError(t, err)
					if ev.Kind == toolcall.EventDone {
						content = ev.Response.Content()
					}
				}
			} else {
				resp, err := prompt.Call(context.Background())
				require.NoError(t, err)
				content = resp.Content()
			}

			assert.NotEmpty(t, content)
			// The second request replays the assistant's call with object
			// arguments and answers it with tool_name and tool_call_id.
			providertest.CheckGolden(t, "loop_"+providertest.Slug(tc.name), got.Get(t, 1).Body, *update)
		})
	}
}
