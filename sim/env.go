package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/notesbench/notesbench/contract"
)

// ClockKind names the clock a run uses.
type ClockKind string

// The clocks.
const (
	ClockReal    ClockKind = "real"
	ClockVirtual ClockKind = "virtual"
)

// ParseClock parses real or virtual.
func ParseClock(s string) (ClockKind, error) {
	switch k := ClockKind(s); k {
	case ClockReal, ClockVirtual:
		return k, nil
	}
	return "", fmt.Errorf("unknown clock %q (want real or virtual)", s)
}

// Epoch is where virtual time starts: a fixed instant, so that timestamp versions
// and tab IDs are the same on every machine.
var Epoch = time.Date(2026, 11, 6, 9, 0, 0, 0, time.UTC)

// DefaultServiceTime is how far one store operation advances the virtual clock.
const DefaultServiceTime = 60 * time.Microsecond

// Env is how runs are executed, shared by every experiment: which clock, which
// seeds, how many at once, and what serves the contract.
type Env struct {
	Clock       ClockKind     `json:"clock"`
	ServiceTime time.Duration `json:"service_time_ns"`
	Seeds       []uint64      `json:"seeds"`
	// Parallel is how many seeds run at once; 0 means the default for the clock.
	Parallel int `json:"parallel"`
	// DBDir, InMemory and Synchronous record the embedded target's settings: the
	// folder every run's database is kept in (empty: a temporary folder), whether
	// the databases are in memory, and SQLite's synchronous setting. Target is
	// what they configured.
	DBDir       string `json:"db_dir,omitempty"`
	InMemory    bool   `json:"in_memory,omitempty"`
	Synchronous string `json:"synchronous"`

	// Target opens the contract of each run.
	Target contract.Target `json:"-"`
	// Progress, when set, is called after each run with the runs done and the total.
	Progress func(done, total int) `json:"-"`
}

// Validate checks the settings; errors name the flag.
func (e Env) Validate() error {
	if _, err := ParseClock(string(e.Clock)); err != nil {
		return fmt.Errorf("--clock: %w", err)
	}
	if e.ServiceTime < 0 {
		return errors.New("--service-time: must be 0 or more")
	}
	if len(e.Seeds) == 0 {
		return errors.New("--seeds: no seeds given")
	}
	if e.Parallel < 0 {
		return errors.New("--parallel: must be 0 or more")
	}
	if e.Target == nil {
		return errors.New("no contract target to run against")
	}
	return nil
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
	return DefaultParallel(e.Clock == ClockVirtual, runs)
}

// job is one run of an experiment: a seed under one mode.
type job[M any] struct {
	seed uint64
	mode M
}

// runJobs runs fn for every (mode, seed) pair, modes outer, with the Env's
// parallelism, and returns the results in that order.
func runJobs[M, T any](ctx context.Context, env Env, modes []M, fn func(ctx context.Context, mode M, seed uint64) (T, error)) ([]T, error) {
	var jobs []job[M]
	for _, m := range modes {
		for _, s := range env.Seeds {
			jobs = append(jobs, job[M]{seed: s, mode: m})
		}
	}
	done := make(chan struct{}, len(jobs))
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		n := 0
		for range done {
			n++
			if env.Progress != nil {
				env.Progress(n, len(jobs))
			}
		}
	}()
	label := func(i int) string { return fmt.Sprintf("%v, seed %d", jobs[i].mode, jobs[i].seed) }
	out, err := runAll(ctx, len(jobs), env.parallel(len(jobs)), label, func(ctx context.Context, i int) (T, error) {
		res, err := fn(ctx, jobs[i].mode, jobs[i].seed)
		if err == nil {
			done <- struct{}{}
		}
		return res, err
	})
	close(done)
	<-progressDone
	return out, err
}
