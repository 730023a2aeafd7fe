package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/notesbench/notesbench/results"
)

// The verdicts of two models side by side and the ablation of four, built
// from made-up rows so that the golden pins the rendering and no
// experiment's counts: each model shifts every count by its own amount. With
// 20 replications a figure that varies evenly is judged as near normal, one
// that never varies as a constant, and the published ranges against 40 single
// runs by order statistics.
func TestAblationGolden(t *testing.T) {
	verdictsOf := func(shift int) []results.Verdict {
		even, odd := raceReps(shift, 2), raceReps(shift+1, 2) // every shift from shift to shift+19
		reps := results.Replications[results.RaceRow]{Reps: append(even.Reps, odd.Reps...), Singles: append(even.Singles, odd.Singles...)}
		return results.Compare("race", nil, []results.RaceRow(nil), &reps).Verdicts
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
	tables := []Table{
		TimingVerdictTable("Verdicts under both models", pair, results.DefaultMass, "fit: a made-up model"),
		AblationTable("Ablation", abl, results.DefaultMass, "both: a made-up model"),
	}
	var buf bytes.Buffer
	if err := Render(&buf, FormatMarkdown, tables...); err != nil {
		t.Fatal(err)
	}
	golden(t, "ablation.md", buf.Bytes())

	// The ablation leaves out what no model moves, and its last row counts
	// every figure of each model.
	last := tables[1].Rows[len(tables[1].Rows)-1]
	if last[1] != "figures consistent" || last[3] != Int(int64(abl.Models[0].Consistent))+" of "+Int(int64(abl.Models[0].Judged)) {
		t.Errorf("count row %q", last)
	}
	for _, r := range tables[1].Rows {
		if r[1] == "conflicts_human" && r[0] == "none" {
			t.Errorf("a figure no model moves is shown: %q", r)
		}
	}
	if !strings.Contains(buf.String(), differsMark) {
		t.Error("no cell is marked as differing")
	}
}
