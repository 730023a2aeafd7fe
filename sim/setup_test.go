package sim

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/results"
)

// failingSetup is memTarget but for the runs of seed bad, whose Note the
// server does not make, as a store two writers destroyed refused to.
type failingSetup struct {
	contract.Target
	bad uint64
}

func (t failingSetup) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	if err != nil || run.Seed != t.bad {
		return b, err
	}
	return refusesNotes{b}, nil
}

type refusesNotes struct{ contract.Backend }

func (refusesNotes) CreateNote(context.Context, string) error {
	return &contract.RefusedError{Tool: "create_entities", Reply: "the store does not parse: Unexpected non-whitespace character after JSON"}
}

// A seed whose setup the server failed is that seed's outcome, in the
// server's words: the seeds before and after it run, and are counted.
func TestSetupFailureIsTheSeedsOutcome(t *testing.T) {
	target := failingSetup{memTarget, 2}
	race := DefaultRace()
	race.Clock, race.Seeds, race.Edits = ClockVirtual, []uint64{1, 2, 3}, 10
	race.Modes = []Mode{{Guard: contract.GuardNone, Policy: Reapply}}
	rr := mustRunOn(t, race, on(target))

	check := func(what string, seeds []uint64, failed []string, measured []bool) {
		t.Helper()
		for i, seed := range seeds {
			switch {
			case seed == 2 && !strings.Contains(failed[i], "Unexpected non-whitespace character after JSON"):
				t.Errorf("%s seed 2: setup failed %q, want the server's words", what, failed[i])
			case seed != 2 && (failed[i] != "" || !measured[i]):
				t.Errorf("%s seed %d: setup failed %q, measured %v", what, seed, failed[i], measured[i])
			}
		}
		if !slices.Contains(seeds, 1) || !slices.Contains(seeds, 3) {
			t.Errorf("%s ran seeds %v, want 1 to 3", what, seeds)
		}
	}
	var seeds []uint64
	var failed []string
	var measured []bool
	for _, r := range rr.Runs {
		seeds, failed, measured = append(seeds, r.Seed), append(failed, r.SetupFailed), append(measured, r.Claude.Writes > 0)
	}
	check("race", seeds, failed, measured)
	if got := (results.RaceRun{SetupFailed: "x"}).EndedEarly(); got != "x" {
		t.Errorf("a run whose setup failed did not end early: %q", got)
	}
}
