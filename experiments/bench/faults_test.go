package bench

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/simtest"
	"github.com/notesbench/notesbench/sim"
)

// injectingTarget is a simtest.FaultyTarget whose runs also make faults of their
// own, as a target given --nemesis does: each run's InjectFaults reports
// faults faults, one lost reply each, as it starts.
type injectingTarget struct {
	*simtest.FaultyTarget
	faults int
}

func (t *injectingTarget) Open(ctx context.Context, run contract.RunSpec) (contract.Backend, error) {
	b, err := t.FaultyTarget.Open(ctx, run)
	if err != nil {
		return nil, err
	}
	return &injectingBackend{Backend: b, faults: t.faults}, nil
}

type injectingBackend struct {
	contract.Backend
	faults int
}

func (b *injectingBackend) InjectFaults(begin func(kind string, pid int) func(string)) func() int {
	for i := range b.faults {
		begin(history.FaultLoseReplies, 100+i)("dropped by the test")
	}
	return func() int { return b.faults }
}

var _ sim.FaultInjector = (*injectingBackend)(nil)

// Under faults a bench run goes on: a timed write that does not end ok is
// counted, not timed and not sent again, its writer reads its version again
// (and again, while that read fails), and the faults the target made are
// counted and logged. The counts are exact: every writer's 5th, 10th, …
// edit_note_tab call (warm-up included) times out after it committed, and
// the first read after it is refused.
func TestBenchCountsWhatFaultsCost(t *testing.T) {
	const writes, warmup = 20, 2
	f := func(_ string, _ int, n int, tool string) (error, bool) {
		switch {
		case tool == contract.ToolEditNoteTab && n > warmup && n%5 == 0:
			return simtest.ErrTimeout, true
		case tool == contract.ToolReadNoteTab && n == 2:
			return simtest.ErrRefused, false
		}
		return nil, false
	}
	cfg := Config{Writes: writes, Reps: 2, Warmup: warmup, TextSize: 30, Writers: []int{1, 2},
		Guards: []contract.Guard{contract.GuardNote}, Synchronous: "normal"}
	res := simtest.MustRunOn(t, cfg, simtest.On(&injectingTarget{FaultyTarget: simtest.NewFaulty(f), faults: 3}))
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(res.Runs))
	}
	// Calls 3..22 are timed: 5, 10, 15 and 20 time out; one read is refused.
	const cut = 4
	for _, r := range res.Runs {
		name := r.Guard + " " + string(rune('0'+r.Writers)) + " writer(s) rep " + string(rune('0'+r.Rep))
		if got, want := len(r.SamplesUS), (writes-cut)*r.Writers; got != want {
			t.Errorf("%s: %d writes timed, want %d (the acknowledged ones)", name, got, want)
		}
		if r.Errors != (cut+1)*r.Writers || r.Info != cut*r.Writers {
			t.Errorf("%s: errors %d, info %d; want %d and %d", name, r.Errors, r.Info, (cut+1)*r.Writers, cut*r.Writers)
		}
		if r.Faults != 3 || len(r.FaultLog) != 3 || r.FaultLog[0].Kind != history.FaultLoseReplies || r.FaultLog[2].PID != 102 || r.FaultLog[0].Detail != "dropped by the test" {
			t.Errorf("%s: %d faults, log %+v; want 3 lost replies logged", name, r.Faults, r.FaultLog)
		}
		if r.Stopped != "" {
			t.Errorf("%s: stopped %q", name, r.Stopped)
		}
	}
	for _, row := range res.Rows {
		if row.Faults != 6 || row.Info != 2*cut*row.Writers || row.Errors != 2*(cut+1)*row.Writers || row.Writes != 2*(writes-cut)*row.Writers {
			t.Errorf("row %+v: want the sums of its repetitions", row)
		}
	}
	sums := SummarizeRuns(res.Runs)
	if sums[0].Faults != 3 || sums[0].Info != cut || len(sums[0].FaultLog) != 3 {
		t.Errorf("the JSON's runs: %+v", sums[0])
	}
}

// A bench run whose calls keep failing ends at --max-errors, keeping what
// it timed and saying why; the next run goes on.
func TestBenchMaxErrorsEndsARun(t *testing.T) {
	f := func(_ string, _ int, n int, tool string) (error, bool) {
		if tool == contract.ToolEditNoteTab && n > 4 {
			return simtest.ErrRefused, false
		}
		return nil, false
	}
	cfg := Config{Writes: 50, Reps: 2, Warmup: 1, TextSize: 10, Writers: []int{1},
		Guards: []contract.Guard{contract.GuardNote}, Synchronous: "normal", TargetSettings: sim.TargetSettings{MaxErrors: 7}}
	res := simtest.MustRunOn(t, cfg, simtest.On(simtest.NewFaulty(f)))
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2: a run ended early must not end the others", len(res.Runs))
	}
	for _, r := range res.Runs {
		if len(r.SamplesUS) != 3 || r.Errors != 7 || r.Info != 0 {
			t.Errorf("rep %d: %d timed, %d errors, %d info; want 3, 7, 0", r.Rep, len(r.SamplesUS), r.Errors, r.Info)
		}
		if !strings.HasPrefix(r.EndedEarly(), "guard note, 1 writer(s), repetition ") || !strings.Contains(r.Stopped, "ended after 7 calls that ended in an error") {
			t.Errorf("rep %d: stopped %q", r.Rep, r.Stopped)
		}
	}
}

// Without faults nothing of this is in a run: no counts, no log, and the
// JSON of a run and a row reads as it always did.
func TestBenchWithoutFaultsCountsNothing(t *testing.T) {
	cfg := Config{Writes: 5, Reps: 1, Warmup: 1, TextSize: 10, Writers: []int{1},
		Guards: []contract.Guard{contract.GuardNote}, Synchronous: "normal"}
	res := simtest.MustRun(t, cfg)
	r := res.Runs[0]
	if r.Faults != 0 || r.FaultLog != nil || r.Errors != 0 || r.Info != 0 || r.Stopped != "" || len(r.SamplesUS) != 5 {
		t.Errorf("run %+v", r)
	}
	if res.Rows[0].Faulted() {
		t.Errorf("row %+v: faulted", res.Rows[0])
	}
	if slices.ContainsFunc(res.Runs, func(r Run) bool { return r.EndedEarly() != "" }) {
		t.Error("a run ended early")
	}
}

// A bench run ended by its error limit says so in the JSON result's
// warnings, beside bench's own: bench's warnings are added to the report's,
// not put in their place (they once were, and the JSON lost why a run
// stopped while the text still said it).
func TestBenchStoppedRunIsAWarning(t *testing.T) {
	f := func(_ string, _ int, n int, tool string) (error, bool) {
		if tool == contract.ToolEditNoteTab && n > 4 {
			return simtest.ErrRefused, false
		}
		return nil, false
	}
	in := simtest.Configure(t, Experiment, sim.TargetSettings{TargetName: "faulty", MaxErrors: 3}, simtest.On(simtest.NewFaulty(f)),
		"writes", "50", "reps", "1", "warmup", "1", "text-size", "10", "writers", "1", "guards", "note")
	out, err := in.Run(context.Background(), experiment.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var stopped []string
	for _, w := range out.Report.Warnings {
		if strings.Contains(w, "ended after 3 calls that ended in an error") {
			stopped = append(stopped, w)
		}
	}
	if len(stopped) != 1 {
		t.Errorf("warnings %q: want the stopped run's once", out.Report.Warnings)
	}
}
