package results

// An Agreement is how the verdicts of one reproduction stand against those of
// another, such as a full run against one made with --quick: of the published
// figures both judged, how many they judge alike, under the default timing
// and under the other timing model, and each figure they judge apart.
type Agreement struct {
	// Command is the command that made the other reproduction, and
	// Replications its replications.
	Command      string `json:"command"`
	Replications int    `json:"replications"`
	// Alike and Judged count the figures of the default model that both
	// judged (Consistent or Differs) and those judged alike; TimingAlike and
	// TimingJudged the same under the other timing model.
	Alike        int `json:"alike"`
	Judged       int `json:"judged"`
	TimingAlike  int `json:"timing_alike"`
	TimingJudged int `json:"timing_judged"`
	// Apart lists the figures judged apart, in the order of the first
	// reproduction's reports.
	Apart []verdictPair `json:"apart"`
}

// A verdictPair is one published figure as two reproductions judged it.
type verdictPair struct {
	Experiment string `json:"experiment"`
	// Model is "" for the default timing, else the timing profile's name.
	Model string  `json:"model,omitempty"`
	Ours  Verdict `json:"ours"`
	Other Verdict `json:"other"`
}

// NewAgreement compares the verdicts of ours with those of other, figure by
// figure (by experiment, row, figure and seed), under the default timing and
// under the timing model both reproductions ran, if any. A figure that only
// one of them judged is left out.
func NewAgreement(ours, other Reproduction) Agreement {
	a := Agreement{Command: other.Command, Replications: other.Replications}
	a.Alike, a.Judged, a.Apart = pairVerdicts(ours.Reports, other.Reports, "")
	if ours.Timing != nil && other.Timing != nil {
		var apart []verdictPair
		a.TimingAlike, a.TimingJudged, apart = pairVerdicts(ours.Timing.Reports, other.Timing.Reports, ours.Timing.Profile)
		a.Apart = append(a.Apart, apart...)
	}
	return a
}

// pairVerdicts pairs the judged verdicts of two lists of reports and counts
// those judged alike.
func pairVerdicts(ours, other []Report, model string) (alike, judged int, apart []verdictPair) {
	type key struct {
		experiment, row, figure string
		seed                    int
	}
	judgedOf := func(v Verdict) bool { return v.Outcome == Consistent || v.Outcome == Differs }
	theirs := map[key]Verdict{}
	for _, r := range other {
		for _, v := range r.Verdicts {
			if judgedOf(v) {
				theirs[key{r.Experiment, v.Row, v.Figure, v.Seed}] = v
			}
		}
	}
	for _, r := range ours {
		for _, v := range r.Verdicts {
			w, ok := theirs[key{r.Experiment, v.Row, v.Figure, v.Seed}]
			if !ok || !judgedOf(v) {
				continue
			}
			judged++
			if v.Outcome == w.Outcome {
				alike++
				continue
			}
			apart = append(apart, verdictPair{Experiment: r.Experiment, Model: model, Ours: v, Other: w})
		}
	}
	return alike, judged, apart
}
