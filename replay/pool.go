package replay

import (
	"context"
	"runtime"
	"sync"
)

// Map runs fn for every index in [0, n) on up to workers goroutines and
// returns the results by index, so the output order never depends on the
// parallelism. done, if not nil, is called once per finished job from the
// worker that ran it (for progress bars and streaming output; it must be
// safe for concurrent use).
//
// When ctx is cancelled, Map stops handing out jobs and returns the results
// finished so far, with ok[i] telling which, and ctx's error. A job's error
// stops the run the same way and is returned.
func Map[T any](ctx context.Context, n, workers int, fn func(ctx context.Context, i int) (T, error), done func(i int, r T)) (out []T, ok []bool, err error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(n, 1))
	out = make([]T, n)
	ok = make([]bool, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, e := fn(ctx, i)
				if e != nil {
					once.Do(func() { firstErr = e; cancel() })
					continue
				}
				out[i], ok[i] = r, true
				if done != nil {
					done(i, r)
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return out, ok, firstErr
	}
	return out, ok, ctx.Err()
}
