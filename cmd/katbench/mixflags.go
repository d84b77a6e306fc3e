package main

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/scenarios"
)

// registerMix adds the flags that run a mix instead of the scenarios
// (--mix, --keys, --seed, --arrivals).
func registerMix(fl *pflag.FlagSet, m *scenarios.MixSettings) {
	fl.StringVar(&m.Mix, "mix", "", "run a mix instead of the scenarios: a named mix (see 'katbench list') or weights like 'load_table=80,table_exists=10,commit_table=10'")
	fl.StringVar(&m.Keys, "keys", "", "which table each operation of a mix touches: "+scenarios.KeysHelp+" (default: the mix's own, uniform for most)")
	fl.Uint64Var(&m.Seed, "seed", 1, "seed of a mix's random choices (operation, table, Poisson gap), recorded on its lines")
	fl.StringVar(&m.Arrivals, "arrivals", "", "open-loop arrivals of a mix: constant (default) or poisson")
}

// registerCapacity adds the flags that shape `katbench capacity`'s search.
func registerCapacity(fl *pflag.FlagSet, c *scenarios.CapacitySettings) {
	d := scenarios.DefaultCapacity(false)
	fl.StringVar(&c.SLO, "slo", "", "the objective every step must meet: "+scenarios.SLOHelp)
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
