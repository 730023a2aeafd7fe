package create

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// create resends a call whose outcome nobody knows as it resends a lost
// reply: with the key kept, one tab per intent; with a fresh key, the
// commits it did not hear of are duplicates, counted from the store.
func TestCreateResendsAfterAnUnknownOutcome(t *testing.T) {
	f := func(_ string, session, n int, tool string) (error, bool) {
		if tool == contract.ToolCreateNoteTab && n%3 == 0 {
			return simtest.ErrTimeout, true
		}
		return nil, false
	}
	c := Default()
	c.Seeds, c.Tabs, c.Drop, c.Table = []uint64{1}, 20, 0, TableA
	res := simtest.MustRunOn(t, c, simtest.On(simtest.NewFaulty(f)))
	for _, r := range res.Runs {
		if r.Errors == 0 || r.Stopped != "" {
			t.Errorf("%s: errors %d, stopped %q", r.KeyPolicy, r.Errors, r.Stopped)
		}
		switch r.KeyPolicy {
		case KeyRetry:
			if r.Duplicates != 0 {
				t.Errorf("same key on resend: %d duplicates, want 0", r.Duplicates)
			}
		case KeyNone:
			if r.Duplicates != r.Errors {
				t.Errorf("a fresh key on every resend: %d duplicates, want one per timeout after a commit (%d)", r.Duplicates, r.Errors)
			}
		}
	}
}

// The checker agrees with the engine on the create setup, tables A and B: the
// same duplicate tabs per run, no acknowledged tab missing, and duplicates
// exactly where the client gave the key no chance (a new key on every call, or
// after a conflict under version-first), none where it reused the key under
// either order or renewed it after a conflict under key-first. Replays always
// return the first result, and every register is linearizable, lost replies
// and all.
func TestCheckAgreesWithCreateEngine(t *testing.T) {
	chunks := simtest.AgreementSeeds()
	dups := map[string]int{}
	for _, seeds := range chunks {
		agreeWithCreateEngine(t, seeds, dups)
	}
	for row, n := range dups {
		allowed := strings.HasSuffix(row, "-"+KeyNone) || strings.HasSuffix(row, "-"+KeyFresh) ||
			row == "create-b-version-first-"+KeyAfterConflict
		if allowed != (n > 0) {
			t.Errorf("%s: %d duplicates over %d seeds; the contract allows them: %v", row, n, simtest.SeedCount(chunks), allowed)
		}
	}
	t.Logf("%d seeds; duplicates per row: %v", simtest.SeedCount(chunks), dups)
}

func agreeWithCreateEngine(t *testing.T, seeds []uint64, dups map[string]int) {
	t.Helper()
	w := history.NewWriter(history.Header{Experiment: "create"})
	c := Default()
	c.Seeds = seeds
	res, err := c.Run(context.Background(), sim.Runtime{Target: simtest.MemTarget, History: w}, seeds)
	if err != nil {
		t.Fatal(err)
	}
	runs := simtest.Judge(t, w)
	for _, r := range res.Runs {
		name := fmt.Sprintf("create-%s-%s-%s-seed%d", r.Table, r.Order, r.KeyPolicy, r.Seed)
		cr, ok := runs[name]
		if !ok {
			t.Fatalf("no run %s in the history", name)
		}
		if cr.Duplicates != r.Duplicates || cr.Lost != r.Missing {
			t.Errorf("%s: check finds %d duplicates and %d lost tabs, the engine %d and %d", name, cr.Duplicates, cr.Lost, r.Duplicates, r.Missing)
		}
		if cr.Linearizable != results.CheckOK || cr.VersionCollisions != 0 || cr.ReplayMismatches != 0 || cr.StaleOverwrites != 0 {
			t.Errorf("%s: %+v", name, cr)
		}
		row := name[:len(name)-len(fmt.Sprintf("-seed%d", r.Seed))]
		dups[row] += cr.Duplicates
	}
}

// A run of several seeds equals the runs of each seed alone, assembled: what
// shards of an experiment merge back into.
func TestAssembleEqualsOneRun(t *testing.T) {
	seeds := testpass.Sized([]uint64{1, 2}, []uint64{1, 2, 3}) // make test-large assembles three
	c := Default()
	c.Seeds, c.Tabs = seeds, 8
	simtest.CheckAssembled(t, sim.Runner[Row, Run](c), seeds)
}

// A seed whose setup the server failed is that seed's outcome, in the
// server's words: the seeds before and after it run, and are counted.
func TestSetupFailureIsTheSeedsOutcome(t *testing.T) {
	c := Default()
	c.Seeds, c.Tabs = []uint64{1, 2, 3}, 5
	var runs simtest.FailedSetupRuns
	for _, r := range simtest.MustRunOn(t, c, simtest.On(simtest.FailingSetup{Target: simtest.MemTarget, Bad: 2})).Runs {
		runs.Add(r.Seed, r.SetupFailed, r.CallsSent > 0)
	}
	runs.Check(t, "create")
}
