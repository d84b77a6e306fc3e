package analysis

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// SpectrumPoint is one point of an HDR percentile spectrum: the latency at
// percentile 100·(1−10^−Nines). Nines 1 is p90, 2 is p99, 3 is p99.9.
type SpectrumPoint struct {
	Nines float64
	US    float64
}

// spectrumStep is the spacing of the spectrum's points on the nines axis.
const spectrumStep = 0.05

// Spectrum returns the percentile spectrum of h from p0 out to the last
// percentile its count resolves (about 1 − 1/count), ending at the maximum.
// It walks the histogram once, so it costs one pass over its buckets.
func Spectrum(h *hdrhistogram.Histogram) []SpectrumPoint {
	total := h.TotalCount()
	if total == 0 {
		return nil
	}
	maxNines := math.Min(math.Log10(float64(total)), 6)
	var targets []float64
	for x := 0.0; x < maxNines; x += spectrumStep {
		targets = append(targets, x)
	}
	out := make([]SpectrumPoint, 0, len(targets)+1)
	snap := h.Export()
	g := newGeometry(snap)
	var cum int64
	ti := 0
	for i, c := range snap.Counts {
		if c == 0 {
			continue
		}
		cum += c
		for ti < len(targets) {
			q := 1 - math.Pow(10, -targets[ti])
			// The rank hdrhistogram-go's ValueAtQuantile uses: rounded, 1…total.
			rank := min(max(int64(q*float64(total)+0.5), 1), total)
			if rank > cum {
				break
			}
			v := g.highestAt(i)
			if targets[ti] == 0 {
				v = g.lowestAt(i) // p0 is the minimum, as ValueAtQuantile(0) says
			}
			out = append(out, SpectrumPoint{Nines: targets[ti], US: float64(v) / 1e3})
			ti++
		}
	}
	out = append(out, SpectrumPoint{Nines: maxNines, US: float64(h.Max()) / 1e3})
	return out
}

// geometry maps a counts index of an exported histogram back to the values
// it stands for, as hdrhistogram-go lays them out (sub-buckets of 2^m
// values, each bucket twice as wide as the one before). It saves Spectrum
// from allocating one Bar per bucket for every line of a history.
type geometry struct {
	unitMag, halfMag int64
}

func newGeometry(s *hdrhistogram.Snapshot) geometry {
	unit := int64(math.Floor(math.Log2(float64(max(s.LowestTrackableValue, 1)))))
	countMag := int64(math.Ceil(math.Log2(2 * math.Pow10(int(s.SignificantFigures)))))
	return geometry{unitMag: max(unit, 0), halfMag: max(countMag, 1) - 1}
}

// lowestAt is the lowest value equivalent to counts index i.
func (g geometry) lowestAt(i int) int64 {
	lo, _ := g.rangeAt(i)
	return lo
}

// highestAt is the highest value equivalent to counts index i.
func (g geometry) highestAt(i int) int64 {
	lo, size := g.rangeAt(i)
	return lo + size - 1
}

func (g geometry) rangeAt(i int) (lo, size int64) {
	half := int64(1) << g.halfMag
	bucket := (int64(i) >> g.halfMag) - 1
	sub := (int64(i) & (half - 1)) + half
	if bucket < 0 {
		sub -= half
		bucket = 0
	}
	return sub << (bucket + g.unitMag), int64(1) << (bucket + g.unitMag)
}
