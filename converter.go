package toolcall

import "github.com/toolcall-go/toolcall/internal/resulttext"

// ConvertResult is the default conversion: a string or [json.RawMessage] is
// sent as is, a []byte as a string, and any other value, nil included, as
// compact JSON.
func ConvertResult(result any) (string, error) { return resulttext.Default(result) }

// convert applies the tool's converter, else the default.
func convert(conv func(any) (string, error), v any) (string, error) {
	if conv == nil {
		return resulttext.Default(v)
	}
	return conv(v)
}
