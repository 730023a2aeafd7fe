package sim

import (
	"testing"

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

func testRace() RaceConfig {
	c := DefaultRace()
	c.Target = memTarget
	return c
}

func testTabs() TabsConfig {
	c := DefaultTabs()
	c.Target = memTarget
	return c
}

func testFast() FastConfig {
	c := DefaultFast()
	c.Target = memTarget
	return c
}

func testCreate() CreateConfig {
	c := DefaultCreateConfig()
	c.Target = memTarget
	return c
}

func testSources() SourcesConfig {
	c := DefaultSourcesConfig()
	c.Target = memTarget
	return c
}

func testRefs() RefsConfig {
	c := DefaultRefsConfig()
	c.Target = memTarget
	return c
}

func testOutline() OutlineConfig {
	c := DefaultOutlineConfig()
	c.Target = memTarget
	return c
}

func testBench() BenchConfig {
	c := DefaultBench()
	c.Target = memTarget
	return c
}
