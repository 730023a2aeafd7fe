package sim

import (
	"context"
	"testing"

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
