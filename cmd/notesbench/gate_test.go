package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/race"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// The real-clock gate does not cry wolf: 50 baseline checks of an unchanged
// build fail none. Seeds of the virtual clock stand in for the real clock's
// run-to-run variation: a baseline is recorded from 20 replications (as race
// --replications 20 --update-baseline does) and 50 runs of other seeds are
// checked against it, through the JSON of the baseline file. The runs are
// deterministic, so the counts are exact: 0 false alarms (at a stated rate of
// at most 1 % per check, 0 is what 50 checks give in 6 of 10 draws), where
// the central 99 % range each figure was checked against before failed 17;
// both are the README's figures.
func TestRealClockGateFalseAlarms(t *testing.T) {
	const recorded, checks = 20, 50
	raceCfg := race.Default()
	raceCfg.Clock = sim.ClockVirtual
	raceCfg.Edits = 12 // small and fast; the counts still vary from seed to seed
	replica := sim.Replica(raceCfg)
	runs, err := replicate(replica, recorded+checks)
	if err != nil {
		t.Fatal(err)
	}
	reps := results.Replications[race.Row]{Reps: runs.Reps[:recorded], Singles: runs.Singles[:recorded]}
	exp, _ := results.Lookup("race")
	cmp := results.Compare(exp, results.Rule[race.Row]{}, nil, reps.Reps[0], &reps)
	baseline, err := json.Marshal(results.Report{Experiment: "race", Config: raceCfg, Verdicts: cmp.Verdicts, Replications: recorded})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Verdicts []results.Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal(baseline, &back); err != nil {
		t.Fatal(err)
	}
	check := func(rows []race.Row) error {
		out := &experiment.Findings{Report: results.Report{Experiment: "race", Rows: rows}}
		for _, r := range rows {
			out.Rows = append(out.Rows, r)
		}
		_, err := (&results.Baseline{Path: "race.json", JSON: baseline}).Check(out.Report, true, out.Invariants, out.Rows)
		return err
	}
	// The check before prediction intervals: every figure within the central
	// 99 % range of its recorded samples.
	central := map[string][2]float64{}
	for _, v := range cmp.Verdicts {
		central[v.Row+" "+v.Figure] = [2]float64{results.Quantile(v.Samples(), 0.005), results.Quantile(v.Samples(), 0.995)}
	}

	failed, failedBefore := 0, 0
	var checked results.RangeCheck
	for i, rows := range runs.Reps[recorded:] {
		err := check(rows)
		var reg *results.Regression
		switch {
		case errors.As(err, &reg):
			failed++
			t.Logf("check %d (seed %d) failed: %v", i+1, recorded+i+1, err)
		case err != nil:
			t.Fatal(err)
		}
		checked = results.CheckRanges(exp, back.Verdicts, rows)
		// The check before: every figure within the recorded central 99 % range.
		for _, v := range back.Verdicts {
			if v.Outcome != results.Consistent && v.Outcome != results.Differs || v.Seed != 0 {
				continue
			}
			if outsideRecordedRange(exp, v, central[v.Row+" "+v.Figure], rows) {
				failedBefore++
				break
			}
		}
	}
	t.Logf("%d of %d checks failed; the central 99 %% range failed %d; %s", failed, checks, failedBefore, checked.Summary())
	if checked.Checked < 5 {
		t.Fatalf("only %d figures checked: the test checks too little", checked.Checked)
	}
	if failed != 0 || failedBefore != 17 {
		t.Errorf("%d of %d checks of an unchanged build failed (the central 99 %% range: %d); the README says 0 (and 17)", failed, checks, failedBefore)
	}

	// A changed build still fails: editors that no longer pause before they
	// read conflict and lose far more.
	changed := raceCfg
	changed.Pause = "0"
	replica = sim.Replica(changed)
	other, err := replicate(replica, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, rows := range other.Reps {
		var reg *results.Regression
		if err := check(rows); !errors.As(err, &reg) {
			t.Errorf("a changed build, seed %d: %v, want a regression", i+1, err)
		}
	}
}

// outsideRecordedRange reports whether a row's figure falls outside the
// central range of v's recorded samples: the real-clock check before
// prediction intervals.
func outsideRecordedRange(exp *results.Experiment, v results.Verdict, central [2]float64, rows []race.Row) bool {
	for _, row := range rows {
		pub, ok := exp.Match(results.RowKey(exp, row))
		if !ok || exp.Label(pub) != v.Row {
			continue
		}
		if x, ok := row.FigureOf(v.Figure); ok && len(x.Nums) == 1 && (x.Nums[0] < central[0] || x.Nums[0] > central[1]) {
			return true
		}
	}
	return false
}

// replicate runs n replications of one seed each of race, seeds 1 to n, on
// the embedded store in memory, as the verdicts' replications are run.
func replicate(raceCfg race.Config, n int) (results.Replications[race.Row], error) {
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	singles, err := sim.RunEach(context.Background(), raceCfg, sim.Runtime{Target: backend.Memory()}, seeds, 0, nil)
	if err != nil {
		return results.Replications[race.Row]{}, err
	}
	return sim.FoldReplications(raceCfg, singles, n, 1)
}
