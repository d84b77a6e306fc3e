package analysis

import (
	"math"
	"sort"
)

// shiftRatio estimates how much new is above old as a ratio: the
// Hodges–Lehmann estimate (the median of new_j/old_i over all pairs) with
// its distribution-free interval at level 1−alpha, the pairwise ratios
// ranked c-th from each end, where c is the largest count with
// P(U < c) ≤ alpha/2 under the null of the Mann–Whitney statistic U. The
// interval excludes 1 exactly when all of its pairs lie on one side, so it
// agrees with the U test of the same runs (ties aside). ok is false when
// the runs are too few for a finite interval. Values that are not all
// positive are compared as differences relative to old's median.
func shiftRatio(old, new []float64, alpha float64) (est, lo, hi float64, ok bool) {
	positive := true
	for _, v := range append(append([]float64(nil), old...), new...) {
		if !(v > 0) {
			positive = false
		}
	}
	d := make([]float64, 0, len(old)*len(new))
	for _, a := range old {
		for _, b := range new {
			if positive {
				d = append(d, math.Log(b)-math.Log(a))
			} else {
				d = append(d, b-a)
			}
		}
	}
	sort.Float64s(d)
	back := func(x float64) float64 {
		if positive {
			return math.Exp(x)
		}
		if x == 0 {
			return 1
		}
		m := median(old)
		if m == 0 {
			return math.Inf(int(math.Copysign(1, x)))
		}
		return 1 + x/math.Abs(m)
	}
	est = back(median(d))
	c := uCritical(len(old), len(new), alpha/2)
	if c < 1 {
		return est, 0, 0, false
	}
	lo, hi = back(d[c-1]), back(d[len(d)-c])
	return est, lo, hi, finite(est, lo, hi)
}

// uCritical returns the largest c with P(U ≤ c−1) ≤ tail for the
// Mann–Whitney U of n1 vs n2 values without ties; 0 when even U = 0 is
// more likely than tail. Exact up to 2,500 pairs, a normal approximation
// beyond.
func uCritical(n1, n2 int, tail float64) int {
	if n1 < 1 || n2 < 1 {
		return 0
	}
	if n1*n2 > 2500 {
		mu := float64(n1*n2) / 2
		sd := math.Sqrt(float64(n1*n2*(n1+n2+1)) / 12)
		z := math.Sqrt2 * math.Erfinv(2*tail-1) // the tail quantile, < 0
		return max(0, int(math.Floor(mu+z*sd+0.5)))
	}
	f := uDistribution(n1, n2)
	var total float64
	for _, x := range f {
		total += x
	}
	cum := 0.0
	c := 0
	for u, x := range f {
		cum += x
		if cum/total > tail {
			break
		}
		c = u + 1
	}
	return c
}

// uDistribution returns the number of arrangements of n1 and n2 values
// giving each U = 0 … n1·n2 (f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u)).
func uDistribution(n1, n2 int) []float64 {
	// prev[n][u] holds f(m−1, n, u); row by row over m.
	size := n1*n2 + 1
	prev := make([][]float64, n2+1)
	for n := range prev {
		prev[n] = make([]float64, size)
		prev[n][0] = 1 // m = 0: one arrangement, U = 0
	}
	for m := 1; m <= n1; m++ {
		cur := make([][]float64, n2+1)
		cur[0] = make([]float64, size)
		cur[0][0] = 1
		for n := 1; n <= n2; n++ {
			cur[n] = make([]float64, size)
			for u := range size {
				v := cur[n-1][u]
				if u >= n {
					v += prev[n][u-n]
				}
				cur[n][u] = v
			}
		}
		prev = cur
	}
	return prev[n2]
}
