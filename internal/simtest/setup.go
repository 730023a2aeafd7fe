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
	return &contract.RefusedError{Tool: "create_entities", Reply: "the store does not parse: " + setupRefusal}
}

// setupRefusal is the words of FailingSetup's refusal, which a seed whose
// setup failed must keep.
const setupRefusal = "Unexpected non-whitespace character after JSON"

// FailedSetupRuns are the runs of seeds 1 to 3 against FailingSetup{Bad: 2},
// as Check reads them.
type FailedSetupRuns []setupRun

// setupRun is one run: its seed, why its setup failed ("": it did not), and
// whether it measured anything.
type setupRun struct {
	seed     uint64
	failed   string
	measured bool
}

// Add adds one run.
func (f *FailedSetupRuns) Add(seed uint64, failed string, measured bool) {
	*f = append(*f, setupRun{seed, failed, measured})
}

// Check fails t unless the setup of seed 2 failed in the server's words and
// seeds 1 and 3 ran and measured: a seed whose setup the server failed is
// that seed's outcome, not the run's end.
func (f FailedSetupRuns) Check(t testing.TB, what string) {
	t.Helper()
	var seeds []uint64
	for _, r := range f {
		seeds = append(seeds, r.seed)
		switch {
		case r.seed == 2 && !strings.Contains(r.failed, setupRefusal):
			t.Errorf("%s seed 2: setup failed %q, want the server's words", what, r.failed)
		case r.seed != 2 && (r.failed != "" || !r.measured):
			t.Errorf("%s seed %d: setup failed %q, measured %v", what, r.seed, r.failed, r.measured)
		}
	}
	if !slices.Contains(seeds, 1) || !slices.Contains(seeds, 2) || !slices.Contains(seeds, 3) {
		t.Errorf("%s ran seeds %v, want 1 to 3", what, seeds)
	}
}
