// Package pool runs the tool calls of one reply concurrently, a bounded
// number at once, and waits for all of them, so no goroutine outlives the
// round.
package pool

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run calls do for each index in [0, n), at most workers at once (all at
// once when workers is zero or less): that many workers, the caller's
// goroutine one of them, each take the next index not taken, and Run
// returns when all of them have. The first error in time wins: it cancels
// the context the calls still running see, skip is called instead of do
// for the indexes taken after that, and Run returns the error. The calls
// it cancels may fail after it, with errors that only echo the
// cancellation.
func Run(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error, skip func(i int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64
		mu    sync.Mutex
		first error
	)
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			if ctx.Err() != nil {
				skip(i)
				continue
			}
			if err := do(ctx, i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel() // an error stops the calls still running
			}
		}
	}
	if workers <= 0 {
		workers = n
	}
	var wg sync.WaitGroup
	for range min(workers, n) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return first
}
