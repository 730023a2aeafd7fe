package results

import (
	"fmt"
	"slices"
)

// MinReplications is the number of replications race and tabs run behind
// their verdicts by default: with 100, a figure that is near normal and one
// that never varied are judged at the 99 % asked, any other by order
// statistics at 98.0 % (OrderMin is 199).
const MinReplications = 100

// Replications are our rows of many virtual-clock runs of the published setup,
// behind the verdicts: Reps holds the rows of each replication (as many seeds as
// the published table has), Singles those of each single run (one seed).
type Replications[R Row] struct {
	Reps    [][]R
	Singles [][]R
}

// Comparison is how one experiment's results stand against the published ones,
// as data: which published tables stand beside ours, why none do, and the
// verdicts with what they rest on.
type Comparison struct {
	// Experiment is the published side of the experiment.
	Experiment *Experiment
	// Differences lists, when our parameters differ from the published ones,
	// each difference ("edits 50 (published 100)"); then nothing is compared.
	Differences []string
	// Published holds the published tables shown beside ours.
	Published []PubTable
	// Replications is how many replications the verdicts rest on (0 when they
	// rest on our rows alone, or when there are none).
	Replications int
	// Singles is how many single runs the per-run figures were judged against.
	Singles  int
	Verdicts []Verdict
	Warnings []string
}

// Shown reports whether the published figures stand beside ours.
func (c Comparison) Shown() bool { return len(c.Differences) == 0 }

// A Rule is how an experiment's figures are judged against the published
// ones. The zero Rule judges each figure against the interval in which one
// new replication of ours falls (predictionInterval): a published range over
// runs ("every run took 9.6–10.5 s") and a per-seed figure against that of
// one single run, a timing only as a ratio.
type Rule[R Row] struct {
	// Judge, when set, judges our rows alone, with no replications: refs'
	// fractions by an exact test over the trials, validate's texts
	// (TextVerdicts), bench's timings as ratios (bench.Verdicts).
	Judge func(exp *Experiment, rows []R) []Verdict
	// RatioOnly names figures beside the timings that are judged only as a
	// ratio: outline's request_bytes, which depend on our slide texts.
	RatioOnly []string
}

// Replicated reports whether the rule judges against replications.
func (r Rule[R]) Replicated() bool { return r.Judge == nil }

// Compare judges our rows against exp's published figures by rule.
// differences are the parameters in which our run departs from the published
// setup (nothing is compared when there are any); reps, when not nil, are
// the replications a replicated rule judges against. An experiment with no
// published figures (exp nil) is compared with nothing.
func Compare[R Row](exp *Experiment, rule Rule[R], differences []string, rows []R, reps *Replications[R]) Comparison {
	c := Comparison{Experiment: exp, Differences: nonEmpty(differences)}
	if exp == nil || !c.Shown() {
		return c
	}
	c.Published = append([]PubTable(nil), exp.Tables...)
	if !rule.Replicated() {
		c.Verdicts = rule.Judge(exp, rows)
		return c
	}
	if reps == nil || len(reps.Reps) == 0 {
		return c
	}
	ratioOnly := func(figure string) bool { return slices.Contains(rule.RatioOnly, figure) || TimingKey(figure) }
	c.Replications, c.Singles = len(reps.Reps), len(reps.Singles)
	c.Verdicts = compareRows(exp, reps.Reps, reps.Singles, DefaultMass, ratioOnly)
	if w := coverageWarning(c.Verdicts, c.Replications, DefaultMass); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	return c
}

// TextVerdicts judges our rows' figures in words (validate's verdicts)
// against the published texts.
func TextVerdicts[R Row](exp *Experiment, rows []R) []Verdict {
	return compareRows(exp, [][]R{rows}, nil, DefaultMass, nil)
}

// nonEmpty drops the empty strings of ss.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Differ returns "name ours (published theirs)" when ours differs from the
// published value, else "".
func Differ(name string, ours, theirs any) string {
	o, t := fmt.Sprint(ours), fmt.Sprint(theirs)
	if o == t {
		return ""
	}
	if t == "" {
		// A parameter the published setup leaves unset runs every value
		// (create's order: both).
		return fmt.Sprintf("%s %s (published: all)", name, o)
	}
	return fmt.Sprintf("%s %s (published %s)", name, o, t)
}

// compareRows judges every published figure of exp against our replications:
// reps[r] holds the rows of replication r, every replication with the same rows
// in the same order. A count or fraction is judged against its spread over the
// replications; a published range or per-seed figure against the values of
// single runs (singles, in the same shape; reps when nil); a text against ours
// in the first replication; and a figure for which ratioOnly is true (nil:
// TimingKey) only as a ratio.
func compareRows[R Row](exp *Experiment, reps, singles [][]R, mass float64, ratioOnly func(figure string) bool) []Verdict {
	if ratioOnly == nil {
		ratioOnly = TimingKey
	}
	if len(reps) == 0 {
		return nil
	}
	if singles == nil {
		singles = reps
	}
	var out []Verdict
	for i, row := range reps[0] {
		pub, ok := exp.Match(RowKey(exp, row))
		if !ok {
			continue
		}
		label := exp.Label(pub)
		for _, name := range exp.Figures {
			fig, ok := pub.Figure(name)
			if !ok {
				continue
			}
			from := reps
			if k := fig.Kind(); k == FigureRange || k == FigureSeeds {
				from = singles
			}
			var samples []float64
			for _, rep := range from {
				if i < len(rep) {
					if v, ok := rep[i].FigureOf(name); ok {
						samples = append(samples, v.Nums...)
					}
				}
			}
			switch {
			case fig.Kind() == FigureText:
				v, _ := row.FigureOf(name)
				out = append(out, JudgeText(name, label, v.Text, fig))
			case fig.Kind() == FigureSeeds:
				out = append(out, judgePerSeed(name, label, samples, fig, mass)...)
			case ratioOnly(name):
				out = append(out, JudgeRatio(name, label, samples, fig, mass))
			default:
				out = append(out, Judge(name, label, samples, fig, mass))
			}
		}
	}
	return out
}

// runSetting reports whether a config key says how runs were executed rather
// than what was run: where the databases went, how many ran at once, which
// implementation served them. Such keys never change a count, so a baseline
// never compares them, on either clock.
func runSetting(key string) bool {
	switch key {
	case "parallel", "db_dir", "in_memory", "synchronous", "store", "target", "progress", "format", "out", "keep", "max_errors",
		"protocol", "mcp_sessions", "replicas", "balance":
		return true
	}
	return false
}

// clockSetting reports whether a config key belongs to the clock a run used:
// a real-clock run is checked against a baseline for invariants and recorded
// ranges, whatever clock the baseline ran on.
func clockSetting(key string) bool {
	return key == "clock" || key == "service_time_ns"
}
