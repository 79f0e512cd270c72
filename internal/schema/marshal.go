package schema

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/toolcall-go/toolcall/internal/jsonnode"
)

// marshal writes v as jsonnode.Marshal does, byte for byte, but writes
// plain strings (nearly all of a schema's) without an encoder per string.
func marshal(v any) []byte {
	return appendValue(make([]byte, 0, 256), v)
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case *jsonnode.Object:
		b = append(b, '{')
		for i, m := range v.Members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.Key)
			b = append(b, ':')
			b = appendValue(b, m.Value)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']')
	case string:
		return appendString(b, v)
	case json.Number:
		return append(b, v...)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	}
	out, err := json.Marshal(v)
	if err != nil {
		out = []byte("null")
	}
	return append(b, out...)
}

// appendString quotes s. Printable ASCII other than the quote and the
// backslash stands for itself; anything else goes through the encoder
// jsonnode uses, so escapes stay identical.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
