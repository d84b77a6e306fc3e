package s3bench

import (
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/transport"
)

// Options are a transport bench's dimensions and loop as a command line
// gives them, lists as text; Config parses them. Every bad value is a
// *bench.OptionError naming its option.
type Options struct {
	Ops, Sizes, Concurrency, Transports string
	// Baseline is the transport the tables' ratios are taken over.
	Baseline string
	// Scenario selects cells by glob (bench.Select).
	Scenario string
	// Rates are the open-loop rates (ParseRates), "" for none; Duration
	// the open-loop time per (transport, cell, rate).
	Rates    string
	Duration time.Duration
	// ClientFloor adds the floor lane (Config.ClientFloor).
	ClientFloor bool
	// AllowHighConcurrency admits levels above 256.
	AllowHighConcurrency bool
	Seed                 int64
	// Iterations per cell (0: the default, QuickIterations with Quick),
	// split into Rounds interleaved rounds.
	Iterations, Rounds int
	Quick              bool
}

// Config parses o into a Config without its store (S3, Run, Log, …).
func (o Options) Config() (Config, error) {
	var c Config
	var err error
	if c.Ops, err = ParseOps(o.Ops); err != nil {
		return c, bench.OptionErr(OpsFlag, err)
	}
	if c.Sizes, err = ParseSizes(o.Sizes); err != nil {
		return c, bench.OptionErr("sizes", err)
	}
	if c.Concurrency, err = ParseConcurrency(o.Concurrency); err != nil {
		return c, bench.OptionErr("concurrency", err)
	}
	if c.Transports, err = ParseTransports(o.Transports); err != nil {
		return c, bench.OptionErr("transports", err)
	}
	if _, err := transport.ParseKind(o.Baseline); err != nil {
		return c, bench.OptionErr("baseline", err)
	}
	if c.Select, err = bench.Select(o.Scenario, Names(c)); err != nil {
		return c, err
	}
	if err := CheckConcurrency(c.Concurrency, o.AllowHighConcurrency); err != nil {
		return c, bench.OptionErr("concurrency", err)
	}
	c.AllowHighConcurrency = o.AllowHighConcurrency
	if o.ClientFloor {
		if err := CheckClientFloor(c.Ops); err != nil {
			return c, bench.OptionErr("floor", err)
		}
		c.ClientFloor = true
	}
	if o.Rates != "" {
		if c.Rates, err = ParseRates(o.Rates); err != nil {
			return c, bench.OptionErr("rate", err)
		}
		if err := CheckRates(c.Rates, c.Transports); err != nil {
			return c, bench.OptionErr("rate", err)
		}
	}
	switch {
	case o.Duration <= 0:
		return c, bench.OptionErrf("duration", "%v: want a positive duration", o.Duration)
	case o.Seed == 0:
		return c, bench.OptionErrf("seed", "0: want a non-zero seed")
	case o.Iterations < 0:
		return c, bench.OptionErrf("iterations", "%d: must not be negative", o.Iterations)
	case o.Rounds < 1:
		return c, bench.OptionErrf("rounds", "%d: want at least 1", o.Rounds)
	}
	c.Duration, c.Seed, c.Rounds, c.Quick = o.Duration, o.Seed, o.Rounds, o.Quick
	c.Iterations = o.Iterations
	if c.Iterations == 0 && o.Quick {
		c.Iterations = QuickIterations
	}
	return c, nil
}
