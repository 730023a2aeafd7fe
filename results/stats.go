package results

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MannWhitneyExactLimit is the largest sample size, on both sides, for which
// MannWhitney uses the exact distribution of U when there are no ties. It is
// benchstat's limit; above it the normal approximation is within a rounding of
// the exact p-value.
const MannWhitneyExactLimit = 50

// meanOf returns the arithmetic mean of samples, or NaN when there are none.
func meanOf(samples []float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	return stat.Mean(samples, nil)
}

// Quantile returns the p-quantile of samples, 0 ≤ p ≤ 1, by linear
// interpolation between order statistics: with the n samples sorted as
// x[0] ≤ … ≤ x[n-1] and h = (n−1)·p,
//
//	Quantile = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])
//
// This is Hyndman and Fan's type 7, the default of R and NumPy: Quantile(x, 0)
// is the minimum, Quantile(x, 1) the maximum, and the two tails are treated
// alike. (gonum's stat.LinInterp is type 4, which returns the minimum for every
// p below 1/n but interpolates at the top, so a central range from it is
// lopsided for the few dozen runs a verdict rests on.)
//
// Quantile sorts a copy and leaves samples as they are. It returns NaN when
// samples is empty or holds a NaN, or p is outside [0, 1].
func Quantile(samples []float64, p float64) float64 {
	if len(samples) == 0 || !(p >= 0 && p <= 1) || slices.ContainsFunc(samples, math.IsNaN) {
		return math.NaN()
	}
	x := slices.Clone(samples)
	slices.Sort(x)
	h := float64(len(x)-1) * p
	i := int(math.Floor(h))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// percentileRank returns where v falls among samples, from 0 to 100, by mid-rank:
// the fraction of samples below v plus half the fraction equal to v, times 100.
// A value below every sample is at 0, above every sample at 100, and a value
// equal to every sample at 50. It returns NaN when samples is empty.
func percentileRank(samples []float64, v float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	var below, equal int
	for _, s := range samples {
		switch {
		case s < v:
			below++
		case s == v:
			equal++
		}
	}
	return 100 * (float64(below) + float64(equal)/2) / float64(len(samples))
}

// MannWhitney performs a two-sided Mann–Whitney U test of the hypothesis that a
// and b come from the same distribution. u is the U statistic of a: the number
// of pairs (a[i], b[j]) with a[i] > b[j], plus half the number of ties, so it
// lies in [0, len(a)·len(b)]; the U of b is len(a)·len(b) − u.
//
// As in benchstat, p comes from the exact distribution of U when there are no
// ties and neither sample is larger than MannWhitneyExactLimit: twice the lower
// tail at min(u, u_b), or 1 when u = u_b. Otherwise it comes from the normal
// approximation with the tie correction, σ² = n₁n₂/12·((N+1) − Σ(t³−t)/(N(N−1)))
// over tie groups of size t, and the continuity correction (|U − n₁n₂/2| is
// reduced by 0.5). Unlike benchstat, samples with ties always take the normal
// approximation.
//
// When every value in a and b is the same, nothing can be told apart: p is 1.
// When a or b is empty or holds a NaN, u and p are NaN.
func MannWhitney(a, b []float64) (u, p float64) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 || slices.ContainsFunc(a, math.IsNaN) || slices.ContainsFunc(b, math.IsNaN) {
		return math.NaN(), math.NaN()
	}
	u, ties := uStatistic(a, b)
	prod := float64(n1 * n2)
	if u == prod/2 {
		return u, 1
	}
	if ties == 0 && n1 <= MannWhitneyExactLimit && n2 <= MannWhitneyExactLimit {
		small := int(math.Min(u, prod-u)) // an integer: without ties U is a count
		counts := uCounts(n1, n2)
		var tail, total float64
		for k, c := range counts {
			if k <= small {
				tail += c
			}
			total += c
		}
		return u, math.Min(1, 2*tail/total)
	}
	nn := float64(n1 + n2)
	// variance > 0: with every value tied u would be prod/2, handled above.
	variance := prod / 12 * ((nn + 1) - ties/(nn*(nn-1)))
	d := math.Abs(u-prod/2) - 0.5
	if d < 0 {
		d = 0
	}
	z := d / math.Sqrt(variance)
	return u, math.Min(1, 2*distuv.UnitNormal.CDF(-z)) // CDF(−z), not Survival(z): precise far in the tail
}

// uStatistic returns the U of a against b (ties counted as one half) and the
// tie term Σ(t³−t) over the groups of equal values in a and b together.
func uStatistic(a, b []float64) (u, ties float64) {
	type labelled struct {
		v     float64
		fromA bool
	}
	all := make([]labelled, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, labelled{v, true})
	}
	for _, v := range b {
		all = append(all, labelled{v, false})
	}
	slices.SortFunc(all, func(x, y labelled) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	var rankSumA float64
	for i := 0; i < len(all); {
		j, inA := i, 0
		for ; j < len(all) && all[j].v == all[i].v; j++ {
			if all[j].fromA {
				inA++
			}
		}
		// Positions i..j-1 share the mean rank of ranks i+1..j.
		rankSumA += float64(inA) * float64(i+1+j) / 2
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	n1 := float64(len(a))
	return rankSumA - n1*(n1+1)/2, ties
}

// uCounts returns, for k = 0 … n1·n2, how many of the C(n1+n2, n1) orderings of
// two untied samples give U = k. These are the coefficients of the Gaussian
// binomial [n1+n2 choose n1] in q, built as ∏_{i=1..n1} (1 − q^(n2+i)) / (1 − q^i);
// after each i the polynomial is [n2+i choose i], so its coefficients stay
// non-negative counts.
func uCounts(n1, n2 int) []float64 {
	c := make([]float64, n1*n2+1)
	c[0] = 1
	for i := 1; i <= n1; i++ {
		step := n2 + i
		for k := len(c) - 1; k >= step; k-- { // multiply by 1 − q^step
			c[k] -= c[k-step]
		}
		for k := i; k < len(c); k++ { // divide by 1 − q^i
			c[k] += c[k-i]
		}
	}
	return c
}
