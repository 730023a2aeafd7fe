package results

import (
	"math"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Method names how a verdict placed one new run of ours: how it drew the
// interval it judged the published value against.
type Method string

// The methods.
const (
	// MethodNormal is the prediction interval of a figure that is near
	// normal: mean ± t(1 − α/2, n − 1)·s·√(1 + 1/n) over its n samples, which
	// holds a new draw of a normal figure with probability 1 − α at any n.
	// On each side s is at least that side's own spread (see
	// predictionInterval), so that a figure with a longer tail on one side is
	// not held less often there.
	MethodNormal Method = "normal"
	// MethodOrder is distribution-free: from the j-th smallest to the j-th
	// largest of the n samples, which holds a new draw of the same
	// distribution with probability at least (n + 1 − 2j)/(n + 1), exactly
	// so when the figure is continuous.
	MethodOrder Method = "order"
	// MethodConstant is for a figure that took one value in every sample:
	// the published value is consistent when it is that value. A new draw
	// that differs from n equal ones is the odd one out of n + 1
	// exchangeable draws, which happens with probability at most 1/(n + 1).
	MethodConstant Method = "constant"
	// MethodBinomial judges a published fraction over m trials against ours
	// over n where replicating costs too much (refs): if both have the same
	// chance, the published count given the sum of both counts is
	// hypergeometric, an exact test that holds at least its coverage.
	MethodBinomial Method = "binomial"
	// MethodText compares texts; it has no coverage.
	MethodText Method = "text"
)

// NormalMin is the fewest samples from which a figure may be judged by
// MethodNormal. Below it the shape test too often takes a skewed figure for a
// normal one, whose interval then holds a new draw less often than it says;
// order statistics say what they hold at any n.
const NormalMin = 20

// SkewTolerance is the skewness a figure judged by MethodNormal may have:
// the semi-deviations widen the long side of its interval enough for a
// skewness up to about this, at the coverage asked. A figure whose sample
// skewness exceeds it significantly (see skewBeyond) is judged by order
// statistics.
const SkewTolerance = 0.5

// skewLevel is the significance level of the one-sided test that a figure's
// skewness exceeds SkewTolerance.
const skewLevel = 0.05

// An interval is where one new run of ours falls, and its coverage: the
// chance, were the published value one more draw of our distribution, that it
// lies inside. Coverage is exact for MethodOrder on a continuous figure; for
// MethodNormal on a normal figure the true coverage is a little above it (the
// semi-deviation floor widens some intervals: 99.1–99.2 % for 99 % in
// simulation at 20 to 300 samples); for a figure that takes few values it is
// a floor.
type interval struct {
	Low, High float64
	Method    Method
	Coverage  float64
}

// predictionInterval returns the interval for one new draw of the
// distribution xs were drawn from, asking the given coverage (0 < coverage <
// 1). The method follows the samples:
//
//   - all equal: MethodConstant, that value, coverage n/(n + 1);
//   - at least NormalMin samples whose skewness is not significantly beyond
//     SkewTolerance (skewBeyond at skewLevel): MethodNormal with the coverage
//     asked, mean ±
//     t·√(1 + 1/n) times, on each side, the larger of the standard deviation
//     and that side's semi-deviation (the root mean square of the deviations
//     beyond the mean on that side, as if the other side mirrored it), so
//     that a skew the test lets pass widens the long side;
//   - otherwise MethodOrder with the largest j whose coverage
//     (n + 1 − 2j)/(n + 1) reaches the coverage asked, or, when n is below
//     OrderMin, the smallest and largest sample and the coverage they have,
//     (n − 1)/(n + 1): less than asked, which the verdict says.
//
// A normal interval of a figure none of whose samples is negative starts at 0
// at the lowest: such a figure (a count, a fraction, a time) never is.
// xs must be finite and not empty; it is not modified.
func predictionInterval(xs []float64, coverage float64) interval {
	n := len(xs)
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return interval{Low: lo, High: hi, Method: MethodConstant, Coverage: float64(n) / float64(n+1)}
	}
	if n >= NormalMin && !skewBeyond(xs, SkewTolerance, skewLevel) {
		mean, sd := stat.MeanStdDev(xs, nil)
		below, above := semiDeviations(xs, mean)
		half := predictionHalfWidth(1, n, coverage)
		iv := interval{Low: mean - half*max(sd, below), High: mean + half*max(sd, above), Method: MethodNormal, Coverage: coverage}
		if lo >= 0 {
			iv.Low = max(iv.Low, 0)
		}
		return iv
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	j := max(1, orderRank(n, coverage))
	return interval{Low: sorted[j-1], High: sorted[n-j], Method: MethodOrder, Coverage: orderCoverage(n, j)}
}

// Holds reports whether a published point (low = high) or range lies in, or
// overlaps, iv.
func (iv interval) Holds(low, high float64) bool {
	return low <= iv.High && high >= iv.Low
}

// predictionHalfWidth is the half-width of the prediction interval for one new
// draw of a normal distribution, from n samples of standard deviation sd,
// holding the draw with probability coverage: t(1 − α/2, n − 1)·sd·√(1 + 1/n)
// with α = 1 − coverage. n must be at least 2.
func predictionHalfWidth(sd float64, n int, coverage float64) float64 {
	return tQuantile(n-1, (1+coverage)/2) * sd * math.Sqrt(1+1/float64(n))
}

// tQuantiles holds the quantiles tQuantile computed, by tKey: one takes some
// 20 µs, and verdicts ask for the same few many times.
var tQuantiles sync.Map

type tKey struct {
	df int
	p  float64
}

// tQuantile returns the p-quantile of Student's t distribution with df
// degrees of freedom.
func tQuantile(df int, p float64) float64 {
	k := tKey{df, p}
	if q, ok := tQuantiles.Load(k); ok {
		return q.(float64)
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
	tQuantiles.Store(k, q)
	return q
}

// semiDeviations returns the spread of xs below and above mean, each as the
// standard deviation of a symmetric figure whose both sides looked like that
// one: √(2·Σ(x − mean)²/(n − 1)) over the x on that side.
func semiDeviations(xs []float64, mean float64) (below, above float64) {
	for _, x := range xs {
		if d := x - mean; d < 0 {
			below += d * d
		} else {
			above += d * d
		}
	}
	scale := 2 / float64(len(xs)-1)
	return math.Sqrt(scale * below), math.Sqrt(scale * above)
}

// orderRank returns the largest j for which the j-th smallest to the j-th
// largest of n samples hold a new draw with probability at least coverage,
// and 0 when not even the smallest and the largest do.
func orderRank(n int, coverage float64) int {
	// (n + 1 − 2j)/(n + 1) ≥ coverage ⟺ j ≤ (n + 1)(1 − coverage)/2; the
	// tolerance keeps an exact boundary (n = 199 at 99 %) from rounding away.
	return int(math.Floor(float64(n+1)*(1-coverage)/2 + 1e-9))
}

// orderCoverage is the coverage of the j-th smallest to the j-th largest of n
// samples: (n + 1 − 2j)/(n + 1).
func orderCoverage(n, j int) float64 {
	return float64(n+1-2*j) / float64(n+1)
}

// OrderMin returns the fewest samples whose smallest and largest hold a new
// draw with the given coverage: 2/(1 − coverage) − 1, 199 for 99 %.
func OrderMin(coverage float64) int {
	return int(math.Ceil(2/(1-coverage) - 1 - 1e-9))
}

// constantMin returns the fewest samples from which a figure that never
// varied is judged with the given coverage: n/(n + 1) ≥ coverage, 99 for 99 %.
func constantMin(coverage float64) int {
	return int(math.Ceil(coverage/(1-coverage) - 1e-9))
}

// CoverageLabel writes a coverage as a percentage with one decimal, rounded
// down so that it never claims more than it is: 0.99 → "99.0 %", 0.98019… →
// "98.0 %", 0.90476… → "90.4 %".
func CoverageLabel(c float64) string {
	return strconv.FormatFloat(math.Floor(1000*c+1e-6)/10, 'f', 1, 64) + " %"
}

// skewBeyond reports whether the skewness of the distribution xs were drawn
// from exceeds tolerance in size, by a one-sided test at level alpha: whether
// the sample skewness g₁ = m₃/m₂^(3/2) lies further than z(1 − alpha)
// standard errors beyond ±tolerance, the standard error being that of a
// normal sample's, √(6n(n − 1)/((n − 2)(n + 1)(n + 3))). xs must hold at least
// 3 samples that are not all equal.
func skewBeyond(xs []float64, tolerance, alpha float64) bool {
	n := float64(len(xs))
	mean := stat.Mean(xs, nil)
	var m2, m3 float64
	for _, x := range xs {
		d := x - mean
		m2 += d * d
		m3 += d * d * d
	}
	g1 := (m3 / n) / math.Pow(m2/n, 1.5)
	se := math.Sqrt(6 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))
	return (math.Abs(g1)-tolerance)/se > distuv.UnitNormal.Quantile(1-alpha)
}
