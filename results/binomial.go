package results

import "math"

// hyperTest returns the two-sided p-value of the exact conditional test that
// a count y of successes in m trials has the same chance of success as a
// count x in n trials: given the sum t = x + y, y is hypergeometric (m draws
// from n + m holding t successes), and the p-value is twice its smaller tail
// at y, at most 1.
func hyperTest(x, y, n, m int) float64 {
	le, ge, _ := hyperTails(y, x+y, n, m)
	return min(1, 2*min(le, ge))
}

// hyperSplit returns, for y as in hyperTest, the probability of a count below
// y and of y itself.
func hyperSplit(x, y, n, m int) (below, equal float64) {
	le, _, eq := hyperTails(y, x+y, n, m)
	return max(0, le-eq), eq
}

// hyperTails returns P(Y ≤ y), P(Y ≥ y) and P(Y = y) for Y hypergeometric: the
// successes among m draws from a population of n + m that holds t successes.
//
// The tail away from the mode is summed from y outwards, each term from the
// one before (P(k+1)/P(k) = (m − k)(t − k)/((k + 1)(n − t + k + 1))), until
// the terms no longer count; the other tail is its complement. So the small
// tail of a count far from the mode is its own sum, never 1 minus a sum that
// rounds to 1.
func hyperTails(y, t, n, m int) (le, ge, eq float64) {
	kmin, kmax := max(0, t-n), min(m, t)
	switch {
	case y < kmin:
		return 0, 1, 0
	case y > kmax:
		return 1, 0, 0
	}
	eq = math.Exp(lchoose(m, y) + lchoose(n, t-y) - lchoose(n+m, t))
	mode := int(float64(m+1) * float64(t+1) / float64(n+m+2))
	tail, p := eq, eq
	if y >= mode {
		for k := y; k < kmax && p > tail*1e-17; k++ {
			p *= float64(m-k) * float64(t-k) / (float64(k+1) * float64(n-t+k+1))
			tail += p
		}
		ge = min(1, tail)
		return max(0, 1-ge+eq), ge, eq
	}
	for k := y; k > kmin && p > tail*1e-17; k-- {
		p *= float64(k) * float64(n-t+k) / (float64(m-k+1) * float64(t-k+1))
		tail += p
	}
	le = min(1, tail)
	return le, max(0, 1-le+eq), eq
}

// lchoose returns ln C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
