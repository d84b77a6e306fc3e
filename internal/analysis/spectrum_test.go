package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The spectrum's points must be exactly what the histogram itself says at
// those percentiles.
func TestSpectrumMatchesValueAtQuantile(t *testing.T) {
	cases := []struct {
		name    string
		lo, hi  int64
		sig     int
		n       int
		scaleNS float64
	}{
		{"katbench layout, µs", 1, int64(100 * time.Second), 3, 20000, 50e3},
		{"katbench layout, sub-µs", 1, int64(100 * time.Second), 3, 5000, 300},
		{"katbench layout, ms", 1, int64(100 * time.Second), 3, 3000, 5e6},
		{"coarse layout", 1000, 1e9, 2, 10000, 1e5},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			h := hdrhistogram.New(tc.lo, tc.hi, tc.sig)
			for range tc.n {
				_ = h.RecordValue(int64(tc.scaleNS*(1+rng.ExpFloat64())) + tc.lo)
			}
			pts := Spectrum(h)
			if len(pts) < 20 {
				t.Fatalf("%d points", len(pts))
			}
			for _, p := range pts[:len(pts)-1] {
				q := 100 * (1 - math.Pow(10, -p.Nines))
				want := float64(h.ValueAtQuantile(q)) / 1e3
				if p.US != want {
					t.Fatalf("at %.2f nines (p%.4f): %v, want %v", p.Nines, q, p.US, want)
				}
			}
			if last := pts[len(pts)-1]; last.US != float64(h.Max())/1e3 {
				t.Fatalf("last point %v, want max %v", last.US, float64(h.Max())/1e3)
			}
		})
	}
}
