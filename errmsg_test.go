package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/providers/openai"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// errmsgDup declares the tool name "x" twice, with methods A and B.
type errmsgDup struct {
	_ toolcall.Method `tool:"A" name:"x"`
	_ toolcall.Method `tool:"B" name:"x"`
}

func (errmsgDup) A() string { return "a" }
func (errmsgDup) B() string { return "b" }

// errmsgOne and errmsgOther each declare the tool name "x".
type errmsgOne struct {
	_ toolcall.Method `tool:"A" name:"x"`
}

func (errmsgOne) A() string { return "one" }

type errmsgOther struct {
	_ toolcall.Method `tool:"B" name:"x"`
}

func (*errmsgOther) B() string { return "other" }

// TestErrorMessages pins the messages of definition errors that name a
// tool's sources: each says which methods, funcs or hand-written tools
// clash, and is a *DefinitionError wrapping its sentinel.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	funcX := func(t *testing.T) toolcall.Tool {
		f, err := toolcall.NewFunc("x", "d", func(context.Context, struct{}) (string, error) { return "", nil })
		require.NoError(t, err)
		return f
	}
	rawX := func(t *testing.T) toolcall.Tool {
		r, err := toolcall.NewTool(chat.ToolDefinition{Name: "x"}, func(context.Context, json.RawMessage) (string, error) { return "", nil })
		require.NoError(t, err)
		return r
	}
	methodX := func(t *testing.T) toolcall.Tool {
		m, err := toolcall.NewMethod(&errmsgOther{}, "B", toolcall.WithName("x"))
		require.NoError(t, err)
		return m
	}
	fromPrompt := func(t *testing.T, tools ...any) error {
		model := tt.NewModel(tt.Text("unused"))
		_, err := toolcall.NewClient(model).Prompt("go").Tools(tools...).Call(ctx)
		assert.Empty(t, model.Requests(), "the model is not asked")
		return err
	}
	for _, tc := range []struct {
		name string
		err  func(t *testing.T) error
		want string // the whole message
		// is is the sentinel the error wraps (default ErrInvalidTool);
		// isNot one it must not wrap. provider marks a
		// *chat.ProviderError; the others are *toolcall.DefinitionError
		// values for the tool "x", with no one type.
		is, isNot error
		provider  bool
	}{
		{
			name: "ToolsFrom: two methods of one struct",
			err:  func(*testing.T) error { _, err := toolcall.ToolsFrom(errmsgDup{}); return err },
			want: `toolcall: tool "x": duplicate tool name: "x" is declared by toolcall_test.errmsgDup.A and toolcall_test.errmsgDup.B`,
		},
		{
			name: "ToolsFrom: two methods of one struct given by pointer",
			err:  func(*testing.T) error { _, err := toolcall.ToolsFrom(&errmsgDup{}); return err },
			want: `toolcall: tool "x": duplicate tool name: "x" is declared by *toolcall_test.errmsgDup.A and *toolcall_test.errmsgDup.B`,
		},
		{
			name: "ToolsFrom: methods of two structs",
			err:  func(*testing.T) error { _, err := toolcall.ToolsFrom(errmsgOne{}, &errmsgOther{}); return err },
			want: `toolcall: tool "x": duplicate tool name: "x" is declared by toolcall_test.errmsgOne.A and *toolcall_test.errmsgOther.B`,
		},
		{
			name: "Prompt.Tools: two methods of one struct",
			err:  func(t *testing.T) error { return fromPrompt(t, errmsgDup{}) },
			want: `toolcall: tool "x": duplicate tool name: "x" is given by toolcall_test.errmsgDup.A and toolcall_test.errmsgDup.B`,
		},
		{
			name: "Prompt.Tools: a struct and a []Tool",
			err:  func(t *testing.T) error { return fromPrompt(t, errmsgOne{}, []toolcall.Tool{methodX(t)}) },
			want: `toolcall: tool "x": duplicate tool name: "x" is given by toolcall_test.errmsgOne.A and *toolcall_test.errmsgOther.B`,
		},
		{
			name: "Prompt.Tools: a method and a func tool",
			err:  func(t *testing.T) error { return fromPrompt(t, errmsgOne{}, funcX(t)) },
			want: `toolcall: tool "x": duplicate tool name: "x" is given by toolcall_test.errmsgOne.A and func tool (func(context.Context, struct {}) (string, error))`,
		},
		{
			name: "Prompt.Tools: a NewTool tool and a method",
			err:  func(t *testing.T) error { return fromPrompt(t, rawX(t), errmsgOne{}) },
			want: `toolcall: tool "x": duplicate tool name: "x" is given by NewTool and toolcall_test.errmsgOne.A`,
		},
		{
			name: "Registry.Register: a name already registered",
			err: func(t *testing.T) error {
				var reg toolcall.Registry
				require.NoError(t, reg.Register(errmsgOne{}))
				return reg.Register(&errmsgOther{})
			},
			want: `toolcall: tool "x": duplicate tool name: "x" is registered by toolcall_test.errmsgOne.A and given again by *toolcall_test.errmsgOther.B`,
		},
		{
			name: "Registry.Register: a func tool already registered",
			err: func(t *testing.T) error {
				var reg toolcall.Registry
				require.NoError(t, reg.Register(funcX(t)))
				return reg.Register(rawX(t))
			},
			want: `toolcall: tool "x": duplicate tool name: "x" is registered by func tool (func(context.Context, struct {}) (string, error)) and given again by NewTool`,
		},
		{
			name: "Registry.Register: a name given twice in one call",
			err: func(t *testing.T) error {
				var reg toolcall.Registry
				err := reg.Register(rawX(t), errmsgOne{})
				assert.Empty(t, reg.Names(), "nothing is registered")
				return err
			},
			want: `toolcall: tool "x": duplicate tool name: "x" is given by NewTool and toolcall_test.errmsgOne.A`,
		},
		{
			name: "Registry.Register: two methods of one struct",
			err: func(t *testing.T) error {
				var reg toolcall.Registry
				return reg.Register(errmsgDup{})
			},
			want: `toolcall: tool "x": duplicate tool name: "x" is given by toolcall_test.errmsgDup.A and toolcall_test.errmsgDup.B`,
		},
		{
			name:     "openai: 404 page, BaseURL ends in /v1",
			err:      openai404("http://compat.invalid/v1", "404 page not found\n"),
			want:     `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid/v1`,
			is:       chat.ErrBadRequest,
			provider: true,
		},
		{
			name:     "openai: 404 page, BaseURL without /v1",
			err:      openai404("http://compat.invalid", "404 page not found\n"),
			want:     `openai: HTTP 404: model "gpt-4o-mini": bad request: no /chat/completions at http://compat.invalid; BaseURL usually ends in /v1`,
			is:       chat.ErrBadRequest,
			provider: true,
		},
		{
			name:     "openai: empty 404",
			err:      openai404("http://compat.invalid/v1", ""),
			want:     `openai: HTTP 404: model "gpt-4o-mini": endpoint or model not found at /v1/chat/completions`,
			isNot:    chat.ErrModelNotFound,
			provider: true,
		},
		{
			name:     "openai: empty 404, key in the path",
			err:      openai404("http://compat.invalid/"+errmsgKey+"/v1", ""),
			want:     `openai: HTTP 404: model "gpt-4o-mini": endpoint or model not found at /[redacted]/v1/chat/completions`,
			isNot:    chat.ErrModelNotFound,
			provider: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.err(t)
			require.EqualError(t, err, tc.want)
			if tc.is == nil && tc.isNot == nil {
				tc.is = toolcall.ErrInvalidTool
			}
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			if tc.isNot != nil {
				assert.NotErrorIs(t, err, tc.isNot)
			}
			if tc.provider {
				var pe *chat.ProviderError
				require.True(t, errors.As(err, &pe), "a *chat.ProviderError")
				assert.Equal(t, 404, pe.StatusCode)
				assert.NotContains(t, fmt.Sprintf("%s %+v %#v", err, err, err), errmsgKey, "the API key shows")
				return
			}
			var de *toolcall.DefinitionError
			require.True(t, errors.As(err, &de), "a *toolcall.DefinitionError")
			assert.Equal(t, "x", de.Method)
			assert.Empty(t, de.Type, "two sources, so no one type")
		})
	}
}

// errmsgKey is the API key of openai404's model; no error may show it.
const errmsgKey = "sk-errmsg-SECRET42"

// openai404 returns a call of an OpenAI-compatible model at baseURL whose
// server answers 404 with body.
func openai404(baseURL, body string) func(t *testing.T) error {
	return func(t *testing.T) error {
		m := openai.New(openai.Config{BaseURL: baseURL, APIKey: errmsgKey, Model: "gpt-4o-mini",
			HTTPClient: &http.Client{Transport: errmsg404{body: body}}})
		_, err := m.Chat(context.Background(), &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}})
		return err
	}
}

// errmsg404 answers every request in process with a 404 and its body.
type errmsg404 struct{ body string }

func (e errmsg404) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNotFound, Request: req,
		Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:   io.NopCloser(strings.NewReader(e.body))}, nil
}
