package bench

import (
	"sort"
	"strings"

	"github.com/nordisk/katbench/internal/registry"
)

// Bench names the command whose loop measures a scenario. Catalog
// scenarios ("") run on competitors through package scenarios' Runner;
// the storage benches' scenarios run on their own lanes through
// [RunCells]: "data" (competitor × transport × storage) and "transport"
// (transport × store).
type Bench string

// The benches.
const (
	BenchRun       Bench = ""
	BenchData      Bench = "data"
	BenchTransport Bench = "transport"
)

// Requirements of the storage benches' scenarios: what a lane must bring.
// They say in `katbench list` what a scenario depends on; the benches
// build their lanes from them (a data lane is a competitor on one
// transport over one store). Met is nil: no runner checks them.
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
// package (a [Cell]). It panics on a duplicate or incomplete entry: that
// is a programming error found at init, never a user input.
func RegisterBench(s Scenario) {
	switch {
	case s.Name == "" || s.Bench == BenchRun:
		panic("bench: RegisterBench needs a Name and a Bench")
	case s.Doc == "":
		panic("bench: " + s.Name + ": RegisterBench needs a Doc")
	case s.Metric != "" && s.Metric.Better() == "":
		panic("bench: " + s.Name + ": unknown metric " + string(s.Metric))
	}
	if err := benches.Register(s.Name, s); err != nil {
		panic("bench: " + err.Error())
	}
}

var benches registry.Registry[Scenario]

// BenchScenarios returns the registered scenarios of bench b (every
// storage bench's for BenchRun), in run order.
func BenchScenarios(b Bench) []Scenario {
	var out []Scenario
	for _, s := range benches.Values() {
		if b == BenchRun || s.Bench == b {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Bench != out[j].Bench {
			return out[i].Bench < out[j].Bench
		}
		return out[i].Order < out[j].Order
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
