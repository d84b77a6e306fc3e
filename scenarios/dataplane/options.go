package dataplane

import (
	"strings"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
)

// Options are a data run as a command line gives it, sizes and lists as
// text; Config parses them. Every bad value is a *bench.OptionError
// naming its option.
type Options struct {
	// Rows, TargetFileSize and RowGroupRows as text ("" for the default):
	// 100k, 64MiB, 128k.
	Rows, TargetFileSize, RowGroupRows string
	Compression                        string
	// Transports to compare, Baseline the ratios' denominator.
	Transports, Baseline string
	// Scenario selects scenarios by glob, the raw baseline (RawName)
	// among them.
	Scenario                                                  string
	BatchRows, Rounds, CommitOps, CommitRows, ScanConcurrency int
	Seed                                                      uint64
	// RawIterations are the raw baseline's PUTs and GETs per transport
	// (0: RawIterations of Quick).
	RawIterations int
	Namespace     string
	Quick, Keep   bool
}

// Config parses o into a Config for run's lines, and the transports to
// compare.
func (o Options) Config() (Config, []transport.Kind, error) {
	cfg := Config{
		BatchRows: o.BatchRows, Compression: o.Compression, Rounds: o.Rounds,
		CommitOps: o.CommitOps, CommitRows: o.CommitRows, ScanConcurrency: o.ScanConcurrency,
		Seed: o.Seed, Namespace: o.Namespace, Quick: o.Quick, KeepTables: o.Keep,
	}
	var err error
	if o.Rows != "" {
		if cfg.Rows, err = ParseRows(o.Rows); err != nil {
			return cfg, nil, bench.OptionErr("rows", err)
		}
	}
	if o.TargetFileSize != "" {
		if cfg.TargetFileSize, err = s3bench.ParseSize(o.TargetFileSize); err != nil || cfg.TargetFileSize < 1 {
			return cfg, nil, bench.OptionErrf("target-file-size", "%q: want a positive size such as 64MiB", o.TargetFileSize)
		}
	}
	if o.RowGroupRows != "" {
		if cfg.RowGroupRows, err = ParseRows(o.RowGroupRows); err != nil {
			return cfg, nil, bench.OptionErr("row-group-rows", err)
		}
	}
	for _, c := range []struct {
		name   string
		v, min int
	}{{"batch-rows", o.BatchRows, 1}, {"rounds", o.Rounds, 1}, {"commit-rows", o.CommitRows, 1},
		{"commit-ops", o.CommitOps, 0}, {"scan-concurrency", o.ScanConcurrency, 0}, {"raw-iterations", o.RawIterations, 0}} {
		if c.v < c.min {
			return cfg, nil, bench.OptionErrf(c.name, "%d: want at least %d", c.v, c.min)
		}
	}
	if o.Seed == 0 {
		return cfg, nil, bench.OptionErrf("seed", "must not be 0")
	}
	if _, err := TableProps(o.Compression, cfg.TargetFileSize); err != nil {
		return cfg, nil, bench.OptionErrf("compression", "%q: want %s", o.Compression, strings.Join(Compressions, ", "))
	}
	if cfg.Select, err = bench.Select(o.Scenario, SelectNames(cfg.rows())); err != nil {
		return cfg, nil, err
	}
	kinds, err := s3bench.ParseTransports(o.Transports)
	if err != nil {
		return cfg, nil, bench.OptionErr("transports", err)
	}
	if _, err := transport.ParseKind(o.Baseline); err != nil {
		return cfg, nil, bench.OptionErr("baseline", err)
	}
	return cfg, kinds, nil
}

// RawIterations is the raw baseline's PUTs and GETs per transport when
// Options.RawIterations is 0.
func RawIterations(quick bool) int {
	if quick {
		return 8
	}
	return 20
}

// rows is the rows per append of c: its own, or the default.
func (c Config) rows() int64 {
	switch {
	case c.Rows > 0:
		return c.Rows
	case c.Quick:
		return QuickRows
	}
	return DefaultRows
}
