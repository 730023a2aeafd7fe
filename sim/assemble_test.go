package sim_test

import (
	"testing"

	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A run of several seeds equals the runs of each seed alone, assembled: what
// shards of an experiment merge back into.
func TestAssembleEqualsOneRun(t *testing.T) {
	seeds := simtest.AssembleSeeds()
	race := sim.DefaultRace()
	race.Env = simtest.VirtualEnv(seeds)
	race.Edits = 8
	tabs := sim.DefaultTabs()
	tabs.Env = simtest.VirtualEnv(seeds)
	tabs.Edits = 8
	fast := sim.DefaultFast()
	fast.Env = simtest.VirtualEnv(seeds)
	fast.Edits = 30
	simtest.CheckAssembled(t, sim.Runner[results.RaceRow, results.RaceRun](race), seeds)
	simtest.CheckAssembled(t, sim.Runner[results.TabsRow, results.RaceRun](tabs), seeds)
	simtest.CheckAssembled(t, sim.Runner[results.FastRow, results.RaceRun](fast), seeds)
}

// A run splits into seeds only when its runs are the same number for each.
func TestSplitRefusesUnevenRuns(t *testing.T) {
	race := sim.DefaultRace()
	one := sim.Result[results.RaceRow, results.RaceRun]{Runs: make([]results.RaceRun, 5)}
	if _, err := sim.Split(sim.Runner[results.RaceRow, results.RaceRun](race), one, 2); err == nil {
		t.Fatal("5 runs split into 2 seeds")
	}
}
