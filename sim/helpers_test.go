package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/store"
)

// bg is the context of calls no test cancels.
var bg = context.Background()

// memTarget is the contract every test runs on unless it says otherwise: a
// fresh in-memory SQLite database per run.
var memTarget = &store.Target{InMemory: true}

// fileTarget keeps every run's database as a WAL file in a test folder.
func fileTarget(t testing.TB, dir string) *store.Target {
	tg := &store.Target{Dir: dir}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// onMemory is the Runtime every test runs on unless it says otherwise: runs
// go to memTarget, nothing is recorded.
var onMemory = Runtime{Target: memTarget}

// on is the Runtime of runs that go to target.
func on(target contract.Target) Runtime { return Runtime{Target: target} }

// mustRun runs exp on memTarget on the seeds its configuration names; an
// error fails the test.
func mustRun[Row results.Row, Run any](t *testing.T, exp Runner[Row, Run]) Result[Row, Run] {
	t.Helper()
	return mustRunOn(t, exp, onMemory)
}

// mustRunOn runs exp against rt on the seeds its configuration names; an
// error fails the test.
func mustRunOn[Row results.Row, Run any](t *testing.T, exp Runner[Row, Run], rt Runtime) Result[Row, Run] {
	t.Helper()
	res, err := runOn(context.Background(), exp, rt)
	if err != nil {
		t.Fatalf("%T(%+v): %v", exp, exp, err)
	}
	return res
}

// mustGet returns what get returns; its error fails the test.
func mustGet[T any](t *testing.T, get func() (T, error)) T {
	t.Helper()
	v, err := get()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// badConfig is an edit that makes an experiment's configuration invalid, and
// the error Validate must give for it.
type badConfig[C any] struct {
	edit func(*C)
	want string
}

// expectInvalid checks each bad edit of the configuration base returns: its
// Validate against memTarget gives the error wanted, and running it gives the
// same error, a *field.Error, before anything runs. base itself must be
// valid.
func expectInvalid[C Runner[Row, Run], Row results.Row, Run any](t *testing.T, base func() C, bad []badConfig[C]) {
	t.Helper()
	for _, b := range bad {
		cfg := base()
		b.edit(&cfg)
		if err := cfg.Validate(memTarget); err == nil || err.Error() != b.want {
			t.Errorf("Validate() = %v, want %q", err, b.want)
		}
		if _, err := runOwn(context.Background(), cfg); !errors.As(err, new(*field.Error)) || err.Error() != b.want {
			t.Errorf("%T with a bad config returned %v, want the validation error", cfg, err)
		}
	}
	if err := base().Validate(memTarget); err != nil {
		t.Errorf("the default config is invalid: %v", err)
	}
}

// runOwn runs exp on memTarget on the seeds its configuration names, as its
// command does.
func runOwn[Row results.Row, Run any](ctx context.Context, exp Runner[Row, Run]) (Result[Row, Run], error) {
	return runOn(ctx, exp, onMemory)
}

// runOn runs exp against rt on the seeds its configuration names.
func runOn[Row results.Row, Run any](ctx context.Context, exp Runner[Row, Run], rt Runtime) (Result[Row, Run], error) {
	return exp.Run(ctx, rt, exp.SeedList())
}

// ownRuns returns the runs of runOwn.
func ownRuns[Row results.Row, Run any](ctx context.Context, exp Runner[Row, Run]) ([]Run, error) {
	res, err := runOwn(ctx, exp)
	return res.Runs, err
}

// runsOn returns the runs of runOn.
func runsOn[Row results.Row, Run any](ctx context.Context, exp Runner[Row, Run], rt Runtime) ([]Run, error) {
	res, err := runOn(ctx, exp, rt)
	return res.Runs, err
}

// ownRows returns the rows of runOwn.
func ownRows[Row results.Row, Run any](ctx context.Context, exp Runner[Row, Run]) ([]Row, error) {
	res, err := runOwn(ctx, exp)
	return res.Rows, err
}
