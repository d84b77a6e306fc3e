package analysis

import (
	"math"
)

// Growth is a fitted power law y = c·xᵏ over a growth sweep: Exponent k
// is 0 for a cost that stays flat as the catalog grows and 1 for one that
// grows linearly; Lo and Hi bound it (95 % confidence, Student's t on the
// least-squares slope of log y on log x). With points at two sizes only,
// or no spread, the interval is not known and Lo, Hi are NaN.
type Growth struct {
	Exponent, Lo, Hi float64
	// N is the points fitted (a size's rounds are separate points).
	N int
}

// FitGrowth fits y = c·xᵏ to the points (x[i], y[i]), all > 0. ok is
// false when fewer than two distinct sizes carry a point.
func FitGrowth(x, y []float64) (g Growth, ok bool) {
	var lx, ly []float64
	for i := range x {
		if x[i] > 0 && y[i] > 0 && !math.IsNaN(y[i]) && !math.IsInf(y[i], 0) {
			lx, ly = append(lx, math.Log(x[i])), append(ly, math.Log(y[i]))
		}
	}
	n := len(lx)
	k, mx, my, sxx, ok := leastSquares(lx, ly)
	if !ok {
		return Growth{}, false // one size only
	}
	g = Growth{Exponent: k, Lo: math.NaN(), Hi: math.NaN(), N: n}
	if n > 2 {
		var sse float64
		for i := range lx {
			r := ly[i] - (my + k*(lx[i]-mx))
			sse += r * r
		}
		se := math.Sqrt(sse / float64(n-2) / sxx)
		if se > 0 {
			h := tQuantile975(n-2) * se
			g.Lo, g.Hi = k-h, k+h
		}
	}
	return g, true
}

// tQuantile975 is the 97.5 % quantile of Student's t with df degrees of
// freedom (two-sided 95 %).
func tQuantile975(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < 1:
		return math.NaN()
	case df < len(table):
		return table[df]
	case df < 60:
		return 2.021
	case df < 120:
		return 2.000
	}
	return 1.960
}

// Slope fits y = a + b·x by least squares and returns b, the cost of one
// more unit of x (bytes per table, say); ok is false with fewer than two
// distinct x.
func Slope(x, y []float64) (b float64, ok bool) {
	b, _, _, _, ok = leastSquares(x, y)
	return b, ok
}

// leastSquares fits y = a + b·x and returns b with the means and the
// spread of x it used; ok is false with fewer than two distinct x.
func leastSquares(x, y []float64) (b, mx, my, sxx float64, ok bool) {
	n := float64(len(x))
	if len(x) < 2 {
		return 0, 0, 0, 0, false
	}
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0, 0, 0, 0, false
	}
	return sxy / sxx, mx, my, sxx, true
}
