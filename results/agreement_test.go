package results

import "testing"

// NewAgreement pairs figures by experiment, row, figure and seed, counts
// only those both reproductions judged, and lists the ones judged apart,
// under each timing model.
func TestNewAgreement(t *testing.T) {
	v := func(row, figure string, seed int, o Conclusion) Verdict {
		return Verdict{Row: row, Figure: figure, Seed: seed, Outcome: o}
	}
	ours := Reproduction{Reports: []Report{
		{Experiment: "race", Verdicts: []Verdict{
			v("none", "lost", 0, Differs), v("none", "lost_claude", 0, Consistent), v("none", "wall_s", 0, RatioOnly),
		}},
		{Experiment: "create", Verdicts: []Verdict{v("a", "calls_sent", 1, Consistent), v("a", "calls_sent", 2, Consistent)}},
	}, Timing: &TimingModels{Profile: "fit", Reports: []Report{{Experiment: "race", Verdicts: []Verdict{v("none", "lost", 0, Consistent)}}}}}
	other := Reproduction{Command: "notesbench reproduce --quick", Replications: 20, Reports: []Report{
		{Experiment: "race", Verdicts: []Verdict{
			v("none", "lost", 0, Consistent), v("none", "lost_claude", 0, Consistent), v("none", "wall_s", 0, RatioOnly),
		}},
		{Experiment: "create", Verdicts: []Verdict{v("a", "calls_sent", 2, Differs), v("a", "calls_sent", 3, Differs)}},
		{Experiment: "tabs", Verdicts: []Verdict{v("none", "lost", 0, Differs)}}, // ours has no tabs
	}, Timing: &TimingModels{Profile: "fit", Reports: []Report{{Experiment: "race", Verdicts: []Verdict{v("none", "lost", 0, Consistent)}}}}}
	a := NewAgreement(ours, other)
	if a.Command != other.Command || a.Replications != 20 || a.Alike != 1 || a.Judged != 3 || a.TimingAlike != 1 || a.TimingJudged != 1 {
		t.Fatalf("agreement %+v", a)
	}
	if len(a.Apart) != 2 || a.Apart[0].Experiment != "race" || a.Apart[0].Ours.Figure != "lost" || a.Apart[0].Other.Outcome != Consistent ||
		a.Apart[1].Experiment != "create" || a.Apart[1].Ours.Seed != 2 || a.Apart[1].Other.Outcome != Differs {
		t.Errorf("apart %+v", a.Apart)
	}
	if a := NewAgreement(ours, Reproduction{Reports: other.Reports}); a.TimingJudged != 0 || len(a.Apart) != 2 {
		t.Errorf("without the other's timing models: %+v", a)
	}
}
