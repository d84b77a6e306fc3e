package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/scenarios/s3bench"
)

// transportRateFlags are the open-loop and high-concurrency flags of
// `katbench transport`.
type transportRateFlags struct {
	rates     string
	duration  time.Duration
	allowHigh bool
	seed      int64
}

func (r *transportRateFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&r.rates, "rate", "", "also offer each cell these rates in an open loop, comma-separated: ops/s (2000) or percentages of net/http's closed-loop ops/s in the same cell of this run (25%,50%,75%); latency from the intended start")
	fl.DurationVar(&r.duration, "duration", s3bench.DefaultDuration, "open-loop time per (transport, cell, rate), split into --rounds")
	fl.BoolVar(&r.allowHigh, "allow-high-concurrency", false, "admit --concurrency levels above 256, up to 1024")
	fl.Int64Var(&r.seed, "seed", s3bench.DefaultSeed, "seed of the ranged GETs' offsets (op range)")
}

// apply checks the flags against the parsed concurrency levels and sets
// them on cfg; every error is a usage error.
func (r *transportRateFlags) apply(cfg *s3bench.Config) error {
	if err := s3bench.CheckConcurrency(cfg.Concurrency, r.allowHigh); err != nil {
		return usagef("--concurrency: %v", err)
	}
	cfg.AllowHighConcurrency = r.allowHigh
	if r.rates != "" {
		rates, err := s3bench.ParseRates(r.rates)
		if err != nil {
			return usagef("--rate: %v", err)
		}
		if err := s3bench.CheckRates(rates, cfg.Transports); err != nil {
			return usagef("--rate: %v", err)
		}
		cfg.Rates = rates
	}
	if r.duration <= 0 {
		return usagef("--duration %v: want a positive duration", r.duration)
	}
	if r.seed == 0 {
		return usagef("--seed 0: want a non-zero seed")
	}
	cfg.Duration, cfg.Seed = r.duration, r.seed
	return nil
}
