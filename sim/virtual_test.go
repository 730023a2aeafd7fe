package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// tracer records "<virtual offset> <editor> <event>" lines. Editors append to it
// without a lock: the virtual clock runs one at a time, and -race checks that claim.
type tracer struct {
	v     *Virtual
	lines []string
}

func (tr *tracer) log(who, what string) {
	tr.lines = append(tr.lines, fmt.Sprintf("%v %s %s", tr.v.Now().Sub(epoch), who, what))
}

// threeEditors runs a, b and c with known sleeps on a fresh virtual clock and returns
// the trace.
func threeEditors(t *testing.T) []string {
	t.Helper()
	tr := &tracer{v: NewVirtual(epoch, 0)}
	sleep := func(ctx context.Context, d time.Duration) {
		if err := tr.v.Sleep(ctx, d); err != nil {
			t.Errorf("Sleep(%v) = %v", d, err)
		}
	}
	a := func(ctx context.Context) error {
		tr.log("a", "start")
		sleep(ctx, 10*time.Millisecond)
		tr.log("a", "woke")
		sleep(ctx, 10*time.Millisecond)
		tr.log("a", "done")
		return nil
	}
	b := func(ctx context.Context) error {
		tr.log("b", "start")
		sleep(ctx, 15*time.Millisecond)
		tr.log("b", "woke")
		sleep(ctx, 5*time.Millisecond)
		tr.log("b", "done")
		return nil
	}
	c := func(ctx context.Context) error {
		tr.log("c", "start")
		sleep(ctx, 0)
		tr.log("c", "yielded")
		sleep(ctx, 20*time.Millisecond)
		tr.log("c", "done")
		return nil
	}
	if err := tr.v.Run(context.Background(), a, b, c); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if got, want := tr.v.Now(), epoch.Add(20*time.Millisecond); !got.Equal(want) {
		t.Errorf("Now after Run = %v, want %v", got, want)
	}
	return tr.lines
}

func TestVirtualTrace(t *testing.T) {
	want := []string{
		"0s a start",
		"0s b start",
		"0s c start",
		"0s c yielded",
		"10ms a woke",
		"15ms b woke",
		"20ms c done", // c asked for 20ms first (lowest seq among the 20ms wake-ups)
		"20ms a done",
		"20ms b done",
	}
	if got := threeEditors(t); !slices.Equal(got, want) {
		t.Fatalf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestVirtualTraceIsDeterministic(t *testing.T) {
	want := threeEditors(t)
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for i := range 50 {
			if got := threeEditors(t); !slices.Equal(got, want) {
				runtime.GOMAXPROCS(prev)
				t.Fatalf("GOMAXPROCS %d, repetition %d: trace\n%s\nwant\n%s", procs, i,
					strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

func TestVirtualSleepZeroYieldsInSeqOrder(t *testing.T) {
	tr := &tracer{v: NewVirtual(epoch, 0)}
	editor := func(name string, yield func(ctx context.Context) error) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			for i := range 3 {
				tr.log(name, fmt.Sprint(i))
				if err := yield(ctx); err != nil {
					return err
				}
			}
			return nil
		}
	}
	sleep0 := func(ctx context.Context) error { return tr.v.Sleep(ctx, 0) }
	sleepNeg := func(ctx context.Context) error { return tr.v.Sleep(ctx, -time.Second) }
	err := tr.v.Run(context.Background(),
		editor("x", sleep0), editor("y", tr.v.Busy), editor("z", sleepNeg))
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := []string{"0s x 0", "0s y 0", "0s z 0", "0s x 1", "0s y 1", "0s z 1", "0s x 2", "0s y 2", "0s z 2"}
	if !slices.Equal(tr.lines, want) {
		t.Fatalf("trace %q, want %q", tr.lines, want)
	}
}

func TestVirtualBusyAdvancesByServiceTime(t *testing.T) {
	const service = 60 * time.Microsecond
	tr := &tracer{v: NewVirtual(epoch, service)}
	op := func(name string, n int) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			for i := range n {
				if err := tr.v.Busy(ctx); err != nil {
					return err
				}
				tr.log(name, fmt.Sprint(i))
			}
			return nil
		}
	}
	if err := tr.v.Run(context.Background(), op("p", 3), op("q", 2)); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := []string{"60µs p 0", "60µs q 0", "120µs p 1", "120µs q 1", "180µs p 2"}
	if !slices.Equal(tr.lines, want) {
		t.Fatalf("trace %q, want %q", tr.lines, want)
	}
	if got, want := tr.v.Now(), epoch.Add(3*service); !got.Equal(want) {
		t.Errorf("Now = %v, want %v", got, want)
	}
}

func TestVirtualSleepOutsideRunAdvancesTime(t *testing.T) {
	v := NewVirtual(epoch, 60*time.Microsecond)
	ctx := context.Background()
	if err := v.Sleep(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := v.Busy(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := v.Now(), epoch.Add(time.Second+60*time.Microsecond); !got.Equal(want) {
		t.Errorf("Now = %v, want %v", got, want)
	}
	// A second Run continues from there.
	var woke time.Time
	err := v.Run(ctx, func(ctx context.Context) error {
		err := v.Sleep(ctx, time.Millisecond)
		woke = v.Now()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := epoch.Add(time.Second + 1060*time.Microsecond); !woke.Equal(want) {
		t.Errorf("woke at %v, want %v", woke, want)
	}
}

func TestVirtualOneEditorAtATime(t *testing.T) {
	// shared is written without synchronization; -race fails the test if two
	// editors ever run at once.
	v := NewVirtual(epoch, time.Microsecond)
	shared := 0
	bump := func(ctx context.Context) error {
		for range 200 {
			shared++
			if err := v.Busy(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	if err := v.Run(context.Background(), bump, bump, bump, bump); err != nil {
		t.Fatal(err)
	}
	if shared != 800 {
		t.Errorf("shared = %d, want 800", shared)
	}
}

// sleepForever sleeps 1ms at a time until Sleep fails, stores that error and returns it.
func sleepForever(v *Virtual, got *error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			if err := v.Sleep(ctx, time.Millisecond); err != nil {
				*got = err
				return err
			}
		}
	}
}

func TestVirtualFnErrorCancelsOthers(t *testing.T) {
	defer goleak.VerifyNone(t)
	v := NewVirtual(epoch, 0)
	boom := errors.New("boom")
	var errA, errC error
	var ctxErrC error
	started := false
	err := v.Run(context.Background(),
		sleepForever(v, &errA),
		func(ctx context.Context) error {
			if err := v.Sleep(ctx, 3*time.Millisecond+time.Microsecond); err != nil {
				return err
			}
			return boom
		},
		func(ctx context.Context) error {
			if err := v.Sleep(ctx, time.Hour); err != nil {
				errC, ctxErrC = err, ctx.Err()
				// Sleeping again after cancellation returns at once.
				return v.Sleep(ctx, time.Hour)
			}
			started = true
			return nil
		})
	if err != boom {
		t.Fatalf("Run = %v, want boom", err)
	}
	if !errors.Is(errA, context.Canceled) || !errors.Is(errC, context.Canceled) || !errors.Is(ctxErrC, context.Canceled) {
		t.Errorf("sleepers got %v and %v (ctx %v), want context.Canceled", errA, errC, ctxErrC)
	}
	if started {
		t.Error("the hour-long sleeper woke normally")
	}
	if got, want := v.Now(), epoch.Add(3*time.Millisecond+time.Microsecond); !got.Equal(want) {
		t.Errorf("Now = %v, want %v (time must stop at the error)", got, want)
	}
}

func TestVirtualPrefersFnErrorOverCanceled(t *testing.T) {
	v := NewVirtual(epoch, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flush := errors.New("flush failed")
	err := v.Run(ctx,
		func(ctx context.Context) error {
			cancel()
			return v.Sleep(ctx, time.Millisecond) // context.Canceled, reported first
		},
		func(ctx context.Context) error {
			if err := v.Sleep(ctx, time.Second); err == nil {
				return errors.New("slept through the cancellation")
			}
			return flush
		})
	if err != flush {
		t.Fatalf("Run = %v, want %v", err, flush)
	}
}

func TestVirtualCancelFromOutside(t *testing.T) {
	defer goleak.VerifyNone(t)
	v := NewVirtual(epoch, 0)
	ctx, cancel := context.WithCancel(context.Background())
	var errA, errB error
	go func() {
		for v.running.Load() == false {
			runtime.Gosched()
		}
		cancel()
	}()
	err := v.Run(ctx, sleepForever(v, &errA), sleepForever(v, &errB))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if !errors.Is(errA, context.Canceled) || !errors.Is(errB, context.Canceled) {
		t.Errorf("editors got %v and %v, want context.Canceled", errA, errB)
	}
}

func TestVirtualDeadline(t *testing.T) {
	v := NewVirtual(epoch, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	var errA error
	if err := v.Run(ctx, sleepForever(v, &errA)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want context.DeadlineExceeded", err)
	}
}

func TestVirtualAlreadyCancelledStillCallsEveryFn(t *testing.T) {
	v := NewVirtual(epoch, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	fn := func(ctx context.Context) error {
		calls++
		return v.Sleep(ctx, time.Second)
	}
	if err := v.Run(ctx, fn, fn); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if calls != 2 || !v.Now().Equal(epoch) {
		t.Errorf("calls = %d, Now = %v; want 2 calls and no time passing", calls, v.Now())
	}
}

func TestVirtualPanicBecomesError(t *testing.T) {
	defer goleak.VerifyNone(t)
	v := NewVirtual(epoch, 0)
	var errA error
	err := v.Run(context.Background(),
		sleepForever(v, &errA),
		func(ctx context.Context) error {
			if err := v.Sleep(ctx, 2*time.Millisecond); err != nil {
				return err
			}
			panic("boom")
		})
	if err == nil || !strings.HasPrefix(err.Error(), "editor 1 panicked: boom\n") {
		t.Fatalf("Run = %v, want an error starting with \"editor 1 panicked: boom\"", err)
	}
	if !errors.Is(errA, context.Canceled) {
		t.Errorf("other editor got %v, want context.Canceled", errA)
	}
}

func TestVirtualGoexitBecomesError(t *testing.T) {
	v := NewVirtual(epoch, 0)
	err := v.Run(context.Background(), func(context.Context) error { return nil },
		func(context.Context) error { runtime.Goexit(); return nil })
	if err == nil || err.Error() != "editor 1 exited without returning (runtime.Goexit)" {
		t.Fatalf("Run = %v", err)
	}
}

func TestVirtualRunIsNotReentrant(t *testing.T) {
	v := NewVirtual(epoch, 0)
	var inner error
	err := v.Run(context.Background(), func(ctx context.Context) error {
		inner = v.Run(ctx)
		return nil
	})
	if err != nil || inner == nil || inner.Error() != "virtual clock is already running editors" {
		t.Fatalf("Run = %v, nested Run = %v", err, inner)
	}
	if err := v.Run(context.Background()); err != nil {
		t.Fatalf("Run with no editors = %v", err)
	}
}

func BenchmarkVirtualSleep(b *testing.B) {
	// Two editors ping-pong, so every Sleep is a switch to the other editor.
	v := NewVirtual(epoch, 0)
	sleeper := func(n int) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			for range n {
				if err := v.Sleep(ctx, time.Microsecond); err != nil {
					return err
				}
			}
			return nil
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if err := v.Run(context.Background(), sleeper(b.N/2), sleeper(b.N-b.N/2)); err != nil {
		b.Fatal(err)
	}
}

func TestNewVirtualDropsMonotonicReading(t *testing.T) {
	start := time.Now()
	if got := NewVirtual(start, 0).Now().String(); strings.Contains(got, "m=") {
		t.Errorf("Now() = %s, want no monotonic reading", got)
	}
}

// Two writers at one instant: the second finds the modelled write lock held and
// waits as SQLite's busy handler does (1 ms, then 2 ms, …), not just the service
// time; reads never wait.
func TestVirtualBusyWriteModelsTheWriteLock(t *testing.T) {
	v := NewVirtual(time.Unix(0, 0), 60*time.Microsecond)
	var got [3]time.Duration
	err := v.Run(context.Background(),
		func(ctx context.Context) error {
			err := v.BusyWrite(ctx)
			got[0] = v.Now().Sub(time.Unix(0, 0))
			return err
		},
		func(ctx context.Context) error {
			err := v.BusyWrite(ctx)
			got[1] = v.Now().Sub(time.Unix(0, 0))
			return err
		},
		func(ctx context.Context) error {
			err := v.Busy(ctx)
			got[2] = v.Now().Sub(time.Unix(0, 0))
			return err
		},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := [3]time.Duration{60 * time.Microsecond, time.Millisecond + 60*time.Microsecond, 60 * time.Microsecond}
	if got != want {
		t.Fatalf("finish times %v, want %v", got, want)
	}
}
