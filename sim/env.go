package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/notesbench/notesbench/store"
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
// seeds, how many at once, and where the databases go.
type Env struct {
	Clock       ClockKind     `json:"clock"`
	ServiceTime time.Duration `json:"service_time_ns"`
	Seeds       []uint64      `json:"seeds"`
	// Parallel is how many seeds run at once; 0 means the default for the clock.
	Parallel int `json:"parallel"`
	// DBDir keeps every run's database in this folder; empty means a temporary
	// folder removed at the end.
	DBDir string `json:"db_dir,omitempty"`
	// InMemory keeps databases in memory instead of files, for fast statistical runs.
	InMemory    bool              `json:"in_memory,omitempty"`
	Synchronous store.Synchronous `json:"synchronous"`

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
	if e.Synchronous != "" {
		if _, err := store.ParseSynchronous(string(e.Synchronous)); err != nil {
			return fmt.Errorf("--synchronous: %w", err)
		}
	}
	return nil
}

func (e Env) newClock() Clock {
	if e.Clock == ClockVirtual {
		return NewVirtual(Epoch, e.ServiceTime)
	}
	return NewReal()
}

func (e Env) parallel(runs int) int {
	if e.Parallel > 0 {
		return e.Parallel
	}
	return DefaultParallel(e.Clock == ClockVirtual, runs)
}

// dbFolder returns the folder the run databases go in, and a cleanup that
// removes it when it is temporary.
func (e Env) dbFolder() (string, func(), error) {
	if e.InMemory {
		return "", func() {}, nil
	}
	if e.DBDir != "" {
		if err := os.MkdirAll(e.DBDir, 0o755); err != nil {
			return "", nil, fmt.Errorf("--db: %w", err)
		}
		return e.DBDir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "notesbench-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// openStore opens a run's store: a file named after the run in dir (replacing
// one left by an earlier run), or an in-memory database when dir is empty.
func openStore(dir, name string, opts store.Options) (*store.Store, error) {
	path := store.InMemory
	if dir != "" {
		path = filepath.Join(dir, name+".db")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	return store.Open(path, opts)
}

// job is one run of an experiment: a seed under one mode.
type job[M any] struct {
	seed uint64
	mode M
}

// runJobs runs fn for every (mode, seed) pair, modes outer, with the Env's
// parallelism, and returns the results in that order.
func runJobs[M, T any](ctx context.Context, env Env, modes []M, fn func(ctx context.Context, dir string, mode M, seed uint64) (T, error)) ([]T, error) {
	dir, cleanup, err := env.dbFolder()
	if err != nil {
		return nil, err
	}
	defer cleanup()
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
		res, err := fn(ctx, dir, jobs[i].mode, jobs[i].seed)
		if err == nil {
			done <- struct{}{}
		}
		return res, err
	})
	close(done)
	<-progressDone
	return out, err
}
