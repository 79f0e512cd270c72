package toolcall

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// successText is what the model receives from a tool that returns no value
// (only an error, or nothing) and succeeded.
const successText = "Success"

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

// convert applies the tool's converter, else the default.
func convert(conv func(any) (string, error), v any) (string, error) {
	if conv == nil {
		return ConvertResult(v)
	}
	return conv(v)
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

// failedText is the text the model gets for a failed call of the tool
// name: text, or "tool NAME failed" when text is blank.
func failedText(name, text string) string {
	if strings.TrimSpace(text) == "" {
		return "tool " + name + " failed"
	}
	return text
}

// resultStruct returns the struct type of results of type rt when
// [ConvertResult] turns them into JSON by their fields: rt is a struct, or
// a pointer to one, with no MarshalJSON or MarshalText of its own. It
// reports false otherwise.
func resultStruct(rt reflect.Type) (reflect.Type, bool) {
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt.Kind() != reflect.Struct || rt.Implements(jsonMarshalerType) || reflect.PointerTo(rt).Implements(jsonMarshalerType) ||
		rt.Implements(textMarshalerType) || reflect.PointerTo(rt).Implements(textMarshalerType) {
		return nil, false
	}
	return rt, true
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)
