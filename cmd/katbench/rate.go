package main

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/scenarios"
)

// rateFlags turn on the open-loop scenarios: control, load_table and
// table_exists issued at a constant arrival rate per target.
type rateFlags struct {
	rate    float64
	workers int
}

func (r *rateFlags) register(fl *pflag.FlagSet) {
	fl.Float64Var(&r.rate, "rate", 0, "also run the open-loop reads (open.control, open.load_table, open.table_exists) at this many ops/s per target; latency from the intended start")
	fl.IntVar(&r.workers, "rate-workers", 16, "operations in flight at most in an open loop (a due operation waits for a free one, and that wait counts)")
}

func (r *rateFlags) apply(o *scenarios.Options) error {
	if r.rate < 0 || r.rate > 1e7 {
		return usagef("--rate %v: want 0 (closed loop only) up to 10,000,000 ops/s", r.rate)
	}
	if r.workers < 1 || r.workers > 4096 {
		return usagef("--rate-workers %d: want 1..4096", r.workers)
	}
	o.Rate, o.OpenWorkers = r.rate, r.workers
	return nil
}
