package anthropic_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolcall-go/toolcall/internal/providertest"
)

// checkSDK decodes a request body into the official SDK's request type,
// MessageNewParams of github.com/anthropics/anthropic-sdk-go/v2, encodes it
// back and compares the two as JSON values, after the SDK's own forms are
// applied to the body (normalizeSDK). Every request the test servers
// receive goes through it: a field this package writes that the SDK does
// not know, or writes in a form the SDK reads differently, fails the test
// that sent it.
func checkSDK(t *testing.T, body []byte) {
	t.Helper()
	want, got, err := sdkRoundTrip(body)
	if assert.NoError(t, err, "the SDK cannot decode the request body %s", body) {
		assert.JSONEq(t, string(want), string(got), "the SDK's MessageNewParams does not encode the request body back as sent")
	}
}

// sdkRoundTrip returns the body normalised (want) and the body decoded
// into MessageNewParams and encoded again (got).
func sdkRoundTrip(body []byte) (want, got []byte, err error) {
	var p sdk.MessageNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, nil, err
	}
	if got, err = json.Marshal(p); err != nil {
		return nil, nil, err
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, nil, err
	}
	want, err = json.Marshal(normalizeSDK(v))
	return want, got, err
}

// normalizeSDK applies to a request body the forms the SDK's types give
// it, which are the differences allowed:
//   - "stream" is not a field of MessageNewParams: the SDK's NewStreaming
//     adds it to the body it sends;
//   - temperature, top_p and top_k: API version 2026-10-21, which the SDK
//     speaks, removed them, and its types drop them; this package sends
//     them only under Version20230601;
//   - a tool_result's content given as a string becomes one text block,
//     the SDK's only form of it.
func normalizeSDK(v any) any {
	body, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range []string{"stream", "temperature", "top_p", "top_k"} {
		delete(body, k)
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		if s, ok := m["content"].(string); ok {
			m["content"] = []any{map[string]any{"type": "text", "text": s}}
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			b, _ := b.(map[string]any)
			if s, ok := b["content"].(string); ok && b["type"] == "tool_result" {
				b["content"] = []any{map[string]any{"type": "text", "text": s}}
			}
		}
	}
	return body
}

// TestRecordedRequestsDecodeInSDK: the requests recorded from the
// llama-server and Ollama clients, 2023-06-01 bodies with temperature,
// pass the same check as this package's requests.
func TestRecordedRequestsDecodeInSDK(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.request.json"))
	require.NoError(t, err)
	require.Len(t, files, 12)
	for _, f := range files {
		body, err := os.ReadFile(f)
		require.NoError(t, err)
		t.Run(f, func(t *testing.T) { checkSDK(t, body) })
	}
}

// TestSDKCheckFails: the check is not vacuous: a field the SDK drops, a
// tool choice it cannot read and a message it cannot decode fail it.
func TestSDKCheckFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body string }{
		{"unknown top-level field", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"not_a_field":1}`},
		{"tool choice without type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"tool_choice":{"name":"x"}}`},
		{"content block without type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"text":"hi"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got, err := sdkRoundTrip([]byte(tc.body))
			if err == nil {
				assert.NotEqual(t, providertest.Canonical(t, want), providertest.Canonical(t, got))
			}
		})
	}
}

// TestSDKDivergences pins why this package writes its wire types instead
// of using the SDK's (see "The official SDK" in the package
// documentation), so that an SDK upgrade that changes them shows.
func TestSDKDivergences(t *testing.T) {
	t.Parallel()
	t.Run("2023-06-01 sampling dropped", func(t *testing.T) {
		// MessageNewParams, of API version 2026-10-21, has no temperature,
		// top_p or top_k: a request for llama-server, Ollama or any server
		// of version 2023-06-01 cannot be written with it. Nor has it
		// "stream", which its streaming call adds to the body.
		var p sdk.MessageNewParams
		require.NoError(t, json.Unmarshal([]byte(`{"model":"m","max_tokens":5,"temperature":0.5,"top_p":0.9,"top_k":3,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`), &p))
		back, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`, string(back))
	})
	t.Run("reply blocks rewritten", func(t *testing.T) {
		// The SDK's way back from a reply to a request, Message.ToParam,
		// writes the blocks again: keys in another order and <, > and &
		// escaped. This package sends a thinking reply's blocks back as
		// they came (TestThinkingRoundTrip).
		raw, err := os.ReadFile(filepath.Join("testdata", "h_thinking_tools.response.json"))
		require.NoError(t, err)
		var msg sdk.Message
		require.NoError(t, json.Unmarshal(raw, &msg))
		back, err := json.Marshal(msg.ToParam())
		require.NoError(t, err)
		var sent struct {
			Content json.RawMessage `json:"content"`
		}
		require.NoError(t, json.Unmarshal(back, &sent))
		received := rawContent(t, "h_thinking_tools")
		assert.JSONEq(t, string(received), string(sent.Content), "the same blocks")
		assert.NotEqual(t, string(received), string(sent.Content), "not the same bytes")
		assert.Contains(t, string(sent.Content), `{"signature":"EqQB`)
		assert.Contains(t, string(sent.Content), `\u003cboth\u003e`)
	})
}

// TestRootImportsNeither: a program that imports only package toolcall
// compiles neither this package nor the SDK, and this package's own build
// needs only the standard library and the module's packages.
func TestRootImportsNeither(t *testing.T) {
	t.Parallel()
	providertest.CheckImportsNeither(t, "providers/anthropic", "anthropic-sdk-go")
}
