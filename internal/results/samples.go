package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Samples are per-round values of one line (round_p50_us, round_ops_sec),
// in round order. A round that measured nothing (every operation failed) is
// NaN in Go and null in JSON — never 0.
type Samples []float64

// MarshalJSON writes NaN as null.
func (s Samples) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
			continue
		}
		b.Write(strconv.AppendFloat(nil, v, 'g', -1, 64))
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// UnmarshalJSON reads null as NaN.
func (s *Samples) UnmarshalJSON(data []byte) error {
	var raw []*float64
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	out := make(Samples, len(raw))
	for i, p := range raw {
		out[i] = math.NaN()
		if p != nil {
			out[i] = *p
		}
	}
	*s = out
	return nil
}

// Measured returns the values that are not NaN.
func (s Samples) Measured() []float64 {
	out := make([]float64, 0, len(s))
	for _, v := range s {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}
