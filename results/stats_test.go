package results

import (
	"math"
	"slices"
	"testing"
	"time"
)

// near reports whether got is within a relative 1e-9 of want.
func approxEqual(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-9*math.Abs(want)
}

func TestQuantile(t *testing.T) {
	// Sorted: 1 2 3 4 5, so n−1 = 4 and h = 4p.
	samples := []float64{5, 1, 4, 2, 3}
	for _, tc := range []struct{ p, want float64 }{
		{0, 1},        // h = 0: the minimum
		{1, 5},        // h = 4: the maximum
		{0.5, 3},      // h = 2: x[2]
		{0.25, 2},     // h = 1: x[1]
		{0.1, 1.4},    // h = 0.4: 1 + 0.4·(2−1)
		{0.005, 1.02}, // h = 0.02: 1 + 0.02·(2−1)
		{0.995, 4.98}, // h = 3.98: 4 + 0.98·(5−4)
	} {
		if got := Quantile(samples, tc.p); !approxEqual(got, tc.want) {
			t.Errorf("Quantile(1..5, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if !slices.Equal(samples, []float64{5, 1, 4, 2, 3}) {
		t.Errorf("Quantile reordered its input: %v", samples)
	}
	if got := Quantile([]float64{7}, 0.3); got != 7 {
		t.Errorf("Quantile of one sample = %v, want 7", got)
	}
	for _, tc := range []struct {
		xs []float64
		p  float64
	}{{nil, 0.5}, {samples, -0.1}, {samples, 1.1}, {samples, math.NaN()}, {[]float64{1, math.NaN()}, 0.5}} {
		if got := Quantile(tc.xs, tc.p); !math.IsNaN(got) {
			t.Errorf("Quantile(%v, %v) = %v, want NaN", tc.xs, tc.p, got)
		}
	}
}

func TestMeanOf(t *testing.T) {
	if got := meanOf([]float64{1, 2, 3, 4}); got != 2.5 {
		t.Errorf("meanOf(1..4) = %v, want 2.5", got)
	}
	if got := meanOf(nil); !math.IsNaN(got) {
		t.Errorf("meanOf(nil) = %v, want NaN", got)
	}
}

func TestPercentileRank(t *testing.T) {
	samples := []float64{1, 2, 2, 3}
	for _, tc := range []struct{ v, want float64 }{
		{0.5, 0},  // none below
		{1, 12.5}, // 0 below, 1 equal: (0 + 0.5)/4
		{2, 50},   // 1 below, 2 equal: (1 + 1)/4
		{2.5, 75}, // 3 below
		{3, 87.5}, // 3 below, 1 equal: (3 + 0.5)/4
		{10, 100}, // all below
	} {
		if got := percentileRank(samples, tc.v); got != tc.want {
			t.Errorf("percentileRank(1 2 2 3, %v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := percentileRank([]float64{4, 4, 4}, 4); got != 50 {
		t.Errorf("percentileRank of a value equal to all = %v, want 50", got)
	}
	if got := percentileRank(nil, 1); !math.IsNaN(got) {
		t.Errorf("percentileRank(nil) = %v, want NaN", got)
	}
}

func TestUCounts(t *testing.T) {
	// The 20 orderings of three a's and three b's by U, counted by hand: U is the
	// number of (a, b) pairs with the a after the b. U = 0 only for aaabbb, U = 1
	// only for aababb, U = 2 for abaabb and aabbab, and so on, symmetric about 4.5.
	want := []float64{1, 1, 2, 3, 3, 3, 3, 2, 1, 1}
	if got := uCounts(3, 3); !slices.Equal(got, want) {
		t.Errorf("uCounts(3, 3) = %v, want %v", got, want)
	}
	// n1 = 1: the single a can be after 0..n2 of the b's, one ordering each.
	if got := uCounts(1, 4); !slices.Equal(got, []float64{1, 1, 1, 1, 1}) {
		t.Errorf("uCounts(1, 4) = %v", got)
	}
}

func TestMannWhitneyExact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		a, b  []float64
		u, p  float64
		about string
	}{
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1,
			"no a exceeds a b: U = 0; one ordering of C(6,3) = 20 has U ≤ 0, so p = 2·1/20"},
		{"separated, mirrored", []float64{6, 4, 5}, []float64{3, 1, 2}, 9, 0.1,
			"every a exceeds every b: U = 9 = 3·3, the same tail from the other side"},
		{"interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 0.7,
			"3>2, 5>2, 5>4: U = 3, U_b = 6; P(U ≤ 3) = (1+1+2+3)/20, so p = 2·7/20"},
		{"four each", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0, 2.0 / 70,
			"U = 0 is one ordering of C(8,4) = 70: the textbook smallest p for 4 and 4"},
		{"centre", []float64{1, 4}, []float64{2, 3}, 2, 1,
			"U = 2 = U_b: the middle of the distribution, p = 1"},
		{"at the exact limit", span(1, 50), span(51, 100), 0, 2 / 1.0089134454556419e29,
			"50 and 50 without ties is still exact: p = 2/C(100,50)"},
	} {
		u, p := MannWhitney(tc.a, tc.b)
		if u != tc.u || !approxEqual(p, tc.p) {
			t.Errorf("%s: MannWhitney = %v, %v, want %v, %v (%s)", tc.name, u, p, tc.u, tc.p, tc.about)
		}
	}
}

func TestMannWhitneyNormal(t *testing.T) {
	// With ties: a = 1 2 2, b = 2 3 3. Ranks of the merged 1 2 2 2 3 3 are 1, 3, 3,
	// 3, 5.5, 5.5, so R_a = 1+3+3 = 7 and U = 7 − 3·4/2 = 1 (by pairs: the two
	// a = 2 tie with b = 2, half each). Tie groups 1, 3, 2 give Σ(t³−t) = 0+24+6 =
	// 30, so σ² = 9/12·(7 − 30/(6·5)) = 4.5. With μ = 4.5 and the continuity
	// correction, z = (|1 − 4.5| − 0.5)/√4.5 = √2, and p = 2·Φ(−√2) = erfc(1).
	u, p := MannWhitney([]float64{1, 2, 2}, []float64{2, 3, 3})
	if u != 1 || !approxEqual(p, math.Erfc(1)) {
		t.Errorf("MannWhitney(1 2 2, 2 3 3) = %v, %v, want 1, %v", u, p, math.Erfc(1))
	}
	// Above the exact limit without ties: a = 1..51 below b = 52..102, U = 0.
	// μ = 51·51/2 = 1300.5 and σ² = 51·51·103/12 = 22325.25; with the continuity
	// correction z = 1300/√22325.25 and p = erfc(z/√2). (The exact p would be
	// 2/C(102,51), about 2e-30.)
	u, p = MannWhitney(span(1, 51), span(52, 102))
	want := math.Erfc(1300 / math.Sqrt(22325.25) / math.Sqrt2)
	if u != 0 || !approxEqual(p, want) {
		t.Errorf("MannWhitney(1..51, 52..102) = %v, %v, want 0, %v", u, p, want)
	}
}

func TestMannWhitneyEdges(t *testing.T) {
	// All ties: every pair counts one half, U = 2·3/2 = 3, and nothing differs.
	if u, p := MannWhitney([]float64{5, 5}, []float64{5, 5, 5}); u != 3 || p != 1 {
		t.Errorf("MannWhitney(all 5) = %v, %v, want 3, 1", u, p)
	}
	if u, p := MannWhitney(nil, []float64{1}); !math.IsNaN(u) || !math.IsNaN(p) {
		t.Errorf("MannWhitney(empty, 1) = %v, %v, want NaN, NaN", u, p)
	}
	// Swapping the samples mirrors U and keeps p.
	a, b := []float64{1.5, 3, 7, 9}, []float64{2, 4, 4.5, 8, 10}
	ua, pa := MannWhitney(a, b)
	ub, pb := MannWhitney(b, a)
	if ua+ub != 20 || pa != pb {
		t.Errorf("swap: U %v + %v != 20 or p %v != %v", ua, ub, pa, pb)
	}
}

// seq returns lo, lo+1, …, hi.
func span(lo, hi int) []float64 {
	var xs []float64
	for v := lo; v <= hi; v++ {
		xs = append(xs, float64(v))
	}
	return xs
}

// A NaN among the samples gives a NaN test, at once: it used to stop the
// ranking loop from advancing, for ever.
func TestMannWhitneyNaN(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if u, p := MannWhitney([]float64{1, math.NaN(), 3}, []float64{2, 4}); !math.IsNaN(u) || !math.IsNaN(p) {
			t.Errorf("U, p = %v, %v, want NaN", u, p)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("MannWhitney with a NaN did not return")
	}
}
