package scenarios

import (
	"sort"
	"strings"

	"github.com/nordisk/katbench/internal/results"
)

// Bench names the command whose loop measures a scenario. Catalog
// scenarios ("") run on competitors through [Runner]; the storage
// benches' scenarios run on their own lanes through [RunCells]: "data"
// (competitor × transport × storage) and "transport" (transport × store).
type Bench string

// The benches.
const (
	BenchRun       Bench = ""
	BenchData      Bench = "data"
	BenchTransport Bench = "transport"
)

// Dimension is a named axis a scenario's levels vary along. A level's
// name is the scenario's stem with each dimension's value appended, so
// the line names it; the value itself is on the line's dims
// (results.Dims), set by [Stamp] from the scenario's Dims and the level.
type Dimension string

// The dimensions; their values are in base units (see results.Dims).
const (
	DimThreads     Dimension = results.DimThreads     // workers of a catalog scenario: .t<N> on a levelled one
	DimSize        Dimension = results.DimSize        // object size of an S3 operation, bytes: .<size>
	DimConcurrency Dimension = results.DimConcurrency // concurrent requests of an S3 operation: .c<N>
	DimRows        Dimension = results.DimRows        // rows per append: .<rows>
	DimRate        Dimension = results.DimRate        // an open loop's offered rate, ops/s: .open.<rate>
	// DimRatePct is no dimension of its own: it stands beside DimRate on
	// a level whose rate was given as a percentage of a maximum measured
	// in the run, with that percentage.
	DimRatePct Dimension = results.DimRatePct
)

// Level is the value of each dimension at one level of a scenario, in
// base units; [Stamp] writes those the scenario declares.
type Level map[Dimension]float64

// Requirements of the storage benches' scenarios: what a lane must bring.
// They say in `katbench list` what a scenario depends on; the benches
// build their lanes from them (a data lane is a competitor on one
// transport over one store). Met is nil: the catalog runner never checks
// them.
var (
	NeedCompetitor = Requirement{Why: "competitor"} // a catalog per lane to create, commit and load tables in
	NeedS3Store    = Requirement{Why: "s3 store"}   // an S3 store: the in-process control store or an endpoint
	NeedTransport  = Requirement{Why: "transport"}  // a byte transport per lane (transport.Register)
)

// NeedScenario is a requirement on another scenario of the same bench,
// whose work this one reads (the scan reads what the appends wrote): it
// runs whenever this one does.
func NeedScenario(name string) Requirement { return Requirement{Why: "scenario " + name} }

// RegisterBench adds a scenario of a storage bench, so `katbench list`
// shows it beside the catalog scenarios with the dimensions its levels
// vary along and what it needs. Its measuring lives in its bench's
// package (a Cell); Run is unused. It panics on a duplicate or incomplete
// entry, like Register.
func RegisterBench(s Scenario) {
	switch {
	case s.Name == "" || s.Bench == BenchRun:
		panic("scenarios: RegisterBench needs a Name and a Bench")
	case s.Doc == "":
		panic("scenarios: " + s.Name + ": RegisterBench needs a Doc")
	case s.Metric != "" && s.Metric.Better() == "":
		panic("scenarios: " + s.Name + ": unknown metric " + string(s.Metric))
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := benches[s.Name]; dup {
		panic("scenarios: duplicate registration of " + s.Name)
	}
	benches[s.Name] = s
}

var benches = map[string]Scenario{} // under regMu

// BenchScenarios returns the registered scenarios of bench b (every
// storage bench's for BenchRun), in run order.
func BenchScenarios(b Bench) []Scenario {
	regMu.RLock()
	var out []Scenario
	for _, s := range benches {
		if b == BenchRun || s.Bench == b {
			out = append(out, s)
		}
	}
	regMu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Bench != out[j].Bench {
			return out[i].Bench < out[j].Bench
		}
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// NeedsText lists a scenario's requirements for `katbench list`.
func NeedsText(s Scenario) string {
	var w []string
	for _, n := range s.Needs {
		w = append(w, n.Why)
	}
	if len(w) == 0 {
		return "-"
	}
	return strings.Join(w, ", ")
}

// DimsText lists a scenario's dimensions for `katbench list`.
func DimsText(s Scenario) string {
	var w []string
	for _, d := range s.Dims {
		w = append(w, string(d))
	}
	if len(w) == 0 {
		return "-"
	}
	return strings.Join(w, ",")
}
