package results

import (
	"math"
	"testing"
)

// hyperTails agrees with the hypergeometric probabilities counted out: of a
// population of 12 holding 5 successes, 6 drawn.
func TestHyperTails(t *testing.T) {
	choose := func(n, k int) float64 {
		if k < 0 || k > n {
			return 0
		}
		c := 1.0
		for i := 1; i <= k; i++ {
			c = c * float64(n-k+i) / float64(i)
		}
		return c
	}
	const n, m, total = 6, 6, 5
	pmf := func(k int) float64 { return choose(m, k) * choose(n, total-k) / choose(n+m, total) }
	for y := -1; y <= 7; y++ {
		var le, ge float64
		for k := 0; k <= m; k++ {
			if k <= y {
				le += pmf(k)
			}
			if k >= y {
				ge += pmf(k)
			}
		}
		gotLE, gotGE, gotEQ := hyperTails(y, total, n, m)
		if math.Abs(gotLE-le) > 1e-12 || math.Abs(gotGE-ge) > 1e-12 || math.Abs(gotEQ-pmf(y)) > 1e-12 {
			t.Errorf("y %d: tails %v %v %v, want %v %v %v", y, gotLE, gotGE, gotEQ, le, ge, pmf(y))
		}
	}
	// Far in a tail the small tail is summed, never 1 minus a sum that rounds
	// to 1: 2,000 successes in one half of 10,000 when there are 5,000 in both
	// is 16 standard deviations (30.6) below 2,500, and the upper tail is all
	// the rest.
	le, ge, _ := hyperTails(2000, 5000, 10000, 10000)
	if !(le > 0 && le < 1e-40) || ge != 1 {
		t.Errorf("far tail: %v %v", le, ge)
	}
	if le, ge, _ := hyperTails(3000, 5000, 10000, 10000); !(ge > 0 && ge < 1e-40) || le != 1 {
		t.Errorf("far upper tail: %v %v", le, ge)
	}
}

// A published fraction is judged as one more run of as many trials as ours:
// the exact test's interval is about p ± z·√(2p(1 − p)/n), √2 wider than a
// confidence interval for our p alone.
func TestJudgeProportion(t *testing.T) {
	// p = 0.5 over 10,000 trials: ± 2.5758·√(0.5/10000) = ± 0.01821.
	v := JudgeProportion("correct", "2 type", 0.5, 10000, PointFigure(0.51), 0.99)
	if v.Outcome != Consistent || v.Method != MethodBinomial || v.Coverage != 0.99 ||
		math.Abs(v.OursLow-0.4818) > 0.0002 || math.Abs(v.OursHigh-0.5182) > 0.0002 {
		t.Fatalf("0.51 against 0.5: %+v", v)
	}
	if math.Abs(v.Percentile-92.1) > 0.3 { // Φ(0.01/0.00707) = Φ(1.414)
		t.Errorf("percentile %v, want about 92.1", v.Percentile)
	}
	if v := JudgeProportion("correct", "2 type", 0.5, 10000, PointFigure(0.52), 0.99); v.Outcome != Differs {
		t.Errorf("0.52 against 0.5: %+v", v)
	}
	// A certain outcome (id references are always right): the same value fits.
	if v := JudgeProportion("correct", "2 id", 1, 10000, PointFigure(1), 0.99); v.Outcome != Consistent || v.Percentile != 50 || v.OursHigh != 1 {
		t.Errorf("1 against 1: %+v", v)
	}
	if v := JudgeProportion("correct", "2 id", 1, 10000, PointFigure(0.9), 0.99); v.Outcome != Differs || v.Percentile > 1e-9 {
		t.Errorf("0.9 against 1: %+v", v)
	}
	// None in 10,000 of ours admits a few in the published 10,000: given 7 in
	// both, all 7 fall in the published half with probability about 2⁻⁷, and
	// twice that is above 1 %; 8 are too many.
	v = JudgeProportion("not_found", "2 id", 0, 10000, PointFigure(0), 0.99)
	if v.Outcome != Consistent || v.OursLow != 0 || v.OursHigh != 0.0007 {
		t.Errorf("0 against 0: %+v", v)
	}
	if v := JudgeProportion("not_found", "2 id", 0, 10000, PointFigure(0.0008), 0.99); v.Outcome != Differs {
		t.Errorf("0.0008 against 0: %+v", v)
	}
	for name, v := range map[string]Verdict{
		"no trials":         JudgeProportion("correct", "x", 0.5, 0, PointFigure(0.5), 0.99),
		"published above 1": JudgeProportion("correct", "x", 0.5, 100, PointFigure(1.5), 0.99),
		"a range":           JudgeProportion("correct", "x", 0.5, 100, RangeFigure(0.4, 0.6), 0.99),
	} {
		if v.Outcome != NoData {
			t.Errorf("%s: %+v", name, v)
		}
	}
}
