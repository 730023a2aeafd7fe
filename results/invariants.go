package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/notesbench/notesbench/internal/plural"
)

// An Invariant is a figure that must be 0 on any clock, whatever the
// interleaving, in the rows it applies to: re-applying after a conflict
// never loses a line (race), per-tab versions give no conflicts (tabs),
// collision-free versions never lose a line (fast). An experiment declares
// its invariants in its descriptor; a real-clock run is checked against them.
type Invariant struct {
	// Key and Value pick the rows it applies to (KeyOf(Key) == Value); an
	// empty Key applies it to every row.
	Key, Value string
	// Figure is the figure that must be 0, and Why says why.
	Figure, Why string
}

// CheckInvariants returns a Diff for every row that breaks one of invs.
func CheckInvariants[R Row](invs []Invariant, rows []R) []Diff {
	var out []Diff
	for i, r := range rows {
		for _, inv := range invs {
			if inv.Key != "" && r.KeyOf(inv.Key) != inv.Value {
				continue
			}
			if v, _ := r.FigureOf(inv.Figure); len(v.Nums) != 1 || v.Nums[0] != 0 {
				out = append(out, Diff{Path: fmt.Sprintf("rows[%d].%s", i, inv.Figure), Baseline: "0 (" + inv.Why + ")", Current: describeValue(v)})
			}
		}
	}
	return out
}

// gateFalseAlarm is the false-alarm rate of one real-clock baseline check,
// over all its figures together: an unchanged build fails it in at most 1 %
// of runs, when its figures vary from run to run as the recorded
// replications did and about normally (counts summed over many edits do).
const gateFalseAlarm = 0.01

// A RangeCheck is the real-clock check of one run's figures against the
// replications a baseline recorded, with its stated false-alarm rate.
//
// Each figure is checked against a prediction interval for one new run: our
// mean over the n recorded replications ± t(1 − α/2, n − 1) · s · √(1 + 1/n),
// with s their standard deviation. α is gateFalseAlarm shared among the m
// figures checked (Bonferroni: α = gateFalseAlarm / m), so that the chance that
// any of them falls outside its interval in an unchanged build is at most
// gateFalseAlarm. A count (lost lines, conflicts, the most tries) is a normal
// spread rounded to whole numbers, so its interval is half a unit wider on
// each side (a continuity correction): without it a rare 3 tries among 2s
// failed. A figure that took one value in every replication has no
// spread to predict from and is not checked here (the invariants check what
// must hold); neither is a ratio, a text or a per-seed figure.
type RangeCheck struct {
	// Checked is the number of figures checked, Constant the number that
	// never varied over their replications and were left out.
	Checked, Constant int
	// MinN and MaxN bound the samples the checked figures rest on: the
	// replications, or the single runs behind a figure published as a range.
	MinN, MaxN int
	// Coverage is each interval's coverage, 1 − α.
	Coverage float64
	// Estimated reports a baseline recorded without standard deviations
	// (before notesbench recorded them, when verdicts recorded the central
	// 99 % range of the samples): s was estimated from each figure's recorded
	// range, and the rate holds only roughly.
	Estimated bool
	// Diffs are the figures outside their interval.
	Diffs []Diff
}

// Summary says in one line what the check did and its false-alarm rate, e.g.
// "12 figures within their 99.92 % prediction intervals from 20 recorded
// samples (false-alarm rate ≤ 1 % per run over all of them, Bonferroni); 9
// that never varied left to the invariants".
func (c RangeCheck) Summary() string {
	if c.Checked == 0 {
		s := "no figure to check against a range: the baseline recorded no replications"
		if c.Constant > 0 {
			s = fmt.Sprintf("no figure to check against a range: the %s recorded never varied", plural.Count(c.Constant, "figure"))
		}
		return s
	}
	n := strconv.Itoa(c.MinN)
	if c.MaxN != c.MinN {
		n += "–" + strconv.Itoa(c.MaxN)
	}
	within := "within their " + roundPct(100*c.Coverage) + " % prediction intervals"
	if c.Checked == 1 {
		within = "within its " + roundPct(100*c.Coverage) + " % prediction interval"
	}
	s := fmt.Sprintf("%s %s from %s recorded %s (false-alarm rate ≤ %s %% per run over all of them, Bonferroni)",
		plural.Count(c.Checked, "figure"), within, n, plural.Noun(c.MaxN, "sample"),
		strconv.FormatFloat(100*gateFalseAlarm, 'g', -1, 64))
	if c.Constant > 0 {
		s += fmt.Sprintf("; %d that never varied left to the invariants", c.Constant)
	}
	if c.Estimated {
		s += "; the baseline holds no standard deviations, so they were estimated from its ranges: record it again for the stated rate"
	}
	return s
}

// roundPct writes a coverage percentage with enough decimals to differ from
// 100: 99.9167 → "99.92".
func roundPct(p float64) string {
	for d := 1; d < 8; d++ {
		if s := strconv.FormatFloat(p, 'f', d, 64); s != "100."+strings.Repeat("0", d) {
			return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(p, 'f', d+1, 64), "0"), ".")
		}
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}

// CheckRanges checks every figure of rows that a baseline's verdicts recorded
// replications of against its prediction interval (see RangeCheck).
func CheckRanges[R Row](exp *Experiment, recorded []Verdict, rows []R) RangeCheck {
	type target struct {
		path  string
		value float64
		v     Verdict
		sd    float64
	}
	var c RangeCheck
	var checks []target
	for i, row := range rows {
		pub, ok := exp.Match(RowKey(exp, row))
		if !ok {
			continue
		}
		label := exp.Label(pub)
		for _, v := range recorded {
			if v.Row != label || v.Seed != 0 || (v.Outcome != Consistent && v.Outcome != Differs) {
				continue
			}
			x, ok := row.FigureOf(v.Figure)
			if !ok || len(x.Nums) != 1 {
				continue
			}
			sd := v.OursSD
			if sd == 0 && v.OursHigh > v.OursLow {
				// A baseline recorded before standard deviations were, when
				// verdicts recorded the central 99 % range of the samples:
				// that of a normal spread is ±2.576 s.
				sd = (v.OursHigh - v.OursLow) / (2 * distuv.UnitNormal.Quantile((1+0.99)/2))
				c.Estimated = true
			}
			if !(sd > 0) || v.N < 2 {
				c.Constant++
				continue
			}
			checks = append(checks, target{fmt.Sprintf("rows[%d].%s", i, v.Figure), x.Nums[0], v, sd})
		}
	}
	c.Checked = len(checks)
	if c.Checked == 0 {
		return c
	}
	alpha := gateFalseAlarm / float64(c.Checked)
	c.Coverage = 1 - alpha
	c.MinN, c.MaxN = checks[0].v.N, checks[0].v.N
	for _, ch := range checks {
		c.MinN, c.MaxN = min(c.MinN, ch.v.N), max(c.MaxN, ch.v.N)
		half := predictionHalfWidth(ch.sd, ch.v.N, 1-alpha)
		if wholeCount(ch.value, ch.v) {
			half += 0.5 // continuity correction: a count is a normal spread rounded
		}
		low, high := ch.v.OursMean-half, ch.v.OursMean+half
		if ch.v.OursLow >= 0 {
			low = max(low, 0) // a figure that is never negative
		}
		if ch.value < low || ch.value > high {
			c.Diffs = append(c.Diffs, Diff{Path: ch.path, Baseline: "range " + RoundRange(low, high), Current: strconv.FormatFloat(ch.value, 'f', -1, 64)})
		}
	}
	return c
}

// wholeCount reports whether a figure is a count, whole in every run: its value
// now is whole, and so is the sum of its recorded samples (their mean times
// their number).
func wholeCount(x float64, v Verdict) bool {
	sum := v.OursMean * float64(v.N)
	return x == math.Trunc(x) && math.Abs(sum-math.Round(sum)) < 1e-6*max(1, math.Abs(sum))
}

// RoundRange writes low–high rounded to what their distance shows: three
// significant digits of the half-width, e.g. "178.5–207.5" for
// 178.52–207.47; equal bounds are written as they are.
func RoundRange(low, high float64) string {
	half := (high - low) / 2
	if !(half > 0) || math.IsInf(half, 0) {
		return strconv.FormatFloat(low, 'f', -1, 64) + "–" + strconv.FormatFloat(high, 'f', -1, 64)
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(half))))
	return strconv.FormatFloat(low, 'f', decimals, 64) + "–" + strconv.FormatFloat(high, 'f', decimals, 64)
}
