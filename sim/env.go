package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
)

// ClockKind names the clock a run uses.
type ClockKind string

// The clocks.
const (
	ClockReal    ClockKind = "real"
	ClockVirtual ClockKind = "virtual"
)

// Clocks is the enum of the clocks.
var Clocks = contract.NewEnum("clock", ClockReal, ClockVirtual)

// Epoch is where virtual time starts: a fixed instant, so that timestamp versions
// and tab IDs are the same on every machine.
var Epoch = time.Date(2026, 11, 6, 9, 0, 0, 0, time.UTC)

// DefaultServiceTime is how far one store operation advances the virtual clock.
const DefaultServiceTime = 60 * time.Microsecond

// Env is how runs are executed, shared by the experiments of the race
// engine: which clock, which seeds, how many at once, and what the runs go to
// (the target's settings; the target itself is the Runtime's).
type Env struct {
	Clock       ClockKind     `json:"clock"`
	ServiceTime time.Duration `json:"service_time_ns"`
	Seeds       []uint64      `json:"seeds"`
	// Parallel is how many seeds run at once; 0 means the default for the clock.
	Parallel int `json:"parallel"`
	// DBDir, InMemory and Synchronous record the embedded target's settings: the
	// folder every run's database is kept in (empty: a temporary folder), whether
	// the databases are in memory, and SQLite's synchronous setting. The
	// Runtime's Target is what they configured.
	DBDir       string               `json:"db_dir"`
	InMemory    bool                 `json:"in_memory"`
	Synchronous contract.Synchronous `json:"synchronous"`

	TargetSettings
}

// Validate checks the settings, and that there is a target to run on; its
// errors are *field.Error.
func (e Env) Validate(target contract.Target) error {
	if _, err := Clocks.Parse(string(e.Clock)); err != nil {
		return field.Wrap("clock", err)
	}
	if e.ServiceTime < 0 {
		return fieldErr("service_time_ns", "must be 0 or more")
	}
	if err := field.AtMostDuration("service_time_ns", e.ServiceTime, time.Second, "a writer that finds the lock held retries every 100 ms of it, so the work grows with it; stores take microseconds"); err != nil {
		return err
	}
	if len(e.Seeds) == 0 {
		return fieldErr("seeds", "no seeds given")
	}
	if err := ValidateParallel(e.Parallel); err != nil {
		return err
	}
	if target == nil {
		return ErrNoTarget
	}
	return nil
}

// MaxParallel bounds how many runs an experiment makes at once (--parallel):
// each run at once holds its own databases and editors.
const MaxParallel = 256

// ValidateParallel checks how many runs may go at once: 0 (the default) to
// MaxParallel. It is the one check of --parallel: every experiment that takes
// it and the audit, which hands it to its experiments, call it. Its errors are
// *field.Error on "parallel".
func ValidateParallel(n int) error {
	if n < 0 {
		return fieldErr("parallel", "must be 0 or more")
	}
	return field.AtMost("parallel", n, MaxParallel, "each run at once holds its own databases and editors")
}

// maxEdits bounds the edits of one editor.
const maxEdits = 10_000

// ValidateEdits checks the edits per editor of a run.
func ValidateEdits(n int) error {
	if n < 1 {
		return fieldErr("edits", "must be at least 1")
	}
	return field.AtMost("edits", n, maxEdits, "each write carries the whole text, which grows by a line per edit: time grows with the square of the edits")
}

// SeedList implements Runner for the experiments that run on an Env: the
// seeds it names.
func (e Env) SeedList() []uint64 { return e.Seeds }

// Departures implements Runner for the experiments that run on an Env:
// the Env's own departures, then the target's (TargetSettings.Departures).
func (e Env) Departures(target contract.Target) []string {
	return append(e.departures(), e.TargetSettings.Departures(target)...)
}

// DescribeRun says how the runs of e against target execute, in a few words:
// "real clock", or "virtual clock, 60µs per store operation".
func (e Env) DescribeRun(target contract.Target) string {
	s := string(e.Clock) + " clock"
	if e.Clock == ClockVirtual {
		s += fmt.Sprintf(", %s per store operation", e.ServiceTime)
	}
	if e.InMemory {
		s += ", databases in memory"
	}
	if e.Store != "" {
		s += ", on PostgreSQL " + e.Store
	}
	return s + servedNote(target)
}

// departures lists how the runs depart from the published setup in a way
// that changes counts, beside the parameters: the virtual clock's service
// time, an in-memory database under the real clock (no WAL, other locking).
func (e Env) departures() []string {
	var out []string
	if e.Clock == ClockVirtual && e.ServiceTime != DefaultServiceTime {
		out = append(out, fmt.Sprintf("service-time %s (our model of the published setup: %s)", e.ServiceTime, DefaultServiceTime))
	}
	if e.Clock == ClockReal && e.InMemory {
		out = append(out, "database in memory (published: a WAL file)")
	}
	return out
}

// Replica returns the settings of a verdict replication: the virtual clock with
// the same service time, in memory, one run at a time (the driver runs the
// seeds in parallel), with no target settings.
func (e Env) Replica() Env {
	return Env{Clock: ClockVirtual, ServiceTime: e.ServiceTime, Seeds: e.Seeds, Parallel: 1, InMemory: true,
		Synchronous: e.Synchronous}
}

func (e Env) newClock() Clock {
	if e.Clock == ClockVirtual {
		return NewVirtual(Epoch, e.ServiceTime)
	}
	return NewReal()
}

// storeClock is the clock a run's contract reads commit times from: the virtual
// clock, or nil on the real clock, where each implementation keeps its own (the
// database server's, for one that has a server).
func (e Env) storeClock(c Clock) contract.Clock {
	if e.Clock == ClockVirtual {
		return c
	}
	return nil
}

func (e Env) parallel(runs int) int {
	if e.Parallel > 0 {
		return e.Parallel
	}
	return defaultParallel(e.Clock == ClockVirtual, runs)
}

// job is one run of an experiment: a seed under one mode.
type job[M any] struct {
	seed uint64
	mode M
}

// runJobs runs fn for every (mode, seed) pair, modes outer, with the Env's
// parallelism, reporting progress to rt, and returns the results in that
// order.
func runJobs[M, T any](ctx context.Context, env Env, rt Runtime, seeds []uint64, modes []M, fn func(ctx context.Context, mode M, seed uint64) (T, error)) ([]T, error) {
	var jobs []job[M]
	for _, m := range modes {
		for _, s := range seeds {
			jobs = append(jobs, job[M]{seed: s, mode: m})
		}
	}
	ticks := newProgress(len(jobs), rt.Progress)
	defer ticks.stop()
	label := func(i int) string { return fmt.Sprintf("%v, seed %d", jobs[i].mode, jobs[i].seed) }
	return RunAll(ctx, len(jobs), env.parallel(len(jobs)), label, func(ctx context.Context, i int) (T, error) {
		res, err := fn(ctx, jobs[i].mode, jobs[i].seed)
		if err == nil {
			ticks.tick()
		}
		return res, err
	})
}

// PublishedEnv is the environment of the published race, tabs and fast
// setups: the real clock (the virtual one's service time at its default),
// seeds 1 to 5, synchronous normal.
func PublishedEnv() Env {
	return Env{Clock: ClockReal, ServiceTime: DefaultServiceTime, Seeds: []uint64{1, 2, 3, 4, 5}, Synchronous: contract.SyncNormal}
}
