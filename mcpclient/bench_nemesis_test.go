package mcpclient

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/bench"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/testpass"
	"github.com/notesbench/notesbench/nemesis"
	"github.com/notesbench/notesbench/sim"
)

// bench under kills and lost replies of notesbench serve: every run goes to
// the end, a write a fault cut off is counted and not timed, and every fault
// is logged with its kind and times. The counts depend on the machine's
// speed, so the test holds to what is true of every run.
func TestBenchUnderKillAndLoseReplies(t *testing.T) {
	skipShort(t)
	testpass.Large(t, "bench end to end under faults: make test-large runs it; sim's bench tests hold its counts under the detector")
	t.Parallel()
	tg := dialT(t, helperTarget(t, filepath.Join(t.TempDir(), "notes.db")),
		Options{CallTimeout: 2 * time.Second, Faults: &nemesis.Faults{Kinds: []string{history.FaultKill, history.FaultLoseReplies}, Every: 20 * time.Millisecond}})
	cfg := bench.Default()
	cfg.Guards, cfg.Writes, cfg.Warmup, cfg.Reps, cfg.Writers = []contract.Guard{contract.GuardNote}, 60, 5, 1, []int{1, 2}
	res, err := cfg.Run(ctx, sim.Runtime{Target: tg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		t.Logf("%d writer(s): %d timed of %d, %d errors, %d info, %d faults", r.Writers, len(r.SamplesUS), cfg.Writes*r.Writers, r.Errors, r.Info, r.Faults)
		writes := cfg.Writes * r.Writers
		if r.Stopped != "" || len(r.SamplesUS) > writes || len(r.SamplesUS)+r.Errors < writes || r.Info > r.Errors {
			t.Errorf("%d writer(s): %d timed of %d writes, %d errors, %d info, stopped %q: every write ends ok or is counted", r.Writers, len(r.SamplesUS), writes, r.Errors, r.Info, r.Stopped)
		}
		if r.Faults == 0 || len(r.FaultLog) != r.Faults {
			t.Errorf("%d writer(s): %d faults, %d logged; want some, each logged", r.Writers, r.Faults, len(r.FaultLog))
		}
		for _, f := range r.FaultLog {
			if !slices.Contains([]string{history.FaultKill, history.FaultLoseReplies}, f.Kind) || f.StartS < 0 || f.EndS < f.StartS || f.PID == 0 {
				t.Errorf("%d writer(s): fault %+v", r.Writers, f)
			}
		}
		lost := slices.ContainsFunc(r.FaultLog, func(f bench.FaultSpan) bool { return f.Kind == history.FaultLoseReplies })
		if lost && r.Info == 0 {
			t.Errorf("%d writer(s): a reply was lost, and no call ended in info", r.Writers)
		}
	}
	for _, row := range res.Rows {
		if !row.Faulted() {
			t.Errorf("row %+v: not marked as taken under faults", row)
		}
	}
}
