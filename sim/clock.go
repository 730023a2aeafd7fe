package sim

import (
	"context"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// Clock is the time an experiment runs on. Editors sleep on it, the store reads
// commit times from it, and it owns the editor goroutines of one run so that the
// virtual implementation can schedule them.
//
// Two implementations exist: Real (wall clock, the operating system interleaves the
// editors) and Virtual (a deterministic scheduler that runs exactly one editor at a
// time and never sleeps for real).
type Clock interface {
	// Now returns the current time: wall time for Real, virtual time for
	// Virtual. It is the clock the stores read (contract.Clock).
	contract.Clock

	// Sleep pauses the calling editor for d. It returns ctx.Err() early when ctx is
	// cancelled. A d of zero or less yields to other editors on the virtual clock
	// and returns at once on the real one.
	Sleep(ctx context.Context, d time.Duration) error

	// Busy accounts for one store operation: the virtual clock advances the caller by
	// its service time (other editors may run meanwhile); the real clock does
	// nothing, because a real operation takes real time.
	Busy(ctx context.Context) error

	// BusyWrite accounts for one write transaction. The virtual clock models
	// SQLite's write lock: a writer that finds it held waits as SQLite's default
	// busy handler does (1, 2, 5, 10 … ms between attempts), then holds it for the
	// service time. The real clock does nothing: SQLite's own lock applies.
	BusyWrite(ctx context.Context) error

	// Run starts every fn as an editor goroutine on this clock and waits until all
	// have returned. The ctx handed to each fn is cancelled when ctx is, or when any
	// fn returns an error; Run returns the first error. No goroutine started by Run
	// outlives it. A clock runs one set of editors: call Run once.
	Run(ctx context.Context, fns ...func(ctx context.Context) error) error
}

// StoreEpoch is the time of the fixed clock the stores of the refs and outline
// experiments read, so that tab IDs (which carry their creation time) are the
// same on every run.
var StoreEpoch = time.Date(2026, time.November, 9, 9, 0, 0, 0, time.UTC)
