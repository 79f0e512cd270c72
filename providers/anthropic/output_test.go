package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/providers/anthropic"
)

// TestTypedAnswerOnTheRecordedAPI: Prompt.Answer through this provider
// asks natively, with output_config.format json_schema, as the recording
// parallel_tool_use_no_text of api.anthropic.com did; two tools run, and
// the answer Claude gave in text decodes. The output_config sent is the
// recorded one.
func TestTypedAnswerOnTheRecordedAPI(t *testing.T) {
	t.Parallel()
	const rec = "cloud/anthropic-messages/parallel_tool_use_no_text/"
	srv, got := replay(t, rec+"01", rec+"02")
	m := newModel(srv, anthropic.Config{Model: "claude-sonnet-4-5"})
	type cityIn struct {
		City string `json:"city"`
	}
	country := toolcall.MustFunc("lookup_country", "", func(context.Context, cityIn) (string, error) { return "Japan", nil }, toolcall.WithStrict(true))
	founded := toolcall.MustFunc("get_founded_year", "", func(context.Context, cityIn) (string, error) { return "1457", nil })
	var answer struct {
		City       string `json:"city"`
		Country    string `json:"country"`
		Population int    `json:"population"`
	}
	resp, err := toolcall.NewClient(m, toolcall.WithTools(country, founded)).Prompt("Give me complete details about Tokyo").Answer(&answer).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "Tokyo", answer.City)
	assert.Equal(t, "Japan", answer.Country)
	assert.Equal(t, 14000000, answer.Population)
	assert.Zero(t, resp.Repairs)
	for i := range 2 {
		var sent, recorded struct {
			OutputConfig json.RawMessage `json:"output_config"`
		}
		require.NoError(t, json.Unmarshal(got.Get(t, i).Body, &sent))
		raw, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("%s%02d.request.json", rec, i+1)))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &recorded))
		assert.JSONEq(t, string(recorded.OutputConfig), string(sent.OutputConfig), "request %d", i+1)
	}
}

// TestOutputRefusedByTheOldVersion: version 2023-06-01 has no
// output_config: the provider does not offer it, and refuses a request
// with Request.Output rather than send it without.
func TestOutputRefusedByTheOldVersion(t *testing.T) {
	t.Parallel()
	srv, got := serve(t)
	m := newModel(srv, anthropic.Config{Version: anthropic.Version20230601})
	assert.False(t, m.StructuredOutput())
	assert.True(t, newModel(srv, anthropic.Config{}).StructuredOutput())
	_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("Hi")},
		Output: &chat.OutputFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)}})
	require.ErrorIs(t, err, chat.ErrBadRequest)
	assert.ErrorContains(t, err, "API version 2023-06-01 has no output schema; ask for the answer with chat.OutputTool")
	assert.Zero(t, got.Count())
}
