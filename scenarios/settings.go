package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/disturb"
	"github.com/nordisk/katbench/internal/pacer"
	"github.com/nordisk/katbench/internal/usage"
	"github.com/nordisk/katbench/workload"
)

// Settings are a benchmark run's settings as a command line gives them
// (each field is the flag of its name); a zero value means the default.
// Options checks them all and derives the runner's Options. A Settings is
// a value: safe to copy, not to share while being written.
type Settings struct {
	Quick, Full             bool
	Tables                  int
	Sizes                   []int         // --tables with several sizes: a growth sweep
	SetupBudget             time.Duration // --setup-budget
	PerNamespace            int           // --per-namespace
	Duration, Warmup        time.Duration
	ServerWarmup            string // "auto" or a duration
	Threads                 string // comma-separated levels
	Durability              string
	Scenario                string // globs, comma-separated
	Namespace               string
	NamespaceSet            bool   // --namespace was given (an explicit "" is an error)
	ReadOnly                string // --read-only: existing tables, comma-separated NAMESPACE.TABLE
	LatencyOps, CreateOps   int
	Parallel, Rounds        int
	ViewsPerLeaf            int
	Delay                   TestDelay
	Shard                   ShardSettings
	Rate                    float64
	RateWorkers             int
	Mix                     MixSettings
	History                 HistorySettings
	Background              disturb.NeighbourSettings // checked by its Config, not by Options
	ThreadsSet, ScenarioSet bool                      // --threads, --scenario were given
	// Given reports whether the flag of that name was given (FromFlags
	// sets it); nil means none was.
	Given func(flag string) bool
}

// CapacityWorkers is the default --rate-workers of a capacity search: a
// slow server at a high rate needs many operations in flight, or the
// search measures the harness's worker pool instead of the server.
const CapacityWorkers = 64

// CapacityUnused are the run flags a capacity search does not use: it
// chooses the rates and runs the mix, not the scenarios. Options refuses
// each of them given with a capacity search.
var CapacityUnused = []string{"rate", "scenario", "threads", "duration", "full", "snapshots", "history-tables", "history-build", "page-size"}

// ShardSettings make one process one of N identical workers of a
// distributed run: worker I builds and reads its own 1/N of the dataset and
// does 1/N of the recorded operations, and all start measuring at StartAt.
type ShardSettings struct {
	Spec     string // "I/N"
	Shards   int    // N, with I from JobIndex
	JobIndex string // the scheduler's worker index (JOB_COMPLETION_INDEX)
	StartAt  string // RFC 3339
	// StartFile, instead of StartAt, is a start barrier: after setup the
	// worker logs ReadyMark and waits for this file to hold the instant.
	StartFile string
}

// MixSettings run a mix instead of the scenarios and, with Capacity, search
// its capacity.
type MixSettings struct {
	Mix, Keys, Arrivals string
	Seed                uint64
	Capacity            *CapacitySettings // `katbench capacity` only
}

// CapacitySettings shape a capacity search; zero fields take
// DefaultCapacity's values where the field says so.
type CapacitySettings struct {
	SLO                     string
	Start, MinRate, MaxRate float64 // MinRate 0: Start/8
	Factor, Keep, Precision float64
	Bisect                  int
	StepDuration            time.Duration // 0: the default
	StepOps                 int64         // < 0: the default
}

// settingsf is an error of Settings.Options: its message is the cause's
// own, and it is ErrSettings as well as the cause.
func settingsf(format string, args ...any) error {
	return usage.Errorf(bench.ErrSettings, format, args...)
}

func settingsErr(err error) error { return usage.Wrap(bench.ErrSettings, err) }

// Options checks s and returns the runner's options for the run runID.
func (s Settings) Options(runID string) (Options, error) {
	o := Defaults(s.Quick)
	if s.Tables < 0 {
		return o, settingsf("--tables %d: must be positive", s.Tables)
	}
	if s.Tables > 0 {
		o.Shape = dataset.ShapeFor(s.Tables)
	}
	if s.SetupBudget < 0 {
		return o, settingsf("--setup-budget %v: must not be negative", s.SetupBudget)
	}
	if s.SetupBudget > 0 && len(s.Sizes) < 2 {
		return o, settingsf("--setup-budget bounds a growth sweep's setup: give --tables with several sizes, like 1k,10k,100k")
	}
	if s.PerNamespace < 0 || s.PerNamespace > 0 && len(s.Sizes) < 2 {
		return o, settingsf("--per-namespace %d: give a positive count with a growth sweep (--tables with several sizes, like 1k,10k,100k)", s.PerNamespace)
	}
	if len(s.Sizes) > 1 {
		if err := dataset.SweepShape(s.Sizes, slices.Max(s.Sizes), s.PerNamespace).Validate(); err != nil {
			return o, settingsErr(err)
		}
		o.Sizes, o.Shape, o.SetupBudget = slices.Clone(s.Sizes), dataset.SweepShape(s.Sizes, s.Sizes[0], s.PerNamespace), s.SetupBudget
		o.PerNamespace = s.PerNamespace
	}
	if err := o.Shape.Validate(); err != nil {
		return o, settingsErr(err)
	}
	if s.Duration < 0 || s.Warmup < 0 || s.LatencyOps < 0 || s.CreateOps < 0 || s.Parallel < 1 || s.Rounds < 1 || s.Rounds > 1000 {
		return o, settingsf("--duration, --warmup, --ops and --create-ops must not be negative, --setup-parallel ≥ 1, --rounds 1..1000")
	}
	o.Rounds = s.Rounds
	if s.ViewsPerLeaf < 0 || s.ViewsPerLeaf > 10_000 {
		return o, settingsf("--views-per-leaf %d: want 1..10000 (0 for the default)", s.ViewsPerLeaf)
	}
	o.ViewsPerLeaf = s.ViewsPerLeaf
	if s.CreateOps > 0 {
		o.CreateOps = s.CreateOps
	}
	if s.Duration > 0 {
		o.Duration = s.Duration
	}
	if s.Warmup > 0 {
		o.Warmup = s.Warmup
	}
	if s.LatencyOps > 0 {
		o.LatencyOps = s.LatencyOps
	}
	if s.ServerWarmup != "" && s.ServerWarmup != "auto" {
		d, err := time.ParseDuration(s.ServerWarmup)
		if err != nil || d < 0 {
			return o, settingsf("--server-warmup %q: want 'auto' or a duration like 30s", s.ServerWarmup)
		}
		o.ServerWarmup = d
	}
	o.Parallel = s.Parallel
	if s.Full {
		o.Full = true
		o.Threads = DefaultThreads
	}
	if s.Quick && strings.TrimSpace(s.Scenario) != "" {
		// Scenarios picked by name run at every level the names pick
		// (`--quick --scenario load_table.throughput.t8`).
		o.Threads = DefaultThreads
	}
	if s.Threads != "" {
		o.Threads = nil
		for _, t := range strings.Split(s.Threads, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(t))
			if err != nil || n < 1 || n > 4096 {
				return o, settingsf("--threads %q: want positive integers up to 4096, comma-separated", s.Threads)
			}
			o.Threads = append(o.Threads, n)
		}
	}
	sel, err := ParseSelector(s.Scenario, o.Threads)
	if err != nil {
		return o, settingsErr(err)
	}
	o.Select = sel
	if s.Durability != "" {
		d, err := catalog.ParseDurability(s.Durability)
		if err != nil {
			return o, settingsErr(err)
		}
		o.Durability = string(d)
	}
	o.Delay = s.Delay
	o.Namespace = s.Namespace
	if s.NamespaceSet && o.Namespace == "" {
		return o, settingsf("--namespace '': want a namespace name (leave the flag out for katbench_<run id>)")
	}
	if o.Namespace == "" {
		o.Namespace = "katbench_" + runID
	}
	if err := catalog.ValidateIdentifier(table.Identifier{o.Namespace, "t"}); err != nil {
		return o, settingsf("--namespace %q: %v", o.Namespace, err)
	}
	o.Extra = map[string]any{}
	if err := s.Shard.apply(&o, s.Namespace != ""); err != nil {
		return o, err
	}
	if s.Rate < 0 || s.Rate > 1e7 {
		return o, settingsf("--rate %v: want 0 (closed loop only) up to 10,000,000 ops/s", s.Rate)
	}
	if s.RateWorkers < 1 || s.RateWorkers > 4096 {
		return o, settingsf("--rate-workers %d: want 1..4096", s.RateWorkers)
	}
	o.Rate, o.OpenWorkers = s.Rate, s.RateWorkers
	if err := s.Mix.apply(&o, s.ThreadsSet, s.ScenarioSet); err != nil {
		return o, err
	}
	given := s.Given
	if given == nil {
		given = func(string) bool { return false }
	}
	if s.Mix.Capacity != nil {
		if !given("rate-workers") {
			o.OpenWorkers = CapacityWorkers
		}
		for _, name := range CapacityUnused {
			if given(name) {
				return o, settingsf("--%s with capacity: the search runs --mix at the rates it chooses, each step --step-duration long; "+
					"--%s does not shape it, leave it out", name, name)
			}
		}
	}
	if err := s.History.apply(&o, given); err != nil {
		return o, err
	}
	if given("read-only") || s.ReadOnly != "" {
		if o.ReadOnly, err = parseReadOnly(s.ReadOnly); err != nil {
			return o, err
		}
		switch {
		case o.Workload != nil:
			return o, settingsf("--read-only runs the read scenarios, not a mix or a capacity search (their mixes write)")
		case len(o.Sizes) > 0:
			return o, settingsf("--read-only reads the tables it is given: a growth sweep (several --tables sizes) would create tables")
		}
		if err := checkReadOnly(o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// parse returns the shard index and count (0, 1 when not sharded).
func (s ShardSettings) parse() (int, int, error) {
	spec := s.Spec
	if spec == "" && s.Shards > 0 {
		if s.JobIndex == "" {
			return 0, 0, settingsf("--shards %d needs JOB_COMPLETION_INDEX (or give --shard I/N)", s.Shards)
		}
		spec = s.JobIndex + "/" + strconv.Itoa(s.Shards)
	}
	if spec == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 10000 || i < 0 || i >= n {
		return 0, 0, settingsf("--shard %q: want I/N with 0 ≤ I < N ≤ 10000", spec)
	}
	if s.Shards > 0 && s.Shards != n {
		return 0, 0, settingsf("--shard %s disagrees with --shards %d", spec, s.Shards)
	}
	return i, n, nil
}

// apply gives o this worker's slice and start time and stamps them on the
// lines' params. It runs after the options it divides are set.
func (s ShardSettings) apply(o *Options, namespaceGiven bool) error {
	i, n, err := s.parse()
	if err != nil {
		return err
	}
	if s.StartFile != "" {
		if s.StartAt != "" {
			return settingsf("--start-at and --start-file: give one (an instant, or a barrier that hands one out)")
		}
		o.StartGate = fileGate(s.StartFile)
	}
	if s.StartAt != "" {
		t, err := time.Parse(time.RFC3339Nano, s.StartAt)
		if err != nil {
			return settingsf("--start-at %q: want an RFC 3339 time like 2026-12-01T06:00:00Z", s.StartAt)
		}
		o.StartAt = t
		o.Extra["start_at"] = t.UTC().Format(time.RFC3339Nano)
	}
	if n == 1 {
		return nil
	}
	per := func(v int) int { return int(math.Ceil(float64(v) / float64(n))) }
	o.Shape = dataset.ShapeFor(per(o.Shape.Tables()))
	o.LatencyOps = per(o.LatencyOps)
	o.CreateOps = per(o.CreateOps)
	if namespaceGiven {
		// A shared --namespace: each shard builds under its own child name.
		o.Namespace = fmt.Sprintf("%s_s%d", o.Namespace, i)
		if err := catalog.ValidateIdentifier(table.Identifier{o.Namespace, "t"}); err != nil {
			return settingsf("--namespace for shard %d: %v", i, err)
		}
	}
	o.Extra["shard"] = fmt.Sprintf("%d/%d", i, n)
	o.Extra["shards"] = n
	return nil
}

// apply sets o.Workload (and o.Capacity). threadsGiven and scenarioGiven
// say whether thread levels and scenario globs were given.
func (m MixSettings) apply(o *Options, threadsGiven, scenarioGiven bool) error {
	if m.Mix == "" {
		switch {
		case m.Capacity != nil:
			return settingsf("capacity needs --mix (e.g. --mix read-heavy; see 'katbench list')")
		case m.Keys != "" || m.Arrivals != "":
			return settingsf("--keys and --arrivals shape a mix: give --mix too")
		}
		return nil
	}
	if scenarioGiven {
		return settingsf("--scenario with --mix: a mix runs instead of the scenarios")
	}
	mix, err := workload.ParseMix(m.Mix)
	if err != nil {
		return settingsErr(err)
	}
	wl := &workload.Workload{Mix: mix, Seed: m.Seed}
	if m.Keys != "" {
		if wl.Keys, err = workload.ParseKeys(m.Keys); err != nil {
			return settingsErr(err)
		}
	}
	switch m.Arrivals {
	case "", string(pacer.Constant):
	case string(pacer.Poisson):
		if o.Rate <= 0 && m.Capacity == nil {
			return settingsf("--arrivals poisson: an open loop needs --rate")
		}
	default:
		return settingsf("--arrivals %q: want constant or poisson", m.Arrivals)
	}
	wl.Arrivals = pacer.Arrivals(m.Arrivals)
	if !threadsGiven {
		o.Threads = []int{8} // a mix is one closed-loop level unless asked for more
	}
	o.Workload = wl
	if m.Capacity == nil {
		return nil
	}
	return m.Capacity.apply(o, mix)
}

func (c *CapacitySettings) apply(o *Options, mix workload.Mix) error {
	if o.Rate > 0 {
		return settingsf("--rate with capacity: the search chooses the rates (--start-rate, --max-rate)")
	}
	if c.SLO == "" {
		return settingsf("capacity needs --slo (e.g. --slo 'p99<=50ms')")
	}
	slo, err := workload.ParseSLO(c.SLO)
	if err != nil {
		return settingsErr(err)
	}
	if err := slo.CheckMix(mix); err != nil {
		return settingsErr(err)
	}
	s := workload.DefaultCapacity(o.Quick)
	s.SLO, s.StartRate, s.MaxRate, s.Factor, s.Bisections, s.Precision, s.Keep = slo, c.Start, c.MaxRate, c.Factor, c.Bisect, c.Precision, c.Keep
	s.MinRate = c.Start / 8
	if c.MinRate != 0 {
		s.MinRate = c.MinRate
	}
	if c.StepDuration != 0 {
		s.StepDuration = c.StepDuration
	}
	if c.StepOps >= 0 {
		s.StepOps = c.StepOps
	}
	if err := s.Validate(); err != nil {
		return settingsErr(err)
	}
	o.Capacity = &s
	return nil
}

// ParseTestDelay reads a test delay: "US" slows every target's scenarios
// by US microseconds, "TARGET:US" only TARGET's; "" is no delay.
func ParseTestDelay(v string) (TestDelay, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return TestDelay{}, nil
	}
	target, us, ok := strings.Cut(v, ":")
	if !ok {
		target, us = "", v
	}
	n, err := strconv.ParseFloat(us, 64)
	if err != nil || n < 0 || n > 1e6 {
		return TestDelay{}, settingsf("%q: want microseconds (0..1000000), optionally TARGET:US", v)
	}
	return TestDelay{Per: time.Duration(n * 1e3), Target: target}, nil
}

// FileFloors returns the file-system floors (competitors.FileFloorOf) to run after
// targets: one per target that has a floor not among targets already, when
// o selects a scenario the floor runs, in immediate durability. A mix or a
// capacity search (o.Workload) runs no scenario of the floor's.
func FileFloors(targets []string, o Options) []string {
	if o.Workload != nil {
		return nil
	}
	if d := strings.ToLower(strings.TrimSpace(o.Durability)); d != "" && d != "immediate" {
		return nil
	}
	selected := false
	for _, sc := range Plan(o.Threads) {
		if o.Select.Selects(sc.Name) && competitors.FileFloorRuns(sc.Name) {
			selected = true
			break
		}
	}
	if !selected {
		return nil
	}
	have := map[string]bool{}
	for _, t := range targets {
		have[t] = true
	}
	var out []string
	for _, t := range targets {
		f := competitors.FileFloorOf(t)
		if f == "" || have[f] {
			continue
		}
		if _, err := competitors.Lookup(f); err != nil {
			continue // not registered in this build
		}
		have[f] = true
		out = append(out, f)
	}
	return out
}
