package simtest

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/notesbench/notesbench/check"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/results"
)

// agreementSeeds is the -agreement-seeds flag of every test binary that
// checks the checker against an engine (experiments/race, create, sources).
var agreementSeeds = flag.Int("agreement-seeds", 0,
	"virtual seeds each published setup is checked over (0: 20, or 2 under the race detector and in -short); 200 take about a minute")

// AgreementSeeds returns seeds 1 to n, the seeds each published setup is
// checked over, in chunks of at most 25, each judged on its own so that a
// history never grows past a few tens of megabytes: n is -agreement-seeds,
// or 20, or 2 under the race detector and in -short.
func AgreementSeeds() [][]uint64 {
	n := cmp.Or(*agreementSeeds, testpass.Sized(2, 20))
	return slices.Collect(slices.Chunk(Seeds(1, uint64(n)), 25))
}

// SeedCount returns how many seeds chunks hold.
func SeedCount(chunks [][]uint64) int {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	return n
}

// Judge writes w's history, reads it back as notesbench check would, judges it
// and returns the runs by name.
func Judge(t testing.TB, w *history.Writer) map[string]results.CheckRun {
	t.Helper()
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	h, err := history.Read(context.Background(), &buf, "history")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, err := check.Run(context.Background(), []*history.History{h}, check.Options{Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	runs := map[string]results.CheckRun{}
	for _, r := range rep.Runs {
		runs[r.Run] = r
		calls += r.Calls
	}
	t.Logf("%d runs, %d calls, %.1f MB of history, checked in %.2fs", len(rep.Runs), calls, float64(size)/1e6, time.Since(start).Seconds())
	for _, c := range rep.Checks {
		if c.Verdict == results.CheckUnknown {
			t.Errorf("%s: unknown: %s", c.Check, c.Reason)
		}
	}
	return runs
}
