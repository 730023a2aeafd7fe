package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// RunSeeds calls run once per seed, with up to parallel calls at once (parallel <= 0
// means all seeds at once), and returns the results in the order of seeds whatever
// the order in which the calls finish. Seeds are taken in order. On the first error the
// ctx of the calls still running is cancelled, no further seed starts, and RunSeeds
// returns that error wrapped with its seed ("seed 17: ..."), preferring a call's own
// error to the context errors of the calls it cancelled; a panic in run is recovered
// and returned as an error ("seed 17 panicked: ..."). No goroutine outlives RunSeeds.
func RunSeeds[T any](ctx context.Context, seeds []uint64, parallel int, run func(ctx context.Context, seed uint64) (T, error)) ([]T, error) {
	return RunAll(ctx, len(seeds), parallel,
		func(i int) string { return fmt.Sprintf("seed %d", seeds[i]) },
		func(ctx context.Context, i int) (T, error) { return run(ctx, seeds[i]) })
}

// RunAll calls run for 0..n-1 as RunSeeds does for seeds, naming call i by
// label(i) in errors.
func RunAll[T any](ctx context.Context, n, parallel int, label func(i int) string, run func(ctx context.Context, i int) (T, error)) ([]T, error) {
	return RunPool(ctx, n, parallel, label, nil, func(ctx context.Context, _ struct{}, i int) (T, error) { return run(ctx, i) })
}

// RunPool is the one worker pool of sim: up to parallel workers take the calls
// 0..n-1 in order, and the results come back in that order whatever the order
// the calls finish in. Each worker may hold state of its own for all its calls
// (a store, connections): open, when not nil, makes it as the worker starts,
// and the close it returns runs as the worker ends. On the first error the ctx
// of the calls still running is cancelled, no further call starts, and
// RunPool returns that error wrapped with label(i), preferring a call's own
// error to the context errors of the calls it cancelled; a panic is recovered
// and returned as an error naming the call. No goroutine outlives RunPool.
func RunPool[W, T any](ctx context.Context, n, parallel int, label func(i int) string,
	open func(ctx context.Context, worker int) (W, func() error, error),
	run func(ctx context.Context, state W, i int) (T, error)) ([]T, error) {
	if parallel <= 0 || parallel > n {
		parallel = n
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]T, n)
	var (
		first firstError
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		if first.keep(err) {
			cancel()
		}
	}
	for w := range parallel {
		wg.Go(func() {
			var state W
			if open != nil {
				var closeState func() error
				ok := false
				protect(fmt.Sprintf("worker %d", w), func() error {
					var err error
					state, closeState, err = open(ctx, w)
					ok = err == nil
					return err
				}, fail)
				if !ok {
					return
				}
				defer func() { fail(closeState()) }()
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					first.keep(err)
					return
				}
				name := label(i)
				protect(name, func() error {
					res, err := run(ctx, state, i)
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					results[i] = res
					return nil
				}, fail)
			}
		})
	}
	wg.Wait()
	if first.err != nil {
		return nil, first.err
	}
	return results, nil
}

// defaultParallel is the number of seeds to run at once when --parallel is not given:
// every seed under the real clock, where runs mostly sleep, and one per CPU under the
// virtual clock, where they compute.
func defaultParallel(virtual bool, nSeeds int) int {
	if virtual {
		return runtime.NumCPU()
	}
	return nSeeds
}

// CPUParallel is the seeds to run at once when the caller gives n: one per CPU
// when n is 0 or less, since these runs compute and never sleep.
func CPUParallel(n int) int {
	if n > 0 {
		return n
	}
	return defaultParallel(true, 0)
}
