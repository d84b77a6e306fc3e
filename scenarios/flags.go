package scenarios

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/workload"
)

// RegisterFlags adds the flags of a benchmark run (katbench run, capacity
// and one command per competitor) to fl, each filling the Settings field
// of its name. getenv gives the defaults the environment sets
// (BENCH_QUICK, BENCH_DURABILITY); nothing else is read from it. After
// fl is parsed, FromFlags records which flags were given.
func (s *Settings) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	fl.BoolVar(&s.Quick, "quick", getenv("BENCH_QUICK") == "1", "smoke run: small dataset (200 tables), short phases, threads 1,4, no durability throughput sweep; env BENCH_QUICK=1")
	fl.BoolVar(&s.Full, "full", false, "with --quick: still run every thread level (1..32) and the durability throughput sweep")
	fl.Var(tablesValue{one: &s.Tables, sizes: &s.Sizes}, "tables", "tables in the dataset (default 200 with --quick, 10000 otherwise); several, like 1k,10k,100k,1M, run a growth sweep: every scenario at each size, the dataset grown between them")
	fl.DurationVar(&s.SetupBudget, "setup-budget", 0, "with a growth sweep: the most time each competitor's dataset setup may take over all sizes; one that runs out stops at the size it reached (default: no limit)")
	fl.IntVar(&s.PerNamespace, "per-namespace", 0, "with a growth sweep: this many tables in every leaf namespace at every size, the namespaces (one level under the root) growing in number instead (default: 100 leaf namespaces whose tables grow)")
	fl.DurationVar(&s.Duration, "duration", 0, "measured time per throughput level (default 500ms with --quick, 5s otherwise)")
	fl.DurationVar(&s.Warmup, "warmup", 0, "unrecorded warm-up before each scenario (default 200ms with --quick, 2s otherwise; JVM servers ask for more)")
	fl.StringVar(&s.ServerWarmup, "server-warmup", "auto", "one-time warm-up of each server before its first scenario; 'auto' = what the competitor asks for (30s for JVM servers: Nessie, Polaris, the fixture; 0 otherwise)")
	fl.StringVar(&s.Threads, "threads", "", "throughput levels, comma-separated (default 1,4 with --quick and no --scenario, 1,2,4,8,16,32 otherwise)")
	serve.RegisterDurabilityFlag(fl, &s.Durability, getenv)
	fl.StringVar(&s.Scenario, "scenario", "", "run only scenarios matching these globs, comma-separated (e.g. 'load_table.*')")
	fl.StringVar(&s.Namespace, "namespace", "", "root namespace of the dataset (default katbench_<run id>)")
	fl.StringVar(&s.ReadOnly, "read-only", "", "read existing tables NAMESPACE.TABLE[,…] instead of making a dataset: nothing is created or dropped, only read scenarios run (write scenarios are refused)")
	fl.IntVar(&s.LatencyOps, "ops", 0, "recorded operations per latency scenario (default 1000 with --quick, 20000 otherwise)")
	fl.IntVar(&s.CreateOps, "create-ops", 0, "recorded creates and commits per scenario (default 100 with --quick, 1000 otherwise)")
	fl.IntVar(&s.Parallel, "setup-parallel", 4, "workers creating and dropping the dataset (fewer where the competitor asks for fewer)")
	fl.IntVar(&s.Rounds, "rounds", 1, "measure each scenario this many times per target, interleaved round by round (A B C, C B A, …); lines keep per-round p50 and ops/s")
	fl.IntVar(&s.ViewsPerLeaf, "views-per-leaf", 0, "views per leaf namespace made for the view scenarios (default 2 with --quick, 10 otherwise)")
	s.Shard.RegisterFlags(fl)
	fl.Float64Var(&s.Rate, "rate", 0, "also run the open-loop reads (open.control, open.load_table, open.table_exists) at this many ops/s per target; latency from the intended start")
	fl.IntVar(&s.RateWorkers, "rate-workers", 16, "operations in flight at most in an open loop (a due operation waits for a free one, and that wait counts)")
	s.Mix.RegisterFlags(fl)
	s.Background.RegisterFlags(fl)
	s.History.RegisterFlags(fl)
}

// FromFlags records, after fl is parsed, which flags were given: an
// explicit empty --namespace is an error, and flags that shape nothing given
// are refused (see Settings.Given).
func (s *Settings) FromFlags(fl *pflag.FlagSet) {
	s.Given = fl.Changed
	s.NamespaceSet, s.ThreadsSet, s.ScenarioSet = fl.Changed("namespace"), s.Threads != "", s.Scenario != ""
}

// RegisterFlags adds the flags that make one process one of N identical
// workers of a distributed run; `katbench merge --cross-host` adds their
// histograms afterwards. JobIndex is not a flag: cmd reads it from
// JOB_COMPLETION_INDEX.
func (s *ShardSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&s.Spec, "shard", "", "this worker's shard I/N of a distributed run (default: JOB_COMPLETION_INDEX of --shards when set)")
	fl.IntVar(&s.Shards, "shards", 0, "number of workers N, with the index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
	fl.StringVar(&s.StartAt, "start-at", "", "RFC 3339 time at which to start measuring, after setup (every worker of a distributed run gets the same)")
	fl.StringVar(&s.StartFile, "start-file", "", "a start barrier instead of --start-at: after setup, log a "+ReadyMark+" line and wait until this file holds the RFC 3339 start instant (cluster run writes it once every worker is ready)")
}

// RegisterFlags adds the flags that run a mix instead of the scenarios
// (--mix, --keys, --seed, --arrivals).
func (m *MixSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&m.Mix, "mix", "", "run a mix instead of the scenarios: a named mix (see 'katbench list') or weights like 'load_table=80,table_exists=10,commit_table=10'")
	fl.StringVar(&m.Keys, "keys", "", "which table each operation of a mix touches: "+workload.KeysHelp+" (default: the mix's own, uniform for most)")
	fl.Uint64Var(&m.Seed, "seed", 1, "seed of a mix's random choices (operation, table, Poisson gap), recorded on its lines")
	fl.StringVar(&m.Arrivals, "arrivals", "", "open-loop arrivals of a mix: constant (default) or poisson")
}

// RegisterFlags adds the flags that shape `katbench capacity`'s search.
func (c *CapacitySettings) RegisterFlags(fl *pflag.FlagSet) {
	d := workload.DefaultCapacity(false)
	fl.StringVar(&c.SLO, "slo", "", "the objective every step must meet: "+workload.SLOHelp)
	fl.Float64Var(&c.Start, "start-rate", d.StartRate, "first step's rate, ops/s per target")
	fl.Float64Var(&c.MinRate, "min-rate", 0, "lowest rate tried when the first step breaks the objective (default start-rate/8)")
	fl.Float64Var(&c.MaxRate, "max-rate", d.MaxRate, "highest rate tried, ops/s")
	fl.Float64Var(&c.Factor, "factor", d.Factor, "geometric step between rates before the objective breaks")
	fl.IntVar(&c.Bisect, "bisect", d.Bisections, "bisection steps between the last good and the first bad rate")
	fl.Float64Var(&c.Precision, "precision", d.Precision, "stop bisecting once first-bad/last-good ≤ 1 + this")
	fl.Float64Var(&c.Keep, "keep", d.Keep, "fraction of the offered rate a step must achieve to count as kept")
	fl.DurationVar(&c.StepDuration, "step-duration", 0, "minimum measured time per step (default 1s with --quick, 5s otherwise), after --warmup")
	fl.Int64Var(&c.StepOps, "step-ops", -1, "minimum operations per step (default 1000 with --quick, 5000 otherwise); a slow step lasts up to 10× --step-duration")
}

// RegisterFlags adds the flags that shape the history-depth levels
// (--snapshots, --history-tables, --history-build) and the listing page
// size.
func (h *HistorySettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&h.Snapshots, "snapshots", "", "history depth levels, comma-separated snapshot counts (e.g. 0,100,1000): per level, "+
		"--history-tables tables with that many real snapshots, on which the load and commit scenarios run again (params.snapshots)")
	fl.IntVar(&h.Tables, "history-tables", 3, "tables per --snapshots level")
	fl.StringVar(&h.Build, "history-build", dataset.HistoryAuto, "how the history tables are built: auto (register the generated metadata "+
		"where the competitor's client can, commits elsewhere), commits (add-snapshot commits through the catalog), register")
	fl.IntVar(&h.PageSize, "page-size", 0, fmt.Sprintf("page size the listing scenarios ask a paging client for (default %d)", ListPageSize))
}
