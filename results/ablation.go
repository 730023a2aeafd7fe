package results

import "fmt"

// An Ablation sets several models of one experiment side by side, figure by
// figure: for each published figure, each model's mean over its replications,
// the interval in which one new run of the model falls, and the verdict on the
// published value. It is built from
// each model's verdicts (Compare), so a cell says exactly what a verdict
// table under that model would.
//
// The race engine's timing models are its use: the default (the pause read
// from the write-up), each rule of the published-fit profile alone, and both;
// two of them side by side are the verdicts under the default and under
// published-fit.
type Ablation struct {
	Experiment string           `json:"experiment"`
	Models     []AblationModel  `json:"models"`
	Figures    []AblationFigure `json:"figures"`
}

// AblationModel is one model of an ablation and how its verdicts came out.
type AblationModel struct {
	Name string `json:"name"`
	// Replications is how many replications its verdicts rest on.
	Replications int `json:"replications"`
	// Consistent and Judged count its verdicts as Summary does.
	Consistent int `json:"consistent"`
	Judged     int `json:"judged"`
	// Short counts its verdicts judged at less than the coverage asked, and
	// Least is the least coverage among them, as ShortOfCoverage returns
	// them: NewAblation fills them against DefaultMass.
	Short int     `json:"short_of_coverage"`
	Least float64 `json:"least_coverage"`
}

// AblationFigure is one published figure under every model: Cells holds one
// cell per model, in the order of Ablation.Models.
type AblationFigure struct {
	Row    string `json:"row"`
	Figure string `json:"figure"`
	// Seed is the element of a per-seed figure, as in Verdict.
	Seed      int            `json:"seed,omitempty"`
	Published Figure         `json:"published"`
	Cells     []ablationCell `json:"cells"`
}

// ablationCell is one model's side of one figure.
type ablationCell struct {
	Mean float64 `json:"mean"`
	// Low and High bound the interval in which one new run of the model
	// falls, with probability Coverage, drawn by Method (as in Verdict).
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Method   Method  `json:"method,omitempty"`
	Coverage float64 `json:"coverage,omitempty"`
	// Shift is Mean minus the first model's mean: how far the model moves
	// the figure from the first one.
	Shift      float64    `json:"shift"`
	Percentile float64    `json:"percentile"`
	N          int        `json:"n"`
	Outcome    Conclusion `json:"verdict"`
	// Ratio is our median over the published midpoint, for a RatioOnly cell.
	Ratio float64 `json:"ratio,omitempty"`
}

// NewAblation lines up the verdicts of each model (verdicts[i] for models[i],
// whose Replications the caller sets) figure by figure, in the order of the
// first model's verdicts, and counts each model's consistent figures. A figure
// a model has no verdict on gets a NoData cell. It returns an error when the
// models and the verdict lists differ in number, or a model judges a figure
// the first one does not: the models are not of one experiment.
func NewAblation(experiment string, models []AblationModel, verdicts [][]Verdict) (Ablation, error) {
	a := Ablation{Experiment: experiment, Models: append([]AblationModel(nil), models...)}
	if len(models) != len(verdicts) || len(models) == 0 {
		return a, fmt.Errorf("ablation of %s: %d models, %d lists of verdicts", experiment, len(models), len(verdicts))
	}
	type key struct {
		row, figure string
		seed        int
	}
	index := map[key]int{}
	for _, v := range verdicts[0] {
		index[key{v.Row, v.Figure, v.Seed}] = len(a.Figures)
		a.Figures = append(a.Figures, AblationFigure{Row: v.Row, Figure: v.Figure, Seed: v.Seed, Published: v.Published,
			Cells: make([]ablationCell, len(models))})
		for m := range models {
			a.Figures[len(a.Figures)-1].Cells[m].Outcome = NoData
		}
	}
	for m, vs := range verdicts {
		a.Models[m].Consistent, a.Models[m].Judged = Summary(vs)
		a.Models[m].Short, a.Models[m].Least = ShortOfCoverage(vs, DefaultMass)
		for _, v := range vs {
			i, ok := index[key{v.Row, v.Figure, v.Seed}]
			if !ok {
				return a, fmt.Errorf("ablation of %s: model %q judges %s %s, which %q does not", experiment, models[m].Name, v.Row, v.Figure, models[0].Name)
			}
			a.Figures[i].Cells[m] = ablationCell{Mean: v.OursMean, Low: v.OursLow, High: v.OursHigh, Method: v.Method,
				Coverage: v.Coverage, Percentile: v.Percentile, N: v.N, Outcome: v.Outcome, Ratio: v.Ratio}
		}
	}
	for i := range a.Figures {
		cells := a.Figures[i].Cells
		for m := range cells {
			cells[m].Shift = cells[m].Mean - cells[0].Mean
		}
	}
	return a, nil
}

// Notable returns the figures an ablation has something to say about: those
// whose spread is not one constant shared by every model, and those some
// model judges as differing. The rest (lost lines with re-apply, conflicts
// without a guard, the tab scope) are the same consistent constant under
// every model.
func (a Ablation) Notable() []AblationFigure {
	var out []AblationFigure
	for _, f := range a.Figures {
		c0 := f.Cells[0]
		for _, c := range f.Cells {
			if c.Low != c.High || c.Low != c0.Low || c.Mean != c0.Mean || c.Outcome == Differs {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// TimingModels is how the race engine's published figures stand under the
// published-fit timing beside the default: its reports (race and tabs under
// published-fit), and per experiment the verdicts of both models side by side
// and the ablation of its ingredients.
type TimingModels struct {
	// Profile names the profile and Basis says where it comes from.
	Profile string `json:"profile"`
	Basis   string `json:"basis"`
	// Reports are the experiments under the profile, as under the default in
	// Reproduction.Reports; their verdicts are not in the reproduction's
	// summary, which stays the default model's.
	Reports []Report `json:"reports"`
	// Consistent and Judged count the verdicts of Reports; the Default
	// counts are the same experiments' under the default model.
	Consistent        int `json:"consistent"`
	Judged            int `json:"judged"`
	DefaultConsistent int `json:"default_consistent"`
	DefaultJudged     int `json:"default_judged"`
	// Verdicts holds, per experiment, the default and the profile side by
	// side; Ablations, per experiment, every ingredient of the profile.
	Verdicts  []Ablation `json:"verdicts"`
	Ablations []Ablation `json:"ablations"`
}

// Summarize fills the counts from the reports and the side-by-side verdicts.
func (t *TimingModels) Summarize() {
	var all []Verdict
	for _, rep := range t.Reports {
		all = append(all, rep.Verdicts...)
	}
	t.Consistent, t.Judged = Summary(all)
	t.DefaultConsistent, t.DefaultJudged = 0, 0
	for _, v := range t.Verdicts {
		if len(v.Models) > 0 {
			t.DefaultConsistent += v.Models[0].Consistent
			t.DefaultJudged += v.Models[0].Judged
		}
	}
}

// Summary is the timing models' one line.
func (t TimingModels) Summary() string {
	return fmt.Sprintf("under the %s timing (%s), %d of %d race and tabs figures consistent with ours; under the default timing %d of %d",
		t.Profile, t.Basis, t.Consistent, t.Judged, t.DefaultConsistent, t.DefaultJudged)
}
