package experiment_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/experiment"
	"github.com/notesbench/notesbench/experiments/race"
	goldenfile "github.com/notesbench/notesbench/internal/golden"
	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
)

func TestMain(m *testing.M) {
	// Em and en dashes are ambiguous-width runes: pin their width to one column
	// so that the golden boxes do not depend on the locale of the machine.
	os.Setenv("RUNEWIDTH_EASTASIAN", "0")
	os.Exit(m.Run())
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) { goldenfile.Check(t, name, got) }

// raceSection is sectionOf for race.
func raceSection(rows []race.Row, setup string, diffs []string, reps *results.Replications[race.Row], facts []string, suffix string) report.Section {
	return experiment.SectionOf[race.Config](race.Experiment, rows, setup, diffs, reps, facts, suffix)
}

// raceRows is a race table of made-up counts; shift moves every count, so
// that replications of them spread.
func raceRows(shift int) []race.Row {
	return []race.Row{
		{Guard: "none", Lost: 280 + shift, LostClaude: 110 + shift, LostHuman: 170, Intended: 1000, MaxTries: 1, MeanTriesClaude: 1, MeanTriesHuman: 1, WallS: 9.8, Runs: 5},
		{Guard: "note", Policy: "reapply", Intended: 1000, ConflictsClaude: 200 + shift, ConflictsHuman: 115 + shift, MaxTries: 2,
			MeanTriesClaude: 1.40, MeanTriesHuman: 1.23, RetriedClaude: 0.4, WallS: 9.9, Runs: 5},
		{Guard: "note", Policy: "refresh", Lost: 276 + shift, LostClaude: 113, LostHuman: 163 + shift, Intended: 1000,
			ConflictsClaude: 200, ConflictsHuman: 115, MaxTries: 2, MeanTriesClaude: 1.40, MeanTriesHuman: 1.23, WallS: 9.9, Runs: 5},
	}
}

// raceReps returns ten made-up replications of raceRows, replication i shifted
// by shift+i·step, each with two single runs (the second shifted by one more).
func raceReps(shift, step int) *results.Replications[race.Row] {
	var reps results.Replications[race.Row]
	for i := range 10 {
		s := shift + i*step
		reps.Reps = append(reps.Reps, raceRows(s))
		reps.Singles = append(reps.Singles, raceRows(s), raceRows(s+1))
	}
	return &reps
}

// Counts of one take the singular: "1 replication", "1 of 1 published
// figure", not "1 replications".
func TestSectionPlurals(t *testing.T) {
	reps := results.Replications[race.Row]{Reps: [][]race.Row{raceRows(0)}, Singles: [][]race.Row{raceRows(0)}}
	raceCfg := raceSection(raceRows(0), "s", nil, &reps, nil, "")
	var buf bytes.Buffer
	if err := report.Render(&buf, report.FormatMarkdown, raceCfg.Tables()...); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"against 1 replication of the published setup", "verdicts rest on 1 replication:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// The verdicts of two models side by side and the ablation of four, built
// from made-up rows so that the golden pins the rendering and no
// experiment's counts: each model shifts every count by its own amount. With
// 20 replications a figure that varies evenly is judged as near normal, one
// that never varies as a constant, and the published ranges against 40 single
// runs by order statistics.
func TestAblationGolden(t *testing.T) {
	verdictsOf := func(shift int) []results.Verdict {
		even, odd := raceReps(shift, 2), raceReps(shift+1, 2) // every shift from shift to shift+19
		reps := results.Replications[race.Row]{Reps: append(even.Reps, odd.Reps...), Singles: append(even.Singles, odd.Singles...)}
		return results.Compare(experiment.Published(race.Experiment), results.Rule[race.Row]{}, nil, nil, &reps).Verdicts
	}
	model := func(name string) results.AblationModel { return results.AblationModel{Name: name, Replications: 20} }
	pair, err := results.NewAblation("race", []results.AblationModel{model("default"), model("fit")},
		[][]results.Verdict{verdictsOf(0), verdictsOf(18)})
	if err != nil {
		t.Fatal(err)
	}
	abl, err := results.NewAblation("race", []results.AblationModel{model("default"), model("a alone"), model("b alone"), model("both")},
		[][]results.Verdict{verdictsOf(0), verdictsOf(8), verdictsOf(10), verdictsOf(18)})
	if err != nil {
		t.Fatal(err)
	}
	tables := []report.Table{
		report.TimingVerdictTable("Verdicts under both models", pair, results.DefaultMass, "fit: a made-up model"),
		report.AblationTable("Ablation", abl, results.DefaultMass, "both: a made-up model"),
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, report.FormatMarkdown, tables...); err != nil {
		t.Fatal(err)
	}
	golden(t, "ablation.md", buf.Bytes())

	// The ablation leaves out what no model moves, and its last row counts
	// every figure of each model.
	last := tables[1].Rows[len(tables[1].Rows)-1]
	if last[1] != "figures consistent" || last[3] != report.Int(int64(abl.Models[0].Consistent))+" of "+report.Int(int64(abl.Models[0].Judged)) {
		t.Errorf("count row %q", last)
	}
	for _, r := range tables[1].Rows {
		if r[1] == "conflicts_human" && r[0] == "none" {
			t.Errorf("a figure no model moves is shown: %q", r)
		}
	}
	if !strings.Contains(buf.String(), " ✗") {
		t.Error("no cell is marked as differing")
	}
}
