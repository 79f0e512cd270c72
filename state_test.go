package toolcall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

func TestSessionState(t *testing.T) {
	t.Parallel()
	// note writes a key; read reports what the state holds for one.
	note := toolcall.MustFunc("note", "Notes a value", func(ctx context.Context, in struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}) (string, error) {
		require.True(t, toolcall.SetState(ctx, in.Key, in.Value+"-stored"))
		require.True(t, toolcall.SetState(ctx, "last", in.Value+"-stored"))
		return "noted", nil
	})
	read := toolcall.MustFunc("read", "Reads a value", func(ctx context.Context, in struct {
		Key string `json:"key"`
	}) (string, error) {
		return fmt.Sprint(toolcall.ToolContextFrom(ctx).Value(in.Key)), nil
	})
	model := tt.NewModel(
		// Round 1: three concurrent writes; the last in call order wins "last".
		tt.ToolCalls(tt.Call("1", "note", `{"key":"a","value":"x"}`), tt.Call("2", "note", `{"key":"b","value":"y"}`),
			tt.Call("3", "note", `{"key":"c","value":"z"}`), tt.Call("4", "read", `{"key":"a"}`)),
		// Round 2 sees round 1's writes.
		tt.ToolCalls(tt.Call("5", "read", `{"key":"a"}`), tt.Call("6", "read", `{"key":"last"}`)),
		tt.Text("done"),
	)
	client := toolcall.NewClient(model, toolcall.WithTools(note, read))
	resp, err := client.Prompt("go").ToolContext(map[string]any{"user": "u1-secret"}).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": "x-stored", "b": "y-stored", "c": "z-stored", "last": "z-stored"}, resp.State)
	assert.Equal(t, map[string]any{"a": "x-stored", "last": "x-stored"}, resp.Executions[0].State)
	assert.Nil(t, resp.Executions[3].State)
	assert.Equal(t, "<nil>", resp.Executions[3].Result, "calls of one round do not see each other's writes")
	assert.Equal(t, "x-stored", resp.Executions[4].Result)
	assert.Equal(t, "z-stored", resp.Executions[5].Result)
	for _, body := range model.RequestBodies()[:2] { // the last request carries read results
		for _, s := range []string{"-stored", "u1-secret"} {
			assert.False(t, strings.Contains(string(body), s), "state never on the wire: %s", s)
		}
	}

	// The caller passes the state into the next call.
	model2 := tt.NewModel(tt.ToolCalls(tt.Call("1", "read", `{"key":"b"}`)), tt.Text("done"))
	resp2, err := toolcall.NewClient(model2, toolcall.WithTools(note, read)).Prompt("again").ToolContext(resp.State).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "y-stored", resp2.Executions[0].Result)
	assert.Nil(t, resp2.State)
	assert.False(t, toolcall.SetState(context.Background(), "k", "v"), "outside a call")
}

func TestAnswerAtLimit(t *testing.T) {
	t.Parallel()
	var runs int
	ping := toolcall.MustFunc("ping", "Ping", func(context.Context, struct{}) (string, error) { runs++; return "pong", nil })
	script := func() *tt.Model {
		return tt.NewModel(tt.ToolCalls(tt.Call("1", "ping", `{}`)), tt.ToolCalls(tt.Call("2", "ping", `{}`)),
			tt.ToolCalls(tt.Call("3", "ping", `{}`)), tt.Text("the answer"))
	}
	// The default: the limit ends the call with ErrMaxIterations.
	model := script()
	_, err := toolcall.NewClient(model, toolcall.WithTools(ping), toolcall.WithMaxIterations(2)).Prompt("go").Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrMaxIterations)
	assert.Equal(t, 2, runs)
	assert.Len(t, model.Requests(), 3)

	// With WithAnswerAtLimit, the request after the limit has tool choice
	// none; a model that obeys gives the answer.
	runs = 0
	model = tt.NewModel(tt.ToolCalls(tt.Call("1", "ping", `{}`)), tt.ToolCalls(tt.Call("2", "ping", `{}`)), tt.Text("the answer"))
	resp, err := toolcall.NewClient(model, toolcall.WithTools(ping), toolcall.WithMaxIterations(2), toolcall.WithAnswerAtLimit()).
		Prompt("go").Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "the answer", resp.Content())
	reqs := model.Requests()
	require.Len(t, reqs, 3)
	assert.True(t, reqs[0].ToolChoice.IsZero())
	assert.True(t, reqs[1].ToolChoice.IsZero())
	assert.Equal(t, chat.ToolChoice{Mode: chat.ToolChoiceNone}, reqs[2].ToolChoice)
	assert.Equal(t, 2, runs)

	// A model that calls tools anyway: no tool runs after the limit.
	runs = 0
	model = script()
	resp, err = toolcall.NewClient(model, toolcall.WithTools(ping), toolcall.WithMaxIterations(2), toolcall.WithAnswerAtLimit()).
		Prompt("go").Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrMaxIterations)
	assert.Equal(t, 2, runs)
	assertValidHistory(t, resp.History)
}

func TestEmptyAnswerScripted(t *testing.T) {
	t.Parallel()
	model := tt.NewModel(tt.Text(""))
	resp, err := toolcall.NewClient(model).Prompt("go").Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrEmptyAnswer)
	require.NotNil(t, resp)
	assert.Equal(t, 1, resp.Rounds)
	assertValidHistory(t, resp.History)
}
