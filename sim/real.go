package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Real is a Clock on the wall clock: editors sleep for real and the operating system
// interleaves them. It is the published setup. The zero Real is ready to use.
type Real struct{}

var _ Clock = (*Real)(nil)

// NewReal returns a wall clock.
func NewReal() *Real { return &Real{} }

// Now returns the wall time.
func (*Real) Now() time.Time { return time.Now() }

// Sleep waits for d on a timer, or until ctx is cancelled, when it returns ctx.Err().
// A d of zero or less returns at once.
func (*Real) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Busy does nothing and returns nil: a real store operation takes real time.
func (*Real) Busy(context.Context) error { return nil }

// BusyWrite does nothing: a real write waits for SQLite's real write lock.
func (*Real) BusyWrite(context.Context) error { return nil }

// Run starts every fn in its own goroutine, in sim's one pool with a worker
// per fn, and waits for all of them. The ctx handed to each fn is cancelled
// when ctx is or when any fn returns an error. Run returns the first error,
// preferring an fn's own error to a context error, naming the editor ("editor
// 1: ...", counting fns from 0); a panic in an fn is recovered and returned
// as an error naming the editor.
func (*Real) Run(ctx context.Context, fns ...func(ctx context.Context) error) error {
	_, err := RunAll(ctx, len(fns), len(fns), editorName, func(ctx context.Context, i int) (struct{}, error) {
		return struct{}{}, fns[i](ctx)
	})
	return err
}

// editorName names the fn at position i of Run's arguments in errors.
func editorName(i int) string { return fmt.Sprintf("editor %d", i) }

// protect calls f and hands its error to report. A panic in f, or a runtime.Goexit,
// reaches report as an error naming who, instead of killing the process or leaving
// the caller waiting for a result that never comes.
func protect(who string, f func() error, report func(error)) {
	var err error
	returned := false
	defer func() {
		if !returned {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s panicked: %v\n\n%s", who, r, debug.Stack())
			} else {
				err = fmt.Errorf("%s exited without returning (runtime.Goexit)", who)
			}
		}
		report(err)
	}()
	err = f()
	returned = true
}

// firstError keeps the error a group of goroutines reports: the first one, except
// that an error of its own beats a context error, which may only echo the
// cancellation an earlier error caused.
type firstError struct {
	mu  sync.Mutex
	err error
}

// keep records err if it is the one to report, and says whether err is non-nil.
func (f *firstError) keep(err error) bool {
	if err == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil || (isContextErr(f.err) && !isContextErr(err)) {
		f.err = err
	}
	return true
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
