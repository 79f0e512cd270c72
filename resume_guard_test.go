package toolcall_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	tt "github.com/toolcall-go/toolcall/toolcalltest"
)

// TestExpiryCappedByTheResumingClient: a state that expires later than the
// resuming client's own pauses may last (sealed where they lasted longer)
// is refused.
func TestExpiryCappedByTheResumingClient(t *testing.T) {
	keys := toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey})
	var l ledger
	_, stored := pauseTransferFor(t, &l, "", keys, replays, toolcall.WithPauseExpiry(30*24*time.Hour))
	strict := toolcall.NewClient(tt.NewModel(tt.Text("done")), toolcall.WithTools(bankTools(&l)), keys, replays, toolcall.WithPauseExpiry(time.Hour))
	_, err := strict.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrInvalidPaused, "a state valid for 30 days more resumed on a client whose pauses last an hour")
}

type recordingToolset struct{ seen *[]string }

func (r recordingToolset) Tools(ctx context.Context, req *chat.Request) ([]toolcall.Tool, error) {
	for _, m := range req.Messages {
		*r.seen = append(*r.seen, m.Content)
	}
	return nil, nil
}

// TestNothingSeesAStateBeforeItsChecks: an edited state is refused before
// any toolset is asked for tools with its history.
func TestNothingSeesAStateBeforeItsChecks(t *testing.T) {
	keys := toolcall.WithSealKeys("k1", map[string][]byte{"k1": sealKey})
	var l ledger
	var seen []string
	_, stored := pauseTransferFor(t, &l, "", keys, replays)
	client := toolcall.NewClient(tt.NewModel(tt.Text("done")), toolcall.WithTools(bankTools(&l)), keys, replays,
		toolcall.WithToolset(recordingToolset{&seen}))
	stored = edit(t, stored, func(m map[string]any) {
		m["history"].([]any)[0].(map[string]any)["content"] = "INJECTED by whoever writes the store"
	})
	_, err := client.Prompt().Resume(decode(t, stored), allowT1).Call(context.Background())
	require.ErrorIs(t, err, toolcall.ErrInvalidPaused)
	require.Empty(t, seen, "a toolset was asked for tools with the edited history")
}
