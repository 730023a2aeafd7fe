package race_test

import (
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// A seed whose setup the server failed is that seed's outcome, in the
// server's words: the seeds before and after it run, and are counted.
func TestSetupFailureIsTheSeedsOutcome(t *testing.T) {
	target := simtest.FailingSetup{Target: simtest.MemTarget, Bad: 2}
	raceCfg := race.Default()
	raceCfg.Clock, raceCfg.Seeds, raceCfg.Edits = sim.ClockVirtual, []uint64{1, 2, 3}, 10
	raceCfg.Modes = []race.Mode{{Guard: contract.GuardNone, Policy: sim.Reapply}}
	rr := simtest.MustRunOn(t, raceCfg, simtest.On(target))

	var runs simtest.FailedSetupRuns
	for _, r := range rr.Runs {
		runs.Add(r.Seed, r.SetupFailed, r.Claude.Writes > 0)
	}
	runs.Check(t, "race")
	if got := (results.RaceRun{SetupFailed: "x"}).EndedEarly(); got != "x" {
		t.Errorf("a run whose setup failed did not end early: %q", got)
	}
}
