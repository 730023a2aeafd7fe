package sources

import (
	"context"
	"errors"
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

// A refused citation is given up and counted; the sessions go on.
func TestSourcesCountsRefusals(t *testing.T) {
	f := func(run string, session, n int, tool string) (error, bool) {
		if run != "sources-paging" && tool == contract.ToolAddNoteSource && n%10 == 0 {
			return &contract.RefusedError{Tool: tool, Reply: "quota"}, false
		}
		return nil, false
	}
	c := Default()
	c.Seeds, c.Sessions = []uint64{1}, 5
	res := simtest.MustRunOn(t, c, simtest.On(simtest.NewFaulty(f)))
	for _, r := range res.Runs {
		if r.Errors == 0 || r.Errors != r.CallsSent/10 || r.Stopped != "" {
			t.Errorf("%s: errors %d of %d calls, stopped %q", r.KeyPolicy, r.Errors, r.CallsSent, r.Stopped)
		}
	}
}

// A Note whose sources the server no longer lists (it lost the document),
// or whose server died and does not come back when they are counted,
// counts as none saved, and the run says why; it goes on to the end (a
// server gone for good once ended it in an error: sources had a copy of
// the final read of its own).
func TestSourcesUnreadableFinalListing(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&contract.NotFoundError{Field: "note_id", ID: "session-1"}, "could not be listed"},
		{contract.Indeterminate(contract.KindDied, errors.New("the server died")), "could not be listed: the server died and did not answer again (3 tries)"},
	} {
		f := func(run string, session, n int, tool string) (error, bool) {
			if run != "sources-paging" && tool == contract.ToolListNoteAttachments {
				return tc.err, false
			}
			return nil, false
		}
		c := Default()
		c.Seeds, c.Sessions = []uint64{1}, 3
		res := simtest.MustRunOn(t, c, simtest.On(simtest.NewFaulty(f)))
		for _, r := range res.Runs {
			if r.Saved != 0 || r.Stopped != "" || !strings.Contains(r.UnreadableFinal, tc.want) {
				t.Errorf("%v, %s: saved %d, stopped %q, unreadable %q", tc.err, r.KeyPolicy, r.Saved, r.Stopped, r.UnreadableFinal)
			}
		}
	}
}

// The checker agrees with the engine on the sources setup: the same duplicate
// sources per run, none under the normalized key, some under the uuid and raw
// keys; nothing acknowledged is missing and every register is linearizable.
// Each seed runs 20 sessions (300 published) to keep the test short: the
// script is per session, so more seeds stand for more sessions.
func TestCheckAgreesWithSourcesEngine(t *testing.T) {
	chunks := simtest.AgreementSeeds()
	dups := map[string]int{}
	for _, seeds := range chunks {
		agreeWithSourcesEngine(t, seeds, dups)
	}
	for policy, n := range dups {
		if (policy == KeyNormalized) != (n == 0) {
			t.Errorf("%s keys: %d duplicates over %d seeds", policy, n, simtest.SeedCount(chunks))
		}
	}
	t.Logf("%d seeds; duplicates per key policy: %v", simtest.SeedCount(chunks), dups)
}

func agreeWithSourcesEngine(t *testing.T, seeds []uint64, dups map[string]int) {
	t.Helper()
	w := history.NewWriter(history.Header{Experiment: "sources"})
	c := Default()
	c.Seeds, c.Sessions = seeds, 20
	if testpass.Race {
		c.Sessions = 5
	}
	res, err := c.Run(context.Background(), sim.Runtime{Target: simtest.MemTarget, History: w}, seeds)
	if err != nil {
		t.Fatal(err)
	}
	runs := simtest.Judge(t, w)
	for _, r := range res.Runs {
		name := fmt.Sprintf("sources-%s-seed%d", r.KeyPolicy, r.Seed)
		cr, ok := runs[name]
		if !ok {
			t.Fatalf("no run %s in the history", name)
		}
		if cr.Duplicates != r.Duplicates || cr.Lost != 0 {
			t.Errorf("%s: check finds %d duplicates and %d lost sources, the engine %d and none", name, cr.Duplicates, cr.Lost, r.Duplicates)
		}
		if cr.Linearizable != results.CheckOK || cr.VersionCollisions != 0 || cr.ReplayMismatches != 0 {
			t.Errorf("%s: %+v", name, cr)
		}
		dups[r.KeyPolicy] += cr.Duplicates
	}
}

// A run of several seeds equals the runs of each seed alone, assembled: what
// shards of an experiment merge back into.
func TestAssembleEqualsOneRun(t *testing.T) {
	seeds := testpass.Sized([]uint64{1, 2}, []uint64{1, 2, 3}) // make test-large assembles three
	c := Default()
	c.Seeds, c.Sessions = seeds, 5
	simtest.CheckAssembled(t, sim.Runner[Row, Run](c), seeds)
}

// A seed whose setup the server failed is that seed's outcome, in the
// server's words: the seeds before and after it run, and are counted.
func TestSetupFailureIsTheSeedsOutcome(t *testing.T) {
	c := Default()
	c.Seeds, c.Sessions = []uint64{1, 2, 3}, 2
	var runs simtest.FailedSetupRuns
	for _, r := range simtest.MustRunOn(t, c, simtest.On(simtest.FailingSetup{Target: simtest.MemTarget, Bad: 2})).Runs {
		runs.Add(r.Seed, r.SetupFailed, r.Saved > 0)
	}
	runs.Check(t, "sources")
}
