package toolcall

import (
	"encoding/json"
	"fmt"
	"strings"
)

// noResultText is what the model receives from a tool that returns no value
// (only an error, or nothing) and succeeded.
const noResultText = "Success"

// ConvertResult is the default conversion: a string or [json.RawMessage] is
// sent as is, a []byte as a string, and any other value, nil included, as
// compact JSON.
func ConvertResult(result any) (string, error) {
	switch v := result.(type) {
	case string:
		return v, nil
	case json.RawMessage:
		if len(v) == 0 {
			return "null", nil
		}
		return string(v), nil
	case []byte:
		return string(v), nil
	case nil:
		return "null", nil
	}
	return encodeResult(result)
}

// encodeResult marshals a result as compact JSON as encoding/json does,
// without HTML escaping: the reader is a model, not a browser.
func encodeResult(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("toolcall: converting result of type %T: %w", v, err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
