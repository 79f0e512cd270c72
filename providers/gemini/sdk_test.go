package gemini_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolcall-go/toolcall/internal/providertest"
	"google.golang.org/genai"
)

// genaiRequest is the body of generateContent written with the request
// types of google.golang.org/genai (v1.77.0). The SDK builds that body
// from its GenerateContentConfig with converters of its own and exports
// no type for the body as a whole: the fields are its types, in the
// envelope the API reference gives them.
type genaiRequest struct {
	Contents          []*genai.Content        `json:"contents,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
	SafetySettings    []*genai.SafetySetting  `json:"safetySettings,omitempty"`
	CachedContent     string                  `json:"cachedContent,omitempty"`
}

// checkGenai decodes a request body into genaiRequest, refusing fields the
// SDK's types do not have, encodes it back and compares the two as JSON
// values, after the SDK's own forms are applied to the body
// (normalizeGenai). Every request the test servers receive goes through
// it: a field this package writes that the SDK does not know, or writes in
// a form the SDK reads differently, fails the test that sent it.
func checkGenai(t *testing.T, body []byte) {
	t.Helper()
	want, got, err := genaiRoundTrip(body)
	if assert.NoError(t, err, "the genai types cannot decode the request body %s", body) {
		assert.JSONEq(t, string(want), string(got), "genai's types do not encode the request body back as sent")
	}
}

// genaiRoundTrip returns the body normalised (want) and the body decoded
// into genaiRequest and encoded again (got).
func genaiRoundTrip(body []byte) (want, got []byte, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var r genaiRequest
	if err := dec.Decode(&r); err != nil {
		return nil, nil, err
	}
	if got, err = json.Marshal(r); err != nil {
		return nil, nil, err
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, nil, err
	}
	want, err = json.Marshal(normalizeGenai(v))
	return want, got, err
}

// normalizeGenai applies to a request body the forms genai's types give
// it, which are the only differences allowed: a part's empty "text" and a
// call's empty "args" are those fields' zero values, which the types
// leave out (omitempty). The API reads a part without text as one with
// empty text, and a call without args as one with {}.
func normalizeGenai(v any) any {
	body, ok := v.(map[string]any)
	if !ok {
		return v
	}
	contents, _ := body["contents"].([]any)
	for _, c := range contents {
		c, _ := c.(map[string]any)
		parts, _ := c["parts"].([]any)
		for _, p := range parts {
			p, _ := p.(map[string]any)
			if p["text"] == "" {
				delete(p, "text")
			}
			if fc, ok := p["functionCall"].(map[string]any); ok {
				if args, ok := fc["args"].(map[string]any); ok && len(args) == 0 {
					delete(fc, "args")
				}
			}
		}
	}
	return body
}

// TestGenaiCheckFails: the check is not vacuous: a field the types do not
// have, a part field misspelled and a tool config of the wrong shape fail
// it.
func TestGenaiCheckFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body string }{
		{"unknown top-level field", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"notAField":1}`},
		{"snake_case part field", `{"contents":[{"role":"model","parts":[{"text":"hi","thought_signature":"AAAA"}]}]}`},
		{"snake_case declaration field", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters_json_schema":{}}]}]}`},
		{"mode as an object", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"toolConfig":{"functionCallingConfig":{"mode":{"x":1}}}}`},
		{"signature that is not base64", `{"contents":[{"role":"model","parts":[{"text":"hi","thoughtSignature":"not base64!"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got, err := genaiRoundTrip([]byte(tc.body))
			if err == nil {
				assert.NotEqual(t, providertest.Canonical(t, want), providertest.Canonical(t, got))
			}
		})
	}
}

// TestRootImportsNeither: a program that imports only package toolcall
// compiles neither this package nor genai, and this package's own build
// needs only the standard library and the module's packages.
func TestRootImportsNeither(t *testing.T) {
	t.Parallel()
	providertest.CheckImportsNeither(t, "providers/gemini", "google.golang.org/genai")
}

// TestGenaiRewritesParts pins a reason this package keeps its own wire
// types (see "The official SDK" in the package documentation): a part
// the API sent, read into genai's Part and written again, is the same
// JSON value in other bytes (its keys in the types' order, an empty args
// left out), where this package sends a part back as it came.
func TestGenaiRewritesParts(t *testing.T) {
	t.Parallel()
	const received = `{"functionCall":{"name":"get_country","args":{"code":"MX"}},"thoughtSignature":"U0lHTkFUVVJF"}`
	var p genai.Part
	require.NoError(t, json.Unmarshal([]byte(received), &p))
	back, err := json.Marshal(&p)
	require.NoError(t, err)
	assert.JSONEq(t, received, string(back), "the same part")
	assert.NotEqual(t, received, string(back), "not the same bytes")
	assert.Equal(t, []byte("SIGNATURE"), p.ThoughtSignature, "the signature held as bytes")
}
