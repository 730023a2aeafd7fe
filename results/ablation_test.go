package results

import (
	"strings"
	"testing"
)

func TestNewAblationLinesUpVerdicts(t *testing.T) {
	seq := func(lo, n int) []float64 {
		var xs []float64
		for i := range n {
			xs = append(xs, float64(lo+i))
		}
		return xs
	}
	pub := PointFigure(219)
	base := []Verdict{
		Judge("conflicts_claude", "note reapply", seq(180, 21), pub, DefaultMass), // 180..200: differs
		Judge("lost", "note reapply", []float64{0, 0, 0}, PointFigure(0), DefaultMass),
		Judge("max_tries", "none", []float64{1, 1}, PointFigure(1), DefaultMass),
	}
	// The second model judges the same figures in another order and moves one.
	moved := []Verdict{
		Judge("max_tries", "none", []float64{1, 1}, PointFigure(1), DefaultMass),
		Judge("conflicts_claude", "note reapply", seq(205, 21), pub, DefaultMass), // 205..225: consistent
	}
	a, err := NewAblation("race", []AblationModel{{Name: "default", Replications: 21}, {Name: "fit", Replications: 21}}, [][]Verdict{base, moved})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Figures) != 3 || a.Figures[0].Figure != "conflicts_claude" || a.Figures[2].Row != "none" {
		t.Fatalf("figures %+v", a.Figures)
	}
	c := a.Figures[0].Cells
	if c[0].Outcome != Differs || c[1].Outcome != Consistent || c[0].Mean != 190 || c[1].Mean != 215 || c[1].Shift != 25 || c[0].Shift != 0 {
		t.Fatalf("conflicts cells %+v", c)
	}
	if a.Figures[1].Cells[1].Outcome != NoData {
		t.Fatalf("a figure the second model lacks: %+v", a.Figures[1].Cells[1])
	}
	if m := a.Models; m[0].Consistent != 2 || m[0].Judged != 3 || m[1].Consistent != 2 || m[1].Judged != 2 || m[1].Replications != 21 {
		t.Fatalf("models %+v", m)
	}
	// Only the figure whose spread moves is notable: the zeros and ones are
	// one constant in every model.
	if v := a.Notable(); len(v) != 1 || v[0].Figure != "conflicts_claude" {
		t.Fatalf("notable %+v", v)
	}

	extra := append(moved, Judge("wall_s", "none", []float64{10}, RangeFigure(9.6, 10.5), DefaultMass))
	if _, err := NewAblation("race", []AblationModel{{Name: "default"}, {Name: "fit"}}, [][]Verdict{base, extra}); err == nil ||
		!strings.Contains(err.Error(), `model "fit" judges none wall_s, which "default" does not`) {
		t.Fatalf("a figure only the second model judges: %v", err)
	}
	if _, err := NewAblation("race", []AblationModel{{Name: "default"}}, [][]Verdict{base, moved}); err == nil {
		t.Fatal("two verdict lists for one model were accepted")
	}
}

func TestTimingModelsSummary(t *testing.T) {
	tm := TimingModels{Profile: "published-fit", Basis: "inferred",
		Reports:  []Report{{Verdicts: []Verdict{{Outcome: Consistent}, {Outcome: Consistent}, {Outcome: RatioOnly}}}},
		Verdicts: []Ablation{{Models: []AblationModel{{Consistent: 1, Judged: 2}, {Consistent: 2, Judged: 2}}}},
	}
	r := Reproduction{Timing: &tm}
	r.Summarize()
	if got, want := tm.Summary(), "under the published-fit timing (inferred), 2 of 2 race and tabs figures consistent with ours; under the default timing 1 of 2"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
}
