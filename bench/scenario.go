package bench

import (
	"github.com/nordisk/katbench/internal/results"
)

// Kind says how a scenario measures; it goes on every line (results.Record.Kind).
type Kind string

// The kinds of the catalog runner (package scenarios), which S3
// operations share; a mix and a capacity search have their own.
const (
	// KindLatency: one goroutine, closed loop, a fixed number of recorded
	// operations; the headline is p50 (lower is better).
	KindLatency Kind = "latency"
	// KindThroughput: Threads goroutines, closed loop, for a fixed time; the
	// headline is ops/s (higher is better).
	KindThroughput Kind = "throughput"
	// KindDurability: a latency (Metric p50) or throughput (Metric ops/s)
	// scenario run on a fresh competitor opened in one durability mode.
	KindDurability Kind = "durability"
	// KindOpen: operations issued at Options.Rate from a fixed schedule
	// (open loop), each timed from its intended start; the headline is p50
	// latency under that load. Runs only when a rate is given.
	KindOpen Kind = "open"
)

// Scenario describes a scenario of any bench: what `katbench list` shows,
// what [Stamp] writes on its lines, what its runner checks before it runs.
// How it measures lives with its bench (a catalog scenario's Run in
// package scenarios, a storage bench's [Cell]). A Scenario value is
// immutable once registered and safe for concurrent use.
type Scenario struct {
	// Name is the line's scenario, stable across releases so history lines
	// stay comparable. For a scenario with Levels it is the stem: each
	// level's name is Name + ".t<N>".
	Name string
	// Kind says how it measures.
	Kind Kind
	// Metric is the headline value compared between targets (p50 or ops/s)
	// and so decides which side is better; it travels on every line.
	Metric results.Metric
	// Threads is the worker count of a single-level scenario (1 for
	// latencies). Ignored when Levels is set.
	Threads int
	// Levels expands a catalog scenario once per thread level of the
	// run; Threads and Name are set per level by the catalog's plan.
	Levels bool
	// Bench is the command whose loop measures it: "" for a catalog
	// scenario (Register), a storage bench's otherwise (RegisterBench).
	Bench Bench
	// Dims are the dimensions its levels vary along, in the order its
	// name carries them, each on its lines' dims. Every catalog scenario
	// has DimThreads (Register sets it): its worker count, 1 for a
	// latency.
	Dims []Dimension
	// Sweep marks a scenario of the full sweeps (the durability modes at
	// several worker counts): a quick run leaves it out unless
	// Options.Full is set or Options.Select was given.
	Sweep bool
	// Writes marks a scenario that creates or commits tables: the
	// file-system floor joins a run whose selection is only these.
	Writes bool
	// ReadsOnly marks a scenario that only reads the dataset's tables
	// (Dataset.Tables): the scenarios a read-only run (Options.ReadOnly)
	// runs on tables the user names; every other one is skipped there.
	ReadsOnly bool
	// Order places the scenario in the run: lower runs first. Ties run in
	// name order. The built-ins use multiples of 10.
	Order int
	// Needs say what the scenario depends on. The catalog runner checks
	// them before the scenario runs on a competitor (the first one not
	// met makes a skipped line carrying its reason); a storage bench
	// builds its lanes from them.
	Needs []Requirement
	// Doc is one line for `katbench list`.
	Doc string
	// Control marks a scenario that measures a floor (the competitor's
	// path with nothing of the catalog in it): its lines say so
	// (results.Record.Control) and a test delay never slows it.
	Control bool
	// Params are fixed params of the scenario, on each of its lines,
	// skipped ones included (a history level's snapshots). May be nil.
	Params map[string]any
}

// Requirement is one thing a scenario needs: of a catalog scenario, from
// a competitor and its dataset; of a storage bench's, from a lane.
type Requirement struct {
	// Why names the requirement in `katbench list`, and is the skip
	// reason when it is not met.
	Why string
	// Met, when set, reports whether env satisfies it. env is what the
	// runner that checks requirements passes: the catalog runner's
	// *scenarios.Env. A storage bench's requirements have none.
	Met func(env any) bool
	// Explain, when set, gives a more precise skip reason than Why.
	Explain func(env any) string
}
