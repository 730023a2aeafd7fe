package race_test

import (
	"testing"

	"github.com/notesbench/notesbench/experiments/fast"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A run of several seeds equals the runs of each seed alone, assembled: what
// shards of an experiment merge back into.
func TestAssembleEqualsOneRun(t *testing.T) {
	seeds := testpass.Sized([]uint64{1, 2}, []uint64{1, 2, 3}) // make test-large assembles three
	raceCfg := race.Default()
	raceCfg.Env = simtest.VirtualEnv(seeds)
	raceCfg.Edits = 8
	tabsCfg := tabs.Default()
	tabsCfg.Env = simtest.VirtualEnv(seeds)
	tabsCfg.Edits = 8
	fastCfg := fast.Default()
	fastCfg.Env = simtest.VirtualEnv(seeds)
	fastCfg.Edits = 30
	simtest.CheckAssembled(t, sim.Runner[race.Row, results.RaceRun](raceCfg), seeds)
	simtest.CheckAssembled(t, sim.Runner[tabs.Row, results.RaceRun](tabsCfg), seeds)
	simtest.CheckAssembled(t, sim.Runner[fast.Row, results.RaceRun](fastCfg), seeds)
}

// A run splits into seeds only when its runs are the same number for each.
func TestSplitRefusesUnevenRuns(t *testing.T) {
	raceCfg := race.Default()
	one := sim.Result[race.Row, results.RaceRun]{Runs: make([]results.RaceRun, 5)}
	if _, err := sim.Split(sim.Runner[race.Row, results.RaceRun](raceCfg), one, 2); err == nil {
		t.Fatal("5 runs split into 2 seeds")
	}
}
