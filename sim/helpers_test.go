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

func testRace() Race {
	c := DefaultRace()
	c.Target = memTarget
	return c
}

func testTabs() Tabs {
	c := DefaultTabs()
	c.Target = memTarget
	return c
}

func testFast() Fast {
	c := DefaultFast()
	c.Target = memTarget
	return c
}

func testCreate() Create {
	c := DefaultCreate()
	c.Target = memTarget
	return c
}

func testSources() Sources {
	c := DefaultSources()
	c.Target = memTarget
	return c
}

func testRefs() Refs {
	c := DefaultRefs()
	c.Target = memTarget
	return c
}

func testOutline() Outline {
	c := DefaultOutline()
	c.Target = memTarget
	return c
}

func testBench() Bench {
	c := DefaultBench()
	c.Target = memTarget
	return c
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
