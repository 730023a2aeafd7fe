package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestRunSeedsKeepsSeedOrder(t *testing.T) {
	seeds := []uint64{5, 1, 9, 3}
	// Each seed waits for the one after it, so they finish in reverse order.
	finished := make([]chan struct{}, len(seeds)+1)
	for i := range finished {
		finished[i] = make(chan struct{})
	}
	close(finished[len(seeds)])
	index := map[uint64]int{5: 0, 1: 1, 9: 2, 3: 3}
	var order []uint64
	var mu sync.Mutex
	got, err := RunSeeds(context.Background(), seeds, 0, func(ctx context.Context, seed uint64) (string, error) {
		i := index[seed]
		<-finished[i+1]
		mu.Lock()
		order = append(order, seed)
		mu.Unlock()
		close(finished[i])
		return fmt.Sprintf("run %d", seed), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"run 5", "run 1", "run 9", "run 3"}; !slices.Equal(got, want) {
		t.Errorf("results %q, want %q", got, want)
	}
	if want := []uint64{3, 9, 1, 5}; !slices.Equal(order, want) {
		t.Errorf("completion order %v, want %v", order, want)
	}
}

func TestRunSeedsBoundsParallelism(t *testing.T) {
	for _, parallel := range []int{1, 2, 3} {
		var running, peak atomic.Int32
		seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
		got, err := RunSeeds(context.Background(), seeds, parallel, func(ctx context.Context, seed uint64) (uint64, error) {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			runtime.Gosched()
			running.Add(-1)
			return seed * 10, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []uint64{10, 20, 30, 40, 50, 60, 70, 80}; !slices.Equal(got, want) {
			t.Errorf("parallel %d: results %v, want %v", parallel, got, want)
		}
		if p := peak.Load(); p > int32(parallel) {
			t.Errorf("parallel %d: %d runs at once", parallel, p)
		}
	}
}

func TestRunSeedsErrorCancelsTheRest(t *testing.T) {
	defer goleak.VerifyNone(t)
	boom := errors.New("boom")
	started := make(chan struct{}, 3)
	var cancelled atomic.Int32
	_, err := RunSeeds(context.Background(), []uint64{1, 17, 3}, 0, func(ctx context.Context, seed uint64) (int, error) {
		started <- struct{}{}
		if seed == 17 {
			for range 3 { // wait until all three run, so the others see the cancellation
				<-started
			}
			return 0, boom
		}
		<-ctx.Done()
		cancelled.Add(1)
		return 0, ctx.Err()
	})
	if !errors.Is(err, boom) || err.Error() != "seed 17: boom" {
		t.Fatalf("RunSeeds = %v, want \"seed 17: boom\"", err)
	}
	if cancelled.Load() != 2 {
		t.Errorf("%d other seeds saw the cancellation, want 2", cancelled.Load())
	}
}

func TestRunSeedsErrorStopsLaterSeeds(t *testing.T) {
	var ran []uint64
	_, err := RunSeeds(context.Background(), []uint64{1, 2, 3, 4}, 1, func(ctx context.Context, seed uint64) (int, error) {
		ran = append(ran, seed)
		if seed == 2 {
			return 0, errors.New("boom")
		}
		return 0, nil
	})
	if err == nil || err.Error() != "seed 2: boom" {
		t.Fatalf("RunSeeds = %v, want \"seed 2: boom\"", err)
	}
	if want := []uint64{1, 2}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want %v", ran, want)
	}
}

func TestRunSeedsCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	_, err := RunSeeds(ctx, []uint64{1, 2}, 1, func(ctx context.Context, seed uint64) (int, error) {
		calls++
		return 0, nil
	})
	if !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("RunSeeds = %v after %d calls, want context.Canceled and no calls", err, calls)
	}
}

func TestRunSeedsPanicBecomesError(t *testing.T) {
	_, err := RunSeeds(context.Background(), []uint64{4, 8}, 2, func(ctx context.Context, seed uint64) (int, error) {
		if seed == 8 {
			panic("boom")
		}
		<-ctx.Done()
		return 0, ctx.Err()
	})
	if err == nil || !strings.HasPrefix(err.Error(), "seed 8 panicked: boom\n") {
		t.Fatalf("RunSeeds = %v, want an error starting with \"seed 8 panicked: boom\"", err)
	}
}

func TestRunSeedsOnVirtualClocks(t *testing.T) {
	// Each seed gets its own virtual clock; the per-seed traces must not depend on
	// how many seeds run at once.
	run := func(ctx context.Context, seed uint64) (string, error) {
		tr := &tracer{v: NewVirtual(epoch, 0)}
		r := Stream(seed, "pause")
		d := Dist{Max: 1000}
		editor := func(name string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				for range 5 {
					if err := tr.v.Sleep(ctx, d.Draw(r)); err != nil {
						return err
					}
					tr.log(name, "")
				}
				return nil
			}
		}
		err := tr.v.Run(ctx, editor("a"), editor("b"))
		return strings.Join(tr.lines, ";"), err
	}
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	one, err := RunSeeds(context.Background(), seeds, 1, run)
	if err != nil {
		t.Fatal(err)
	}
	all, err := RunSeeds(context.Background(), seeds, 0, run)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, all) {
		t.Errorf("traces differ between parallel 1 and parallel all:\n%q\n%q", one, all)
	}
	if one[0] == one[1] {
		t.Errorf("seeds 1 and 2 gave the same trace %q", one[0])
	}
}

func TestDefaultParallel(t *testing.T) {
	if got := defaultParallel(false, 5); got != 5 {
		t.Errorf("defaultParallel(real, 5) = %d, want 5", got)
	}
	if got := defaultParallel(true, 5); got != runtime.NumCPU() {
		t.Errorf("defaultParallel(virtual, 5) = %d, want NumCPU %d", got, runtime.NumCPU())
	}
}
