package decision

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCheck refuses a decision that says two things, or gives Arguments
// without Allow, and takes one that says one thing or nothing.
func TestCheck(t *testing.T) {
	args := json.RawMessage(`{"a":1}`)
	for _, d := range []Decision{{}, {Allow: true}, {Allow: true, Arguments: args}, {Deny: "no"}, {Result: "done"}} {
		assert.NoError(t, d.Check(), "%+v", d)
	}
	for _, d := range []Decision{{Allow: true, Deny: "no"}, {Deny: "no", Result: "done"}, {Allow: true, Result: "done"}} {
		assert.EqualError(t, d.Check(), "sets more than one of Allow, Deny and Result", "%+v", d)
	}
	assert.EqualError(t, Decision{Arguments: args}.Check(), "gives Arguments without Allow")
}

// TestApply answers a call as the decision says, and runs it only when
// allowed with no other arguments.
func TestApply(t *testing.T) {
	ran := 0
	next := func(context.Context) (string, error) { ran++; return "ran", nil }
	ctx := context.Background()

	got, err := Decision{Allow: true}.Apply(ctx, next)
	assert.NoError(t, err)
	assert.Equal(t, "ran", got)

	got, err = Decision{Result: "final"}.Apply(ctx, next)
	assert.NoError(t, err)
	assert.Equal(t, "final", got)

	_, err = Decision{Deny: "not today"}.Apply(ctx, next)
	assert.EqualError(t, err, "tool call denied: not today")

	_, err = Decision{Allow: true, Arguments: json.RawMessage(`{"a":2}`)}.Apply(ctx, next)
	var rerun *Rerun
	if assert.True(t, errors.As(err, &rerun)) {
		assert.JSONEq(t, `{"a":2}`, string(rerun.Args))
	}

	assert.False(t, Decision{Deny: "no"}.Waits())
	d := Decision{}
	assert.True(t, d.Waits())
	_, err = d.Apply(ctx, next)
	reason, paused := Paused(err)
	assert.True(t, paused)
	assert.Equal(t, "approval", reason)
	assert.Equal(t, 1, ran, "only the allowed call ran")
}
