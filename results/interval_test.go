package results

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// around returns mean ± 1, …, mean ± k: 2k samples, symmetric about mean, so
// that both semi-deviations equal the standard deviation, √(2·Σi²/(2k − 1)).
func around(mean float64, k int) []float64 {
	var xs []float64
	for i := 1; i <= k; i++ {
		xs = append(xs, mean-float64(i), mean+float64(i))
	}
	return xs
}

// quantiles returns f at the n midpoints (i − ½)/n: a sample shaped exactly
// like the distribution whose quantile function f is.
func quantiles(n int, f func(p float64) float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = f((float64(i) + 0.5) / float64(n))
	}
	return xs
}

// A near-normal figure gets mean ± t·s·√(1 + 1/n) at the coverage asked, with
// t from the table: t(0.995, 19) = 2.860935.
func TestPredictionIntervalNormal(t *testing.T) {
	xs := around(100, 10) // n = 20, s² = 2·385/19
	iv := predictionInterval(xs, 0.99)
	half := 2.860935 * math.Sqrt(770.0/19) * math.Sqrt(1+1.0/20)
	if iv.Method != MethodNormal || iv.Coverage != 0.99 || math.Abs(iv.Low-(100-half)) > 1e-4 || math.Abs(iv.High-(100+half)) > 1e-4 {
		t.Fatalf("predictionInterval(100 ± 1..10) = %+v, want normal 100 ± %.4f at 0.99", iv, half)
	}
	// A figure that is never negative: the interval starts at 0 at the lowest.
	if iv := predictionInterval(span(1, 20), 0.99); iv.Method != MethodNormal || iv.Low != 0 || iv.High < 27 {
		t.Errorf("predictionInterval(1..20) = %+v, want normal from 0", iv)
	}
	// A mild skew (lognormal, σ = 0.15: skewness 0.45) stays normal, its long
	// side wider than the short one.
	mild := quantiles(100, func(p float64) float64 { return math.Exp(0.15 * distuv.UnitNormal.Quantile(p)) })
	iv = predictionInterval(mild, 0.99)
	mean := meanOf(mild)
	if iv.Method != MethodNormal || !(iv.High-mean > 1.05*(mean-iv.Low)) {
		t.Errorf("mildly skewed: %+v around %v, want normal and wider above", iv, mean)
	}
}

// A figure that is not near normal, or has too few samples to tell, gets
// order statistics, and the coverage they have: (n + 1 − 2j)/(n + 1).
func TestPredictionIntervalOrder(t *testing.T) {
	skewed := func(n int) []float64 { // lognormal, σ = 1: skewness 6
		return quantiles(n, func(p float64) float64 { return math.Exp(distuv.UnitNormal.Quantile(p)) })
	}
	for _, tc := range []struct {
		name     string
		xs       []float64
		j        int
		coverage float64
	}{
		{"10 symmetric samples: too few to judge the shape", around(50, 5), 1, 9.0 / 11},
		{"skewed, n = 100: the extremes, 98 %", skewed(100), 1, 99.0 / 101},
		{"skewed, n = 199: the extremes reach 99 %", skewed(199), 1, 0.99},
		{"skewed, n = 300", skewed(300), 1, 299.0 / 301},
		{"skewed, n = 500: the 2nd smallest to the 2nd largest", skewed(500), 2, 497.0 / 501},
	} {
		iv := predictionInterval(tc.xs, 0.99)
		sorted := slices.Sorted(slices.Values(tc.xs))
		want := interval{Low: sorted[tc.j-1], High: sorted[len(sorted)-tc.j], Method: MethodOrder, Coverage: tc.coverage}
		if iv.Method != want.Method || iv.Low != want.Low || iv.High != want.High || math.Abs(iv.Coverage-want.Coverage) > 1e-12 {
			t.Errorf("%s: %+v, want %+v", tc.name, iv, want)
		}
	}
}

// A figure that never varied is judged by equality, at coverage n/(n + 1).
func TestPredictionIntervalConstant(t *testing.T) {
	iv := predictionInterval([]float64{35, 35, 35, 35, 35, 35, 35, 35, 35, 35}, 0.99)
	if iv != (interval{Low: 35, High: 35, Method: MethodConstant, Coverage: 10.0 / 11}) {
		t.Errorf("ten 35s: %+v", iv)
	}
	if !iv.Holds(35, 35) || iv.Holds(136, 136) || !iv.Holds(30, 40) || iv.Holds(36, 40) {
		t.Error("a constant holds its value and the ranges that contain it, nothing else")
	}
}

func TestCoverageHelpers(t *testing.T) {
	if OrderMin(0.99) != 199 || OrderMin(0.9) != 19 || constantMin(0.99) != 99 || constantMin(0.95) != 19 {
		t.Errorf("OrderMin(0.99) %d, OrderMin(0.9) %d, constantMin(0.99) %d, constantMin(0.95) %d",
			OrderMin(0.99), OrderMin(0.9), constantMin(0.99), constantMin(0.95))
	}
	for n := 2; n < 400; n++ { // the boundaries are where the coverage reaches the asked one
		if got, want := orderRank(n, 0.99) >= 1, orderCoverage(n, 1) >= 0.99-1e-12; got != want {
			t.Errorf("n %d: orderRank says %v, the coverage %v", n, got, orderCoverage(n, 1))
		}
	}
	for c, want := range map[float64]string{0.99: "99.0 %", 99.0 / 101: "98.0 %", 19.0 / 21: "90.4 %", 100.0 / 101: "99.0 %", 299.0 / 301: "99.3 %"} {
		if got := CoverageLabel(c); got != want {
			t.Errorf("CoverageLabel(%v) = %q, want %q", c, got, want)
		}
	}
}

// skewBeyond tells a skewness within the tolerance from one beyond it: the
// normal-theory standard error of g₁ is 0.2414 at n = 100, so a sample
// skewness of 0.5 + 1.645·0.2414 = 0.897 is the boundary at 5 %.
func TestSkewBeyond(t *testing.T) {
	for _, tc := range []struct {
		sigma float64 // of a lognormal sample of 100: skewness ≈ 3σ for small σ
		want  bool
	}{{0, false}, {0.15, false}, {0.25, false}, {0.4, true}, {1, true}} {
		xs := quantiles(100, func(p float64) float64 { return math.Exp(tc.sigma * distuv.UnitNormal.Quantile(p)) })
		if got := skewBeyond(xs, SkewTolerance, skewLevel); got != tc.want {
			t.Errorf("lognormal σ %v: skewBeyond %v, want %v", tc.sigma, got, tc.want)
		}
		neg := make([]float64, len(xs)) // the mirror image is as far from symmetric
		for i, x := range xs {
			neg[i] = -x
		}
		if got := skewBeyond(neg, SkewTolerance, skewLevel); got != tc.want {
			t.Errorf("mirrored lognormal σ %v: skewBeyond %v, want %v", tc.sigma, got, tc.want)
		}
	}
}
