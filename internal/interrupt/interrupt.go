// Package interrupt is how a run of notesbench ends on a signal: the first
// SIGINT or SIGTERM cancels its context, so that everything stops and cleans
// up; a second ends the process at once, after a cleanup of its own.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// An interrupted run exits as a shell reports a process killed by the
// signal, 128 + its number.
const (
	ExitInterrupt = 130 // SIGINT, Ctrl-C
	ExitTerminate = 143 // SIGTERM
)

// Watcher cancels a run's context on the first SIGINT or SIGTERM and
// remembers which it was. A second one ends the process at once, once its
// cleanup has run (a run removes its scratch folder): a second Ctrl-C must
// not leave the run's databases behind.
type Watcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	quit   chan struct{} // closed by stop
	done   chan struct{} // closed when the watching goroutine returns
	sig    atomic.Value  // the os.Signal received, if any
	// exit ends the process after a second signal: os.Exit.
	exit func(code int)
}

// Watch starts watching for SIGINT and SIGTERM; cleanup runs after a second
// signal, before the process ends.
func Watch(cleanup func()) *Watcher {
	ctx, cancel := context.WithCancel(context.Background())
	in := &Watcher{ctx: ctx, cancel: cancel, ch: make(chan os.Signal, 2), quit: make(chan struct{}), done: make(chan struct{}), exit: os.Exit}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer close(in.done)
		select {
		case s := <-in.ch:
			in.sig.Store(s)
			cancel()
		case <-in.quit:
			return
		}
		select {
		case s := <-in.ch:
			cleanup()
			code := ExitInterrupt
			if s == syscall.SIGTERM {
				code = ExitTerminate
			}
			in.exit(code)
		case <-in.quit:
		}
	}()
	return in
}

// Context is the run's context, cancelled by the first signal.
func (in *Watcher) Context() context.Context { return in.ctx }

// Stop stops watching and waits for the watching goroutine.
func (in *Watcher) Stop() {
	signal.Stop(in.ch)
	close(in.quit)
	<-in.done
	in.cancel()
}

// ExitCode returns the exit code of a run the signal interrupted, and
// false when none did.
func (in *Watcher) ExitCode() (int, bool) {
	switch in.sig.Load() {
	case os.Interrupt:
		return ExitInterrupt, true
	case syscall.SIGTERM:
		return ExitTerminate, true
	}
	return 0, false
}
