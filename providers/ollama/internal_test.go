package ollama

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNewBaseURL: New takes Config.BaseURL, else $OLLAMA_HOST, else
// the default, in the forms the ollama CLI takes. (Not parallel: it sets
// OLLAMA_HOST.)
func TestNewBaseURL(t *testing.T) {
	for _, tc := range []struct {
		name, configured, env, want string
	}{
		{name: "default", want: "http://localhost:11434"},
		{name: "env host:port", env: "gpu-box:8080", want: "http://gpu-box:8080"},
		{name: "env host only", env: "gpu-box", want: "http://gpu-box:11434"},
		{name: "env port only", env: ":11435", want: "http://localhost:11435"},
		{name: "env ip", env: "0.0.0.0", want: "http://0.0.0.0:11434"},
		{name: "env ipv6", env: "[::1]", want: "http://[::1]:11434"},
		{name: "env ipv6 with port", env: "[::1]:9000", want: "http://[::1]:9000"},
		{name: "env with path", env: "proxy:80/ollama/", want: "http://proxy:80/ollama"},
		{name: "env url", env: "https://ollama.example.com/", want: "https://ollama.example.com"},
		{name: "env blank", env: "  ", want: "http://localhost:11434"},
		{name: "config wins", configured: "http://a:1", env: "b:2", want: "http://a:1"},
		{name: "config without scheme", configured: "127.0.0.1:5000", want: "http://127.0.0.1:5000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OLLAMA_HOST", tc.env)
			assert.Equal(t, tc.want, New(Config{BaseURL: tc.configured}).base)
		})
	}
}

func TestKeepAliveValue(t *testing.T) {
	t.Parallel()
	assert.Nil(t, keepAliveValue(""))
	assert.Equal(t, "10m", keepAliveValue("10m"))
	assert.Equal(t, -1.0, keepAliveValue("-1"))
	assert.Equal(t, 0.0, keepAliveValue(" 0 "))
}

func TestArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, toServer, fromServer string
	}{
		{name: "object", in: `{"b": 1, "a": [1, 2]}`, toServer: `{"b": 1, "a": [1, 2]}`, fromServer: `{"b":1,"a":[1,2]}`},
		{name: "empty", in: ``, toServer: `{}`, fromServer: `{}`},
		{name: "blank", in: "  \n", toServer: `{}`, fromServer: `{}`},
		{name: "null", in: `null`, toServer: `{}`, fromServer: `{}`},
		{name: "string holding an object", in: `"{\"a\":1}"`, toServer: `{"a":1}`, fromServer: `{"a":1}`},
		{name: "empty string", in: `""`, toServer: `{}`, fromServer: `{}`},
		{name: "array", in: `[1]`, toServer: `{}`, fromServer: `[1]`},
		{name: "string holding invalid JSON", in: `"{\"a\":"`, toServer: `{}`, fromServer: `{"a":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.toServer, string(objectArguments(json.RawMessage(tc.in))))
			assert.Equal(t, tc.fromServer, string(argumentsText(json.RawMessage(tc.in))))
		})
	}
}

func TestSyntheticIDsAreUnique(t *testing.T) {
	t.Parallel()
	var a assembler
	a.addCall(wireCall{ID: "call_1", Function: wireFunction{Name: "x"}})
	_, second := a.addCall(wireCall{Function: wireFunction{Name: "y"}})
	_, third := a.addCall(wireCall{Function: wireFunction{Name: "z"}})
	assert.Equal(t, "call_1_1", second.ID)
	assert.Equal(t, "call_2", third.ID)
}
