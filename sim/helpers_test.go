package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/store"
)

// memTarget is the contract every test runs on unless it says otherwise: a
// fresh in-memory SQLite database per run.
var memTarget = &store.Target{InMemory: true}

// fileTarget keeps every run's database as a WAL file in a test folder.
func fileTarget(t testing.TB, dir string) *store.Target {
	tg := &store.Target{Dir: dir}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// onMemory returns c, an experiment's default configuration, set to run on
// memTarget.
func onMemory[C any, P interface {
	*C
	hasRuntime
}](c C) C {
	P(&c).runtime().Target = memTarget
	return c
}

// test<Experiment> is the experiment's default configuration on memTarget.
func testRace() Race       { return onMemory(DefaultRace()) }
func testTabs() Tabs       { return onMemory(DefaultTabs()) }
func testFast() Fast       { return onMemory(DefaultFast()) }
func testCreate() Create   { return onMemory(DefaultCreate()) }
func testSources() Sources { return onMemory(DefaultSources()) }
func testRefs() Refs       { return onMemory(DefaultRefs()) }
func testOutline() Outline { return onMemory(DefaultOutline()) }
func testBench() Bench     { return onMemory(DefaultBench()) }

// mustRun runs exp on the seeds its configuration names; an error fails the
// test.
func mustRun[Row results.Row, Run any](t *testing.T, exp Experiment[Row, Run]) Result[Row, Run] {
	t.Helper()
	res, err := runOwn(context.Background(), exp)
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
// Validate gives the error wanted, and running it gives the same error, a
// *field.Error, before anything runs. base itself must be valid.
func expectInvalid[C Experiment[Row, Run], Row results.Row, Run any](t *testing.T, base func() C, bad []badConfig[C]) {
	t.Helper()
	for _, b := range bad {
		cfg := base()
		b.edit(&cfg)
		if err := cfg.Validate(); err == nil || err.Error() != b.want {
			t.Errorf("Validate() = %v, want %q", err, b.want)
		}
		if _, err := runOwn(context.Background(), cfg); !errors.As(err, new(*field.Error)) || err.Error() != b.want {
			t.Errorf("%T with a bad config returned %v, want the validation error", cfg, err)
		}
	}
	if err := base().Validate(); err != nil {
		t.Errorf("the default config is invalid: %v", err)
	}
}

// runOwn runs exp on the seeds its configuration names, as its command does.
func runOwn[Row results.Row, Run any](ctx context.Context, exp Experiment[Row, Run]) (Result[Row, Run], error) {
	return exp.Run(ctx, exp.SeedList())
}

// ownRuns returns the runs of runOwn.
func ownRuns[Row results.Row, Run any](ctx context.Context, exp Experiment[Row, Run]) ([]Run, error) {
	res, err := runOwn(ctx, exp)
	return res.Runs, err
}

// ownRows returns the rows of runOwn.
func ownRows[Row results.Row, Run any](ctx context.Context, exp Experiment[Row, Run]) ([]Row, error) {
	res, err := runOwn(ctx, exp)
	return res.Rows, err
}
