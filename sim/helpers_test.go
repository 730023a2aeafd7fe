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

// The experiments as earlier tests ran them: the runs, rows or whole result of
// one Run on the configuration's own seeds.

func raceRuns(ctx context.Context, c Race) ([]results.RaceRun, error) {
	res, err := c.Run(ctx, c.Seeds)
	return res.Runs, err
}

func tabsRuns(ctx context.Context, c Tabs) ([]results.RaceRun, error) {
	res, err := c.Run(ctx, c.Seeds)
	return res.Runs, err
}

func fastRuns(ctx context.Context, c Fast) ([]results.RaceRun, error) {
	res, err := c.Run(ctx, c.Seeds)
	return res.Runs, err
}

func benchRuns(ctx context.Context, c Bench) ([]results.BenchRun, error) {
	res, err := c.Run(ctx, nil)
	return res.Runs, err
}

func createResult(ctx context.Context, c Create) (Result[results.CreateRow, results.CreateRun], error) {
	return c.Run(ctx, c.Seeds)
}

func sourcesResult(ctx context.Context, c Sources) (Result[results.SourcesRow, results.SourcesRun], error) {
	return c.Run(ctx, c.Seeds)
}

func outlineRows(ctx context.Context, c Outline) ([]results.OutlineRow, error) {
	res, err := c.Run(ctx, c.SeedList())
	return res.Rows, err
}

func refsRows(ctx context.Context, c Refs) ([]results.RefsRow, error) {
	res, err := c.Run(ctx, c.SeedList())
	return res.Rows, err
}

func validateRows() ([]results.ValidateRow, error) {
	res, err := DefaultValidation().Run(context.Background(), nil)
	return res.Rows, err
}
