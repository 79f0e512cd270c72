package toolcall

import (
	"context"
	"sync"
	"sync/atomic"
)

// The tool calls of one reply run concurrently, a bounded number at once,
// and the round waits for all of them, so no goroutine outlives it.

// runPool calls do for each index in [0, n), at most workers at once (all at
// once when workers is zero or less): that many workers, the caller's
// goroutine one of them, each take the next index not taken, and runPool
// returns when all of them have. The first error in time wins: it cancels
// the context of the calls still running and of the calls for the indexes
// taken after it, which do is to record as not run, and runPool returns it.
// The calls it cancels may fail after it, with errors that only echo the
// cancellation.
func runPool(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &poolRun{ctx: ctx, cancel: cancel, n: n, do: do} // one allocation for what the workers share
	if workers <= 0 {
		workers = n
	}
	work := r.work // one func value for every worker
	var wg sync.WaitGroup
	for range min(workers, n) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return r.first
}

// A poolRun is what the workers of one runPool share.
type poolRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	n      int
	do     func(ctx context.Context, i int) error
	next   atomic.Int64
	mu     sync.Mutex
	first  error
}

// work calls do for the next index not taken until none is left.
func (r *poolRun) work() {
	for {
		i := int(r.next.Add(1) - 1)
		if i >= r.n {
			return
		}
		if err := r.do(r.ctx, i); err != nil {
			r.mu.Lock()
			if r.first == nil {
				r.first = err
			}
			r.mu.Unlock()
			r.cancel() // an error stops the calls still running
		}
	}
}
