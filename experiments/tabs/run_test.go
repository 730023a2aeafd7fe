package tabs_test

import (
	"testing"

	"github.com/notesbench/notesbench/experiments/tabs"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/sim"
)

func TestTabsScopeInvariants(t *testing.T) {
	seeds, edits := 20, 50
	if testpass.Race {
		seeds = 8 // make test's time: make test-large runs 20
	}
	cfg := tabs.Default()
	cfg.Env = simtest.VirtualEnv(simtest.Seeds(1, uint64(seeds)))
	cfg.Edits = edits
	runs := simtest.MustRun(t, cfg).Runs
	note, tab := tabs.Summarize(runs[:seeds]), tabs.Summarize(runs[seeds:])
	if tab.ConflictsClaude+tab.ConflictsHuman != 0 || tab.Lost != 0 {
		t.Fatalf("tab scope: %+v", tab)
	}
	if note.ConflictsClaude == 0 || note.ConflictsHuman == 0 || note.Lost != 0 {
		t.Fatalf("note scope: %+v; want false conflicts on both sides and nothing lost", note)
	}
	if note.WritesClaude != seeds*edits || note.WritesHuman != seeds*edits {
		t.Fatalf("writes %d/%d", note.WritesClaude, note.WritesHuman)
	}
}

// Under published-fit, as under the default: a Note scope loses nothing and
// conflicts, a tab scope has no conflicts. (The published setup's counts
// under the profile are pinned by its baselines.)
func TestTabsPublishedFitInvariants(t *testing.T) {
	seeds := uint64(20)
	if testpass.Race {
		seeds = 6
	}
	tabsCfg := tabs.Default()
	tabsCfg.Env = simtest.VirtualEnv(simtest.Seeds(1, seeds))
	tabsCfg.Edits = 20
	tabsCfg.Editing = tabsCfg.WithTiming(sim.TimingPublishedFit)
	truns := simtest.MustRun(t, tabsCfg).Runs
	rows, err := tabsCfg.Fold(truns)
	if err != nil {
		t.Fatal(err)
	}
	if note, tab := rows[0], rows[1]; note.Lost != 0 || tab.Lost != 0 || tab.ConflictsClaude+tab.ConflictsHuman != 0 || note.ConflictsClaude == 0 {
		t.Fatalf("tabs under published-fit: %+v", rows)
	}
}
