package openairesponses_test

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkSDK checks that a request body decodes without error into
// openai-go's request types and encodes back to the same JSON value:
// ResponseNewParams for the body, and, since its decoding of the body
// drops an input it cannot read and the name of a function tool choice
// (TestSDKLimitations), each input item as a ResponseInputItemUnionParam
// and a tool choice object as a ToolChoiceFunctionParam on their own.
// "stream" is not a field of ResponseNewParams: the SDK adds it itself.
func checkSDK(t *testing.T, body []byte) {
	t.Helper()
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &fields), "request body")
	input := fields["input"]
	delete(fields, "input")
	delete(fields, "stream")
	if choice := fields["tool_choice"]; len(choice) > 0 && choice[0] == '{' {
		delete(fields, "tool_choice")
		var c responses.ToolChoiceFunctionParam
		require.NoError(t, json.Unmarshal(choice, &c), "tool_choice %s", choice)
		assertSameJSON(t, choice, c, "tool_choice")
	}
	rest, err := json.Marshal(fields)
	require.NoError(t, err)
	var p responses.ResponseNewParams
	require.NoError(t, json.Unmarshal(rest, &p), "request %s", rest)
	assertSameJSON(t, rest, p, "request")

	var items []json.RawMessage
	require.NoError(t, json.Unmarshal(input, &items), "input")
	for i, raw := range items {
		var head struct{ Type, ID string }
		require.NoError(t, json.Unmarshal(raw, &head), "input item %d", i)
		if head.Type == "message" && head.ID != "" {
			// An output message sent back: the union takes it for an
			// input message and drops its id (TestSDKLimitations).
			var m responses.ResponseOutputMessageParam
			require.NoError(t, json.Unmarshal(raw, &m), "input item %d: %s", i, raw)
			assertSameJSON(t, raw, m, "output message item")
			continue
		}
		var it responses.ResponseInputItemUnionParam
		require.NoError(t, json.Unmarshal(raw, &it), "input item %d: %s", i, raw)
		assertSameJSON(t, raw, it, "input item")
	}
}

// assertSameJSON checks that v encodes to the JSON value want.
func assertSameJSON(t *testing.T, want json.RawMessage, v any, what string) {
	t.Helper()
	got, err := json.Marshal(v)
	require.NoError(t, err, what)
	assert.JSONEq(t, string(want), string(got), "%s does not survive openai-go's types", what)
}

// TestSDKLimitations pins the openai-go v3.98.0 behaviours that made this
// package write its own wire types (see "openai-go" in the package
// documentation) and checkSDK decode parts of a body on their own. If an
// upgrade changes one, this test fails: reconsider the choice then.
func TestSDKLimitations(t *testing.T) {
	t.Parallel()

	t.Run("an output message item loses its id and status in the input union", func(t *testing.T) {
		t.Parallel()
		const item = `{"type":"message","role":"assistant","id":"msg_1","status":"completed","phase":"commentary","content":[{"type":"output_text","text":"Hi","annotations":[]}]}`
		var it responses.ResponseInputItemUnionParam
		require.NoError(t, json.Unmarshal([]byte(item), &it))
		out, err := json.Marshal(it)
		require.NoError(t, err)
		assert.NotContains(t, string(out), "msg_1")
		var m responses.ResponseOutputMessageParam
		require.NoError(t, json.Unmarshal([]byte(item), &m))
		out, err = json.Marshal(m)
		require.NoError(t, err)
		assert.JSONEq(t, item, string(out))
	})

	t.Run("an input item without type does not decode", func(t *testing.T) {
		t.Parallel()
		// The recorded requests' user messages have no type; this
		// package sends it on every item.
		var it responses.ResponseInputItemUnionParam
		assert.Error(t, json.Unmarshal([]byte(`{"role":"user","content":"Hi"}`), &it))
		require.NoError(t, json.Unmarshal([]byte(`{"type":"message","role":"user","content":"Hi"}`), &it))
		assert.NotNil(t, it.OfMessage)
	})

	t.Run("a request drops an input it cannot decode, without error", func(t *testing.T) {
		t.Parallel()
		var p responses.ResponseNewParams
		require.NoError(t, json.Unmarshal([]byte(`{"model":"m","input":[{"role":"user","content":"Hi"}]}`), &p))
		out, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, `{"model":"m"}`, string(out))
	})

	t.Run("a request drops the name of a function tool choice", func(t *testing.T) {
		t.Parallel()
		var p responses.ResponseNewParams
		require.NoError(t, json.Unmarshal([]byte(`{"model":"m","tool_choice":{"type":"function","name":"get_weather"}}`), &p))
		out, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, `{"model":"m","tool_choice":{"type":"function"}}`, string(out))
	})

	t.Run("a reasoning item loses the fields the SDK does not know", func(t *testing.T) {
		t.Parallel()
		// Sent back through the SDK's types, a reasoning item is not the
		// item received; this package sends the bytes it received.
		const item = `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA","status":"completed","x_new_field":1}`
		var it responses.ResponseInputItemUnionParam
		require.NoError(t, json.Unmarshal([]byte(item), &it))
		out, err := json.Marshal(it)
		require.NoError(t, err)
		assert.JSONEq(t, `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA","status":"completed"}`, string(out))
	})
}
