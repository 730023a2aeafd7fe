package results

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultMass is the central mass of our spread a published value is judged
// against: the central 99 % range.
const DefaultMass = 0.99

// Outcome is the verdict on one published figure.
type Outcome string

// The outcomes.
const (
	// Consistent means the published value lies inside our central range (a
	// range overlaps it), or a published text matches ours.
	Consistent Outcome = "consistent"
	// Differs means it does not.
	Differs Outcome = "differs"
	// RatioOnly is for machine-dependent figures (timings): only the ratio of
	// ours to the published value is reported, with no judgement.
	RatioOnly Outcome = "ratio"
	// NoData means there was nothing to judge: no finite samples, or a figure of
	// a kind the judging function does not take.
	NoData Outcome = "no data"
)

// A Verdict compares our samples of one figure of one row with its published
// value. The numbers are those of our finite samples; with none they are 0.
type Verdict struct {
	// Figure is the JSON row key of the figure, e.g. "lost".
	Figure string `json:"figure"`
	// Row is a short label of the row, e.g. "note reapply".
	Row string `json:"row"`
	// Seed is the 1-based position of the element judged in a per-seed
	// figure (the published seeds are 1, 2, 3 in that order); 0 otherwise.
	Seed      int     `json:"seed,omitempty"`
	Published Figure  `json:"published"`
	OursMean  float64 `json:"ours_mean"`
	// OursLow and OursHigh bound the central range of our samples.
	OursLow  float64 `json:"ours_low"`
	OursHigh float64 `json:"ours_high"`
	// OursSD is the standard deviation of our samples (n − 1 in the
	// denominator; 0 with fewer than two): with OursMean and N it is what a
	// real-clock baseline check predicts a new run from. Baselines recorded
	// before it have none.
	OursSD float64 `json:"ours_sd"`
	// OursText is our text, for text figures.
	OursText string `json:"ours_text,omitempty"`
	// Percentile is the PercentileRank of the published value among ours (of
	// its midpoint for a range), 0..100.
	Percentile float64 `json:"percentile"`
	// N is the number of samples judged.
	N       int     `json:"n"`
	Outcome Outcome `json:"verdict"`
	// Ratio is our median over the published midpoint, for RatioOnly verdicts.
	Ratio float64 `json:"ratio,omitempty"`

	// samples are the finite samples judged, kept for plots (not in JSON: a
	// verdict file stays small).
	samples []float64
}

// Samples returns the finite samples the verdict judged (none for a text or a
// proportion verdict). Callers must not modify them.
func (v Verdict) Samples() []float64 { return v.samples }

// Judge compares samples of our figure (one value per run, usually over many
// seeds on the virtual clock) with a published point or range. With lo, hi the
// central range of the given mass (DefaultMass for 99 %), a point v is
// Consistent iff lo ≤ v ≤ hi, and a range [low, high] iff it overlaps [lo, hi].
//
// NaN and infinite samples are left out. With no samples left, a mass outside
// [0, 1], or a per-seed or text figure (see JudgePerSeed and JudgeText), the
// outcome is NoData.
func Judge(figure, row string, samples []float64, pub Figure, mass float64) Verdict {
	v, xs := summarize(figure, row, samples, pub, mass)
	if len(xs) == 0 || (pub.Kind() != FigurePoint && pub.Kind() != FigureRange) {
		v.Outcome = NoData
		return v
	}
	low, high := pub.Range()
	v.Outcome = Differs
	if low <= v.OursHigh && high >= v.OursLow {
		v.Outcome = Consistent
	}
	return v
}

// JudgePerSeed judges each element of a per-seed figure as a point, in order,
// against the same samples, and returns one Verdict per element with Seed set.
//
// The published seeds numbered another program's random streams, so its seed 2
// has nothing to do with ours: each published element is one draw from the
// distribution of a single run, and samples holds one value per run of ours,
// over as many seeds as the caller ran. A figure that is not per seed gets one
// NoData verdict.
func JudgePerSeed(figure, row string, samples []float64, pub Figure, mass float64) []Verdict {
	if pub.Kind() != FigureSeeds {
		v, _ := summarize(figure, row, samples, pub, mass)
		v.Outcome = NoData
		return []Verdict{v}
	}
	elems := pub.Seeds()
	out := make([]Verdict, len(elems))
	for i, e := range elems {
		out[i] = Judge(figure, row, samples, PointFigure(e), mass)
		out[i].Seed = i + 1
		out[i].Published = Figure{kind: FigurePoint, nums: []float64{e}, lits: []string{pub.lits[i]}}
	}
	return out
}

// JudgeRatio reports a machine-dependent figure (a timing) as the ratio of our
// median to the published midpoint, with outcome RatioOnly and no judgement.
// The other fields are filled as by Judge. With no finite samples, a mass
// outside [0, 1], or a published midpoint of 0, the outcome is NoData.
func JudgeRatio(figure, row string, samples []float64, pub Figure, mass float64) Verdict {
	v, xs := summarize(figure, row, samples, pub, mass)
	mid := pub.Midpoint()
	if len(xs) == 0 || mid == 0 || (pub.Kind() != FigurePoint && pub.Kind() != FigureRange) {
		v.Outcome = NoData
		return v
	}
	v.Ratio = Quantile(xs, 0.5) / mid
	v.Outcome = RatioOnly
	return v
}

// JudgeText compares our text with a published text figure. They are
// Consistent when they are equal after lower-casing and dropping everything but
// letters, digits, '_', '[' and ']', so "operation: not in enum" matches
// "operation not in enum" and "/limit: maximum 50" matches "limit: maximum 50".
func JudgeText(figure, row, ours string, pub Figure) Verdict {
	v := Verdict{Figure: figure, Row: row, Published: pub, OursText: ours, N: 1, Outcome: NoData}
	if pub.Kind() != FigureText {
		return v
	}
	v.Outcome = Differs
	if textKey(ours) == textKey(pub.Text()) {
		v.Outcome = Consistent
	}
	return v
}

// Summary counts the verdicts that are Consistent, out of those that judged
// anything (Consistent or Differs); RatioOnly and NoData verdicts count in
// neither.
func Summary(verdicts []Verdict) (consistent, total int) {
	for _, v := range verdicts {
		switch v.Outcome {
		case Consistent:
			consistent++
			total++
		case Differs:
			total++
		}
	}
	return consistent, total
}

// summarize fills the fields every verdict shares and returns the finite
// samples it used.
func summarize(figure, row string, samples []float64, pub Figure, mass float64) (Verdict, []float64) {
	xs := slices.DeleteFunc(slices.Clone(samples), func(x float64) bool {
		return math.IsNaN(x) || math.IsInf(x, 0)
	})
	v := Verdict{Figure: figure, Row: row, Published: pub, N: len(xs)}
	if len(xs) == 0 || !(mass >= 0 && mass <= 1) {
		return v, nil
	}
	v.samples = xs
	v.OursMean = Mean(xs)
	if len(xs) > 1 {
		v.OursSD = stat.StdDev(xs, nil)
	}
	v.OursLow, v.OursHigh = CentralRange(xs, mass)
	if k := pub.Kind(); k == FigurePoint || k == FigureRange || k == FigureSeeds {
		v.Percentile = PercentileRank(xs, pub.Midpoint())
	}
	return v, xs
}

// textKey is the form in which JudgeText compares texts.
func textKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '[' || r == ']' {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// JudgeProportion judges a published fraction against ours, p measured over n
// independent trials, where replicating the whole experiment would cost too
// much (refs: 10,000 trials per K). Our range is the Wilson score interval of
// the given mass — the spread a fraction over n trials has from sampling alone —
// and the percentile places the published value in the normal approximation of
// that sampling distribution. N is the number of trials.
func JudgeProportion(figure, row string, p float64, n int, pub Figure, mass float64) Verdict {
	v := Verdict{Figure: figure, Row: row, Published: pub, N: n, OursMean: p, Outcome: NoData}
	if n <= 0 || !(mass > 0 && mass < 1) || pub.Kind() != FigurePoint || p < 0 || p > 1 {
		return v
	}
	z := distuv.UnitNormal.Quantile((1 + mass) / 2)
	nf := float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	v.OursLow, v.OursHigh = max(0, center-half), min(1, center+half)
	// At p = 0 or 1 the interval touches 0 or 1 exactly; rounding must not move it.
	if p == 0 {
		v.OursLow = 0
	}
	if p == 1 {
		v.OursHigh = 1
	}
	pv := pub.Value()
	switch sd := math.Sqrt(p * (1 - p) / nf); {
	case sd > 0:
		v.Percentile = 100 * distuv.UnitNormal.CDF((pv-p)/sd)
	case pv == p:
		v.Percentile = 50
	case pv > p:
		v.Percentile = 100
	}
	v.Outcome = Differs
	if pv >= v.OursLow && pv <= v.OursHigh {
		v.Outcome = Consistent
	}
	return v
}
