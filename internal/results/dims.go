package results

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Dims is a line's level: the value of each dimension its scenario's
// levels vary along, keyed by the dimension's name, in base units. A line
// carries exactly the dimensions its scenario declares that its level
// has (a closed loop offers no rate); a scenario without dimensions writes
// none.
type Dims map[string]float64

// The dimension names and their units.
const (
	DimThreads     = "threads"     // workers of a catalog line (count); the line's threads field says the same
	DimSize        = "size"        // object size of an S3 operation (bytes)
	DimConcurrency = "concurrency" // concurrent requests of an S3 operation (count)
	DimRows        = "rows"        // rows per append (count)
	DimRate        = "rate"        // an open loop's offered rate (ops/s)
	// DimRatePct stands beside DimRate when the rate was given as a
	// percentage of a maximum measured in the same run (the baseline
	// transport's closed-loop ops/s in the cell): that percentage. The
	// rate itself is then the absolute rate it came to and was offered.
	DimRatePct = "rate_pct"
)

// legacySizedOps are the S3 operations whose object size was a dimension
// on lines before schema 4 (params.size_bytes); a HEAD's or a ranged
// GET's size is fixed, no dimension.
var legacySizedOps = map[string]bool{"get": true, "put": true}

// upgradeDims fills the dims of a line written before schema 4 from the
// fields and params its writer kept the level in: an S3 line's
// concurrency (params.concurrency, else threads), object size
// (params.size_bytes of a GET or PUT) and an open loop's offered rate
// (params.rate, with params.rate_spec's percentage); a data append's
// rows (params.rows); every other line's (a catalog line's) threads.
func upgradeDims(r *Record, params map[string]json.RawMessage) {
	num := func(name string) (float64, bool) {
		raw, ok := params[name]
		if !ok {
			return 0, false
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return 0, false
		}
		return v, true
	}
	d := Dims{}
	switch {
	case strings.HasPrefix(r.Scenario, "s3."):
		if v, ok := num("concurrency"); ok {
			d[DimConcurrency] = v
		} else if r.Threads > 0 {
			d[DimConcurrency] = float64(r.Threads)
		}
		var op string
		if raw, ok := params["op"]; ok && json.Unmarshal(raw, &op) == nil && legacySizedOps[op] {
			if v, ok := num("size_bytes"); ok {
				d[DimSize] = v
			}
		}
		if r.Loop == Open {
			if v, ok := num("rate"); ok {
				d[DimRate] = v
			}
			var spec string
			if raw, ok := params["rate_spec"]; ok && json.Unmarshal(raw, &spec) == nil {
				if pct, ok := strings.CutSuffix(spec, "%"); ok {
					if v, err := strconv.ParseFloat(pct, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
						d[DimRatePct] = v
					}
				}
			}
		}
	case strings.HasPrefix(r.Scenario, "data."):
		if strings.HasPrefix(r.Scenario, "data.append.") {
			if v, ok := num("rows"); ok {
				d[DimRows] = v
			}
		}
	default:
		if r.Threads > 0 {
			d[DimThreads] = float64(r.Threads)
		}
	}
	if len(d) > 0 {
		r.Dims = d
	}
}
