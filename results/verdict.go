package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/stat"

	"github.com/notesbench/notesbench/internal/plural"
)

// DefaultMass is the coverage every verdict asks of its interval: the chance,
// were the published value one more run of the published setup drawn like
// ours, that the interval holds it (99 %). A verdict whose method cannot reach
// it with the replications it has says the coverage it has (see
// predictionInterval).
const DefaultMass = 0.99

// Conclusion is the verdict on one published figure.
type Conclusion string

// The outcomes.
const (
	// Consistent means the published value lies inside the interval in
	// which one new run of ours falls (a range overlaps it), or a published
	// text matches ours.
	Consistent Conclusion = "consistent"
	// Differs means it does not.
	Differs Conclusion = "differs"
	// RatioOnly is for machine-dependent figures (timings): only the ratio of
	// ours to the published value is reported, with no judgement.
	RatioOnly Conclusion = "ratio"
	// NoData means there was nothing to judge: no finite samples, or a figure of
	// a kind the judging function does not take.
	NoData Conclusion = "no data"
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
	// OursLow and OursHigh bound the interval in which one new run of ours
	// falls with probability Coverage (see predictionInterval); the published
	// value was judged against it.
	OursLow  float64 `json:"ours_low"`
	OursHigh float64 `json:"ours_high"`
	// OursSD is the standard deviation of our samples (n − 1 in the
	// denominator; 0 with fewer than two): with OursMean and N it is what a
	// real-clock baseline check predicts a new run from. Baselines recorded
	// before it have none.
	OursSD float64 `json:"ours_sd"`
	// OursText is our text, for text figures.
	OursText string `json:"ours_text,omitempty"`
	// Percentile is the percentileRank of the published value among ours (of
	// its midpoint for a range), 0..100.
	Percentile float64 `json:"percentile"`
	// N is the number of samples judged.
	N int `json:"n"`
	// Method is how the interval was drawn, and Coverage the chance that it
	// holds a new run of ours: the coverage asked, or less when the method
	// cannot reach it with N samples. A text verdict has neither.
	Method   Method     `json:"method,omitempty"`
	Coverage float64    `json:"coverage,omitempty"`
	Outcome  Conclusion `json:"verdict"`
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
// seeds on the virtual clock) with a published point or range. The published
// value is taken as one more run of the published setup: with [lo, hi] the
// interval in which one new run of ours falls with the given coverage
// (DefaultMass for 99 %; see predictionInterval for the method and the
// coverage it reaches with the samples there are), a point v is Consistent iff
// lo ≤ v ≤ hi, and a range [low, high] iff it overlaps [lo, hi].
//
// NaN and infinite samples are left out. With no samples left, a coverage
// outside (0, 1), or a per-seed or text figure (see judgePerSeed and
// JudgeText), the outcome is NoData.
func Judge(figure, row string, samples []float64, pub Figure, coverage float64) Verdict {
	v, xs := summarize(figure, row, samples, pub, coverage)
	if len(xs) == 0 || (pub.Kind() != FigurePoint && pub.Kind() != FigureRange) {
		v.Outcome = NoData
		return v
	}
	v.Outcome = Differs
	if v.interval().Holds(pub.Range()) {
		v.Outcome = Consistent
	}
	return v
}

// judgePerSeed judges each element of a per-seed figure as a point, in order,
// against the same samples, and returns one Verdict per element with Seed set.
//
// The published seeds numbered another program's random streams, so its seed 2
// has nothing to do with ours: each published element is one draw from the
// distribution of a single run, and samples holds one value per run of ours,
// over as many seeds as the caller ran. A figure that is not per seed gets one
// NoData verdict.
func judgePerSeed(figure, row string, samples []float64, pub Figure, coverage float64) []Verdict {
	if pub.Kind() != FigureSeeds {
		v, _ := summarize(figure, row, samples, pub, coverage)
		v.Outcome = NoData
		return []Verdict{v}
	}
	elems := pub.Seeds()
	out := make([]Verdict, len(elems))
	for i, e := range elems {
		out[i] = Judge(figure, row, samples, PointFigure(e), coverage)
		out[i].Seed = i + 1
		out[i].Published = Figure{kind: FigurePoint, nums: []float64{e}, lits: []string{pub.lits[i]}}
	}
	return out
}

// JudgeRatio reports a machine-dependent figure (a timing) as the ratio of our
// median to the published midpoint, with outcome RatioOnly and no judgement.
// The other fields are filled as by Judge, the interval included. With no
// finite samples, a coverage outside (0, 1), or a published midpoint of 0, the
// outcome is NoData.
func JudgeRatio(figure, row string, samples []float64, pub Figure, coverage float64) Verdict {
	v, xs := summarize(figure, row, samples, pub, coverage)
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
	v := Verdict{Figure: figure, Row: row, Published: pub, OursText: ours, N: 1, Method: MethodText, Outcome: NoData}
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

// ShortOfCoverage counts the verdicts that judged a number (Consistent or
// Differs, not a text) at less than the coverage asked, their method unable to
// reach it with the samples they had, and returns the least coverage among
// them (asked when there are none).
func ShortOfCoverage(verdicts []Verdict, asked float64) (short int, least float64) {
	least = asked
	for _, v := range verdicts {
		if (v.Outcome == Consistent || v.Outcome == Differs) && v.Method != MethodText && v.Coverage < asked-1e-9 {
			short++
			least = min(least, v.Coverage)
		}
	}
	return short, least
}

// coverageWarning says, when some verdicts judged at less than the coverage
// asked for want of samples, how many and how little, and how many samples
// would give them the coverage asked; otherwise it returns "".
func coverageWarning(verdicts []Verdict, replications int, asked float64) string {
	short, least := ShortOfCoverage(verdicts, asked)
	if short == 0 {
		return ""
	}
	return fmt.Sprintf("verdicts rest on %s: %s judged at less than the %s asked, down to %s: without a normal shape it takes %d samples, and %d for a figure that never varied",
		plural.Count(replications, "replication"), plural.Count(short, "figure"), CoverageLabel(asked), CoverageLabel(least),
		OrderMin(asked), constantMin(asked))
}

// summarize fills the fields every verdict shares, the interval for one new
// run of ours included, and returns the finite samples it used.
func summarize(figure, row string, samples []float64, pub Figure, coverage float64) (Verdict, []float64) {
	xs := slices.DeleteFunc(slices.Clone(samples), func(x float64) bool {
		return math.IsNaN(x) || math.IsInf(x, 0)
	})
	v := Verdict{Figure: figure, Row: row, Published: pub, N: len(xs)}
	if len(xs) == 0 || !(coverage > 0 && coverage < 1) {
		return v, nil
	}
	v.samples = xs
	v.OursMean = meanOf(xs)
	if len(xs) > 1 {
		v.OursSD = stat.StdDev(xs, nil)
	}
	iv := predictionInterval(xs, coverage)
	v.OursLow, v.OursHigh, v.Method, v.Coverage = iv.Low, iv.High, iv.Method, iv.Coverage
	if k := pub.Kind(); k == FigurePoint || k == FigureRange || k == FigureSeeds {
		v.Percentile = percentileRank(xs, pub.Midpoint())
	}
	return v, xs
}

// interval returns the interval v was judged against.
func (v Verdict) interval() interval {
	return interval{Low: v.OursLow, High: v.OursHigh, Method: v.Method, Coverage: v.Coverage}
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
// much (refs: 10,000 trials per K). The published fraction is taken to be over
// as many trials as ours, as in the published setup (Compare judges nothing
// else), and to be one more run of it: with our count x = p·n and the
// published y, if both runs had the same chance of success, y given the sum
// x + y is hypergeometric, and the verdict is its exact two-sided test at
// level 1 − coverage (MethodBinomial). The test is conservative, so the
// coverage holds at least. OursLow and OursHigh are the published fractions
// the test would take; the percentile places the published count in that
// hypergeometric distribution (its mid-rank, as percentileRank). A fraction
// of 0 or 1 needs no case of its own: with none of ours in 10,000 trials, up
// to 7 in the published 10,000 are consistent. N is the number of trials.
func JudgeProportion(figure, row string, p float64, n int, pub Figure, coverage float64) Verdict {
	v := Verdict{Figure: figure, Row: row, Published: pub, N: n, OursMean: p, Outcome: NoData}
	if n <= 0 || !(coverage > 0 && coverage < 1) || pub.Kind() != FigurePoint || !(p >= 0 && p <= 1) ||
		!(pub.Value() >= 0 && pub.Value() <= 1) {
		return v
	}
	alpha := 1 - coverage
	x := int(math.Round(p * float64(n)))
	consistent := func(y int) bool { return hyperTest(x, y, n, n) > alpha }
	y := int(math.Round(pub.Value() * float64(n)))
	// The counts the test takes form one run around the expected y = x.
	lo, hi := x, x
	for lo > 0 && consistent(lo-1) {
		lo--
	}
	for hi < n && consistent(hi+1) {
		hi++
	}
	v.OursLow, v.OursHigh = float64(lo)/float64(n), float64(hi)/float64(n)
	v.Method, v.Coverage = MethodBinomial, coverage
	below, equal := hyperSplit(x, y, n, n)
	v.Percentile = 100 * (below + equal/2)
	v.Outcome = Differs
	if consistent(y) {
		v.Outcome = Consistent
	}
	return v
}
