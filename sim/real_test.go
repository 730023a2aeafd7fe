package sim

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestRealSleep(t *testing.T) {
	c := NewReal()
	ctx := context.Background()
	for _, d := range []time.Duration{-time.Second, 0, time.Millisecond} {
		if err := c.Sleep(ctx, d); err != nil {
			t.Errorf("Sleep(%v) = %v", d, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Sleep(cancelled, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled ctx = %v, want context.Canceled", err)
	}
	if err := c.Sleep(cancelled, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(1h) on a cancelled ctx = %v, want context.Canceled", err)
	}
	if err := c.Busy(cancelled); err != nil {
		t.Errorf("Busy = %v, want nil", err)
	}
}

func TestRealRunWaitsForAll(t *testing.T) {
	var done atomic.Int32
	fn := func(ctx context.Context) error {
		err := NewReal().Sleep(ctx, time.Millisecond)
		done.Add(1)
		return err
	}
	if err := NewReal().Run(context.Background(), fn, fn, fn); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if done.Load() != 3 {
		t.Errorf("%d fns returned before Run did, want 3", done.Load())
	}
}

func TestRealRunErrorCancelsOthers(t *testing.T) {
	defer goleak.VerifyNone(t)
	c := NewReal()
	boom := errors.New("boom")
	var slept error
	err := c.Run(context.Background(),
		func(ctx context.Context) error {
			slept = c.Sleep(ctx, time.Hour) // returns only through cancellation
			return slept
		},
		func(ctx context.Context) error { return boom })
	if !errors.Is(err, boom) || err.Error() != "editor 1: boom" {
		t.Fatalf("Run = %v, want editor 1's boom", err)
	}
	if !errors.Is(slept, context.Canceled) {
		t.Errorf("sleeper got %v, want context.Canceled", slept)
	}
}

func TestRealRunParentCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	c := NewReal()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	err := c.Run(ctx, func(ctx context.Context) error {
		close(started)
		return c.Sleep(ctx, time.Hour)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestRealRunPanicBecomesError(t *testing.T) {
	c := NewReal()
	err := c.Run(context.Background(),
		func(ctx context.Context) error { return c.Sleep(ctx, time.Hour) },
		func(context.Context) error { panic("boom") })
	if err == nil || !strings.HasPrefix(err.Error(), "editor 1 panicked: boom\n") {
		t.Fatalf("Run = %v, want an error starting with \"editor 1 panicked: boom\"", err)
	}
}
