package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// TestSealCoversExactNumbers: a sealed state whose numbers are edited in
// every copy to a value that reads as the same float64 (an id above 2^53,
// a decimal) is refused; unedited, it resumes and the tool gets the exact
// numbers.
func TestSealCoversExactNumbers(t *testing.T) {
	t.Parallel()
	type wireArgs struct {
		Account uint64  `json:"account"`
		Amount  float64 `json:"amount"`
	}
	pause := func(t *testing.T, got *[]wireArgs) (*toolcall.Client, []byte) {
		t.Helper()
		wire := toolcall.MustFunc("wire", "Wires money", func(ctx context.Context, in wireArgs) (string, error) {
			*got = append(*got, in)
			return "wired", nil
		}, toolcall.WithNeedsApproval(true))
		model := tt.NewModel(tt.ToolCalls(tt.Call("w1", "wire", `{"account":9007199254740993,"amount":0.1}`)), tt.Text("done"))
		client := toolcall.NewClient(model, toolcall.WithTools(wire), toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey}), replays)
		_, err := client.Prompt("wire it").Call(context.Background())
		var p *toolcall.Paused
		require.ErrorAs(t, err, &p)
		stored, err := json.Marshal(p)
		require.NoError(t, err)
		require.Equal(t, 2, bytes.Count(stored, []byte(`{"account":9007199254740993,"amount":0.1}`)), "the reply's call and the waiting one")
		return client, stored
	}
	allow := map[string]toolcall.Decision{"w1": {Allow: true}}
	for name, edit := range map[string][2]string{
		"an id above 2^53": {"9007199254740993", "9007199254740992"},
		"a decimal":        {`"amount":0.1}`, `"amount":0.10000000000000001}`},
		"an exponent":      {`"amount":0.1}`, `"amount":1e-1}`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []wireArgs
			client, stored := pause(t, &got)
			edited := bytes.ReplaceAll(stored, []byte(edit[0]), []byte(edit[1]))
			require.NotEqual(t, stored, edited)
			_, err := client.Prompt().Resume(decode(t, edited), allow).Call(context.Background())
			if name == "an exponent" {
				// 1e-1 is 0.1 exactly: the same value, spelled otherwise.
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
			assert.Empty(t, got, "nothing ran")
		})
	}
	t.Run("unedited", func(t *testing.T) {
		t.Parallel()
		var got []wireArgs
		client, stored := pause(t, &got)
		resp, err := client.Prompt().Resume(decode(t, stored), allow).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "done", resp.Content())
		assert.Equal(t, []wireArgs{{Account: 9007199254740993, Amount: 0.1}}, got)
	})
}

// TestSealedPauseBelongsToItsOwner: a state sealed for one owner is
// refused for another, or with none; an Owner needs seal keys.
func TestSealedPauseBelongsToItsOwner(t *testing.T) {
	t.Parallel()
	keys := toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey})
	var l ledger
	client, stored := pauseTransferFor(t, &l, "tenant-7/conv-42", keys, replays)
	before := l.get()
	for _, owner := range []string{"tenant-7/conv-43", ""} {
		_, err := client.Prompt().Owner(owner).Resume(decode(t, stored), allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused, "owner %q", owner)
		assert.ErrorContains(t, err, "for another owner")
		assert.Equal(t, before, l.get(), "nothing ran")
	}
	resp, err := client.Prompt().Owner("tenant-7/conv-42").Resume(decode(t, stored), allowT1).Call(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Content())
	assert.Equal(t, 1, l.get()["t1"])

	_, err = toolcall.NewClient(tt.NewModel(tt.Text("hi"))).Prompt("hi").Owner("tenant-7").Call(context.Background())
	require.EqualError(t, err, "toolcall: Prompt.Owner needs WithSealKeys: nothing binds an unsealed state to its owner")
}

// pauseTransferFor is pauseTransfer for a prompt with an Owner.
func pauseTransferFor(t *testing.T, l *ledger, owner string, opts ...toolcall.ClientOption) (*toolcall.Client, []byte) {
	t.Helper()
	model := tt.NewModel(tt.ToolCalls(tt.Call("b1", "balance", `{}`), tt.Call("t1", "transfer", `{"to":"ana","amount":10}`)), tt.Text("done"))
	client := toolcall.NewClient(model, append([]toolcall.ClientOption{toolcall.WithTools(bankTools(l))}, opts...)...)
	_, err := client.Prompt("pay ana 10").Owner(owner).Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	stored, err := json.Marshal(p)
	require.NoError(t, err)
	return client, stored
}

// TestSealedPauseExpires: a state past its expiry, or without one where
// the client sets one, is refused; within it, it resumes. An expiry
// needs seal keys.
func TestSealedPauseExpires(t *testing.T) {
	t.Parallel()
	keys := toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		var l ledger
		client, stored := pauseTransfer(t, &l, keys, replays, toolcall.WithPauseExpiry(time.Millisecond))
		p := decode(t, stored)
		require.False(t, p.Expires.IsZero())
		time.Sleep(5 * time.Millisecond) // past the millisecond: nothing waits on it but this test
		_, err := client.Prompt().Resume(p, allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
		assert.ErrorContains(t, err, "it expired at ")
		assert.Zero(t, l.get()["t1"])
	})
	t.Run("within", func(t *testing.T) {
		t.Parallel()
		var l ledger
		client, stored := pauseTransfer(t, &l, keys, replays, toolcall.WithPauseExpiry(time.Hour))
		p := decode(t, stored)
		assert.WithinDuration(t, time.Now().Add(time.Hour), p.Expires, time.Minute)
		_, err := client.Prompt().Resume(p, allowT1).Call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, l.get()["t1"])
	})
	t.Run("an expiry edited", func(t *testing.T) {
		t.Parallel()
		var l ledger
		client, stored := pauseTransfer(t, &l, keys, replays, toolcall.WithPauseExpiry(time.Millisecond))
		p := decode(t, stored)
		p.Expires = p.Expires.Add(24 * time.Hour)
		_, err := client.Prompt().Resume(p, allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
		assert.ErrorContains(t, err, "seal does not match")
	})
	t.Run("no expiry where the client sets one", func(t *testing.T) {
		t.Parallel()
		var l ledger
		_, stored := pauseTransfer(t, &l, keys, replays)
		client, _ := pauseTransfer(t, &l, keys, replays, toolcall.WithPauseExpiry(time.Hour))
		_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
		assert.ErrorContains(t, err, "it has no expiry, and the client sets one")
	})
	t.Run("without seal keys", func(t *testing.T) {
		t.Parallel()
		_, err := toolcall.NewClient(tt.NewModel(tt.Text("hi")), toolcall.WithPauseExpiry(time.Hour)).Prompt("hi").Call(context.Background())
		require.EqualError(t, err, "toolcall: WithPauseExpiry needs WithSealKeys: an unsealed expiry could be edited")
		_, err = toolcall.NewManager(toolcall.WithPauseExpiry(time.Hour)).Execute(context.Background(), nil, &chat.Request{Messages: []chat.Message{chat.UserMessage("hi")}}, &chat.Response{Message: chat.AssistantMessage("hi")})
		require.EqualError(t, err, "toolcall: WithPauseExpiry needs WithSealKeys: an unsealed expiry could be edited")
	})
}

// TestSealingClientNeedsAClaim: a sealing Client without a claim
// function fails every call, saying what to give; AllowReplays says in
// code that a stored state may run again, and it does.
func TestSealingClientNeedsAClaim(t *testing.T) {
	t.Parallel()
	keys := toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey})
	_, err := toolcall.NewClient(tt.NewModel(tt.Text("hi")), keys).Prompt("hi").Call(context.Background())
	require.EqualError(t, err, "toolcall: a Client with WithSealKeys needs WithResumeClaim: give your claim function, or AllowReplays to allow a stored state to run again")
	_, err = toolcall.NewClient(tt.NewModel(tt.Text("hi")), keys, toolcall.WithResumeClaim(nil)).Prompt("hi").Call(context.Background())
	require.EqualError(t, err, "toolcall: WithResumeClaim: a nil claim function; give AllowReplays to allow replays")

	var l ledger
	client, stored := pauseTransfer(t, &l, keys, replays)
	for range 2 {
		_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, 2, l.get()["t1"], "replays allowed: the stored state ran twice")
}

// TestIdempotencyKey: a resumed call's key is the pause's ID and the call
// id, the same on every resume of one stored state; a call that was not
// paused has none.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		keys []string
	)
	pay := toolcall.MustFunc("pay", "Pays", func(ctx context.Context, _ struct{}) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		mu.Lock()
		keys = append(keys, info.IdempotencyKey)
		mu.Unlock()
		return "paid", nil
	}, toolcall.WithNeedsApproval(true))
	look := toolcall.MustFunc("look", "Looks", func(ctx context.Context, _ struct{}) (string, error) {
		info, _ := toolcall.CallInfoFrom(ctx)
		mu.Lock()
		keys = append(keys, "look:"+info.IdempotencyKey)
		mu.Unlock()
		return "seen", nil
	})
	model := tt.NewModel(tt.ToolCalls(tt.Call("l1", "look", `{}`), tt.Call("p1", "pay", `{}`)), tt.Text("done"), tt.Text("done"))
	client := toolcall.NewClient(model, toolcall.WithTools(pay, look), toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey}), replays)
	_, err := client.Prompt("pay").Call(context.Background())
	var p *toolcall.Paused
	require.ErrorAs(t, err, &p)
	stored, err := json.Marshal(p)
	require.NoError(t, err)
	for range 2 {
		_, err := client.Prompt().Resume(decode(t, stored), map[string]toolcall.Decision{"p1": {Allow: true}}).Call(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"look:", p.ID + "/p1", p.ID + "/p1"}, keys)
}

// downFirst fails its first request, as a model server down for a moment,
// then answers as m.
type downFirst struct {
	mu   sync.Mutex
	sent int
	m    chat.Model
}

var errDown = errors.New("model server down")

func (d *downFirst) Chat(ctx context.Context, req *chat.Request) (*chat.Response, error) {
	d.mu.Lock()
	d.sent++
	first := d.sent == 1
	d.mu.Unlock()
	if first {
		return nil, errDown
	}
	return d.m.Chat(ctx, req)
}
