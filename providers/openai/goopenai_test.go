package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolcall-go/toolcall/internal/providertest"
)

// TestGoOpenAILimitations pins the go-openai behaviours that made this
// adapter send requests and read responses itself instead of through
// go-openai's Client (see "go-openai" in the package documentation). If an
// upgrade fixes one, this test fails: reconsider the choice then.
func TestGoOpenAILimitations(t *testing.T) {
	t.Parallel()
	newClient := func(status int, contentType, body string, sent *providertest.Capture) *goopenai.Client {
		cfg := goopenai.DefaultConfig(testKey)
		cfg.BaseURL = "http://compat.invalid/v1"
		cfg.HTTPClient = &http.Client{Transport: cannedBody{status: status, contentType: contentType, body: []byte(body),
			header: http.Header{"Retry-After": {"20"}}, sent: sent}}
		return goopenai.NewClientWithConfig(cfg)
	}
	ctx := context.Background()

	t.Run("arguments as an object fail the whole reply", func(t *testing.T) {
		t.Parallel()
		c := newClient(200, "application/json", string(providertest.LoadRecording(t, "h_object_arguments").Body), nil)
		_, err := c.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{Model: "m"})
		var typ *json.UnmarshalTypeError
		assert.ErrorAs(t, err, &typ)
	})

	t.Run("temperature 0 and empty tool results are not sent", func(t *testing.T) {
		t.Parallel()
		sent := &providertest.Capture{}
		c := newClient(200, "application/json", string(providertest.LoadRecording(t, "llamacpp/b_plain").Body), sent)
		_, err := c.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{
			Model:       "m",
			Temperature: 0,
			Messages:    []goopenai.ChatCompletionMessage{{Role: "tool", ToolCallID: "call_1", Content: ""}},
		})
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.Unmarshal(sent.Get(t, 0).Body, &body))
		assert.NotContains(t, body, "temperature")
		assert.NotContains(t, body["messages"].([]any)[0], "content")
	})

	t.Run("errors lose Retry-After and print the raw body", func(t *testing.T) {
		t.Parallel()
		c := newClient(429, "text/html", "<html>slow down, Bearer "+testKey+"</html>", nil)
		_, err := c.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{Model: "m"})
		var re *goopenai.RequestError
		require.ErrorAs(t, err, &re)
		assert.Contains(t, err.Error(), testKey, "go-openai prints the body, with whatever it echoes")
		// Neither error type has a place for the response headers.
		for _, v := range []any{goopenai.RequestError{}, goopenai.APIError{}} {
			typ := reflect.TypeOf(v)
			for i := range typ.NumField() {
				assert.NotEqual(t, reflect.TypeFor[http.Header](), typ.Field(i).Type, "%s.%s", typ, typ.Field(i).Name)
			}
		}
	})

	t.Run("a stream cut mid-event ends like a complete one", func(t *testing.T) {
		t.Parallel()
		ends := func(body string) error {
			s, err := newClient(200, "text/event-stream", body, nil).CreateChatCompletionStream(ctx, goopenai.ChatCompletionRequest{Model: "m"})
			require.NoError(t, err)
			defer s.Close()
			for {
				if _, err := s.Recv(); err != nil {
					return err
				}
			}
		}
		complete := string(providertest.LoadRecording(t, "llamacpp/d2_plain_stream").Body)
		cut := string(providertest.LoadRecording(t, "h_stream_truncated").Body)
		assert.True(t, errors.Is(ends(complete), io.EOF))
		assert.True(t, errors.Is(ends(cut), io.EOF), "the cut stream is not reported")
	})

	t.Run("requests refused by model name before sending", func(t *testing.T) {
		t.Parallel()
		sent := &providertest.Capture{}
		c := newClient(200, "application/json", string(providertest.LoadRecording(t, "llamacpp/b_plain").Body), sent)
		//lint:ignore SA1019 the deprecated field is what go-openai refuses here
		_, err := c.CreateChatCompletion(ctx, goopenai.ChatCompletionRequest{Model: "o3-mini", MaxTokens: 64})
		assert.ErrorIs(t, err, goopenai.ErrReasoningModelMaxTokensDeprecated)
		assert.Zero(t, sent.Count())
	})
}
