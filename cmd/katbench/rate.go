package main

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/scenarios"
)

// registerRate adds the flags of the open-loop scenarios: control,
// load_table and table_exists issued at a constant arrival rate per target.
func registerRate(fl *pflag.FlagSet, s *scenarios.Settings) {
	fl.Float64Var(&s.Rate, "rate", 0, "also run the open-loop reads (open.control, open.load_table, open.table_exists) at this many ops/s per target; latency from the intended start")
	fl.IntVar(&s.RateWorkers, "rate-workers", 16, "operations in flight at most in an open loop (a due operation waits for a free one, and that wait counts)")
}
