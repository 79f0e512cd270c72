package toolcall

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/toolcall-go/toolcall/internal/encode"
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

// encodeResult marshals a result as compact JSON without HTML escaping
// (the reader is a model, not a browser), exactly as encoding/json would,
// with an encoder compiled per type.
func encodeResult(v any) (string, error) {
	out, err := encode.String(v)
	if err != nil {
		return "", fmt.Errorf("toolcall: converting result of type %T: %w", v, err)
	}
	return out, nil
}

// encodeResultAt is encodeResult for a value of enc's type at p.
func encodeResultAt(enc *encode.Encoder, sc *encode.Scratch, p unsafe.Pointer) (string, error) {
	out, err := enc.StringWith(sc, p)
	if err != nil {
		return "", fmt.Errorf("toolcall: converting result of type %s: %w", enc.Type(), err)
	}
	return out, nil
}
