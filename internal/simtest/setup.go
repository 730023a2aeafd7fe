package simtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
)

// FailingSetup is a target but for the runs of seed Bad, whose Note the
// server does not make, as a store two writers destroyed refused to.
type FailingSetup struct {
	contract.Target
	Bad uint64
}

func (t FailingSetup) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.Target.Open(ctx, run)
	if err != nil || run.Seed != t.Bad {
		return b, err
	}
	return refusesNotes{b}, nil
}

type refusesNotes struct{ contract.Backend }

func (refusesNotes) CreateNote(context.Context, string) error {
	return &contract.RefusedError{Tool: "create_entities", Reply: "the store does not parse: Unexpected non-whitespace character after JSON"}
}

// FailedSetupRuns is what Check reads of each run of seeds 1 to
// 3 against FailingSetup{Bad: 2}: its seed, why its setup failed (""), and
// whether it measured anything.
type FailedSetupRuns struct {
	Seeds    []uint64
	Failed   []string
	Measured []bool
}

// Add adds one run.
func (f *FailedSetupRuns) Add(seed uint64, failed string, measured bool) {
	f.Seeds, f.Failed, f.Measured = append(f.Seeds, seed), append(f.Failed, failed), append(f.Measured, measured)
}

// Check fails t unless the setup of seed 2 failed in the server's words and
// seeds 1 and 3 ran and measured: a seed whose setup the server failed is
// that seed's outcome, not the run's end.
func (f FailedSetupRuns) Check(t testing.TB, what string) {
	t.Helper()
	for i, seed := range f.Seeds {
		switch {
		case seed == 2 && !strings.Contains(f.Failed[i], "Unexpected non-whitespace character after JSON"):
			t.Errorf("%s seed 2: setup failed %q, want the server's words", what, f.Failed[i])
		case seed != 2 && (f.Failed[i] != "" || !f.Measured[i]):
			t.Errorf("%s seed %d: setup failed %q, measured %v", what, seed, f.Failed[i], f.Measured[i])
		}
	}
	if !slices.Contains(f.Seeds, 1) || !slices.Contains(f.Seeds, 3) {
		t.Errorf("%s ran seeds %v, want 1 to 3", what, f.Seeds)
	}
}
