package toolcall

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunBoundsWorkers runs every index once and never more than workers
// at a time.
func TestPoolBoundsWorkers(t *testing.T) {
	const n, workers = 20, 3
	var running, most atomic.Int32
	ran := make([]atomic.Int32, n)
	err := runPool(context.Background(), n, workers, func(_ context.Context, i int) error {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(time.Millisecond)
		ran[i].Add(1)
		running.Add(-1)
		return nil
	})
	require.NoError(t, err)
	for i := range ran {
		assert.EqualValues(t, 1, ran[i].Load(), "index %d", i)
	}
	assert.LessOrEqual(t, most.Load(), int32(workers))
}

// TestRunAllAtOnce: zero workers runs every index at once; each waits for
// all the others to start, which would never happen with fewer workers.
func TestPoolAllAtOnce(t *testing.T) {
	const n = 5
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	err := runPool(ctx, n, 0, func(ctx context.Context, i int) error {
		started.Done()
		select {
		case <-all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	require.NoError(t, err)
}

// TestRunFirstErrorCancelsTheRest: with one worker (the caller), an error
// cancels the context every later call gets.
func TestPoolFirstErrorCancelsTheRest(t *testing.T) {
	boom := errors.New("boom")
	var live, cancelled []int
	err := runPool(context.Background(), 4, 1, func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			cancelled = append(cancelled, i)
			return ctx.Err() // not the first error: Run still returns boom
		}
		live = append(live, i)
		if i == 1 {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []int{0, 1}, live)
	assert.Equal(t, []int{2, 3}, cancelled)
}

// TestRunCancelsRunningCalls: an error cancels the context the calls
// still running see, and Run returns that error, not theirs.
func TestPoolCancelsRunningCalls(t *testing.T) {
	boom := errors.New("boom")
	waiting := make(chan struct{})
	err := runPool(context.Background(), 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			close(waiting)
			<-ctx.Done()
			return ctx.Err()
		}
		<-waiting
		return boom
	})
	require.ErrorIs(t, err, boom)
}
