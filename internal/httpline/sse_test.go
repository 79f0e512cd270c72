package httpline

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSSELine(t *testing.T) {
	for _, tc := range []struct {
		line  string
		value string
		field SSEField
	}{
		{"data: {\"a\":1}\n", `{"a":1}`, SSEData},
		{"data:[DONE]\r\n", "[DONE]", SSEData},
		{"data: a: b\n", "a: b", SSEData},
		{"event: message_start\n", "message_start", SSEEvent},
		{`error: {"message":"boom"}`, `{"message":"boom"}`, SSEError},
		{"\n", "", SSEBlank},
		{"  \r\n", "", SSEBlank},
		{": keep-alive\n", "", SSEOther},
		{"id: 7\n", "", SSEOther},
		{"retry: 100\n", "", SSEOther},
		{"no colon\n", "", SSEOther},
		{`{"choices":[]}`, "", SSEOther}, // a bare JSON line is no field
	} {
		value, field := SSELine([]byte(tc.line))
		assert.Equal(t, tc.field, field, "%q", tc.line)
		assert.Equal(t, tc.value, string(value), "%q", tc.line)
	}
}
