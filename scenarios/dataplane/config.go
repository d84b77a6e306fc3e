package dataplane

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
)

// Scenario names.
const (
	AppendPrefix  = "data.append." // + FormatRows(rows per append)
	ScanName      = "data.scan"
	CommitLatency = "data.commit.latency"
)

// Defaults for a full run and for --quick.
const (
	DefaultRows       = 1_000_000
	QuickRows         = 100_000
	DefaultBatchRows  = 16 * 1024
	DefaultRounds     = 3
	DefaultCommitOps  = 100
	QuickCommitOps    = 20
	DefaultCommitRows = 100
	DefaultSeed       = 20261201
)

// LiveBatches is how many generated batches of an append may exist at once
// (see [Reader.LimitLive]): one being encoded by iceberg-go's writer and
// one being generated, so generation overlaps encoding but never runs
// further ahead.
const LiveBatches = 2

// Config shapes one data-plane run. The zero value of every optional field
// takes its default in withDefaults.
type Config struct {
	// Rows is the rows per append; every round appends this many to each
	// lane's events table (default DefaultRows, QuickRows with Quick).
	Rows int64
	// BatchRows is the Arrow record batch size of the appended stream
	// (default DefaultBatchRows: 16k rows, about 2 MiB; [LiveBatches] of
	// them exist at once, so larger batches only add heap the collector
	// must scan under the append's memory limit).
	BatchRows int
	// TargetFileSize is write.target-file-size-bytes (0: iceberg-go's
	// default, 512 MiB).
	TargetFileSize int64
	// RowGroupRows is write.parquet.row-group-limit: the Parquet writer
	// buffers one encoded row group per open file, so it bounds the
	// append's memory (0: iceberg-go's default, 1,048,576 rows).
	RowGroupRows int64
	// MemoryLimit is the Go memory limit the timed appends of
	// data.append run under, restored after each (0: the process's own;
	// see [AppendMemoryLimit]). It is on the line as go_memory_limit_mib.
	MemoryLimit int64
	// Compression is zstd, snappy or none (default zstd).
	Compression string
	// Rounds is how many interleaved rounds each scenario is split into:
	// each round appends once and scans once per lane, and does
	// CommitOps/Rounds small appends per lane.
	Rounds int
	// CommitOps is the number of small appends per lane in
	// data.commit.latency; CommitRows the rows in each.
	CommitOps  int
	CommitRows int
	// ScanConcurrency is iceberg-go's scan concurrency (0: GOMAXPROCS).
	ScanConcurrency int
	// Seed seeds the events generator.
	Seed uint64
	// Namespace holds the run's tables; it must be unique to the run when
	// lanes share a catalog.
	Namespace string
	// KeepTables leaves the run's tables and namespace in the catalog
	// (default: dropped at the end, never purged).
	KeepTables bool
	// Select chooses scenarios by name; nil runs all.
	Select func(scenario string) bool
	// Quick marks lines of a --quick run and picks the quick defaults.
	Quick bool
	// Warehouse is the warehouse as it may be shown (scheme and bucket,
	// never keys), for params.
	Warehouse string

	// Baseline, when set, is given every lane's appended bytes and files,
	// for the raw-S3 floor measured after the run (see [Baseline]).
	Baseline *Baseline

	Run *results.Run
	Log io.Writer // warnings, one line each; may be nil
	// Progress receives the run's measurements done of those planned (one
	// per lane, scenario and round); may be nil.
	Progress bench.Progress
}

func (c Config) withDefaults() (Config, error) {
	if c.Run == nil {
		return c, fmt.Errorf("%w: no run", ErrBadOption)
	}
	if c.Rows == 0 {
		c.Rows = DefaultRows
		if c.Quick {
			c.Rows = QuickRows
		}
	}
	if c.BatchRows == 0 {
		c.BatchRows = DefaultBatchRows
	}
	if c.Compression == "" {
		c.Compression = "zstd"
	}
	if c.Rounds == 0 {
		c.Rounds = DefaultRounds
	}
	if c.CommitOps == 0 {
		c.CommitOps = DefaultCommitOps
		if c.Quick {
			c.CommitOps = QuickCommitOps
		}
	}
	if c.CommitRows == 0 {
		c.CommitRows = DefaultCommitRows
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.Namespace == "" {
		c.Namespace = "katbench_data_" + c.Run.ID
	}
	switch {
	case c.Rows < 1:
		return c, fmt.Errorf("%w: rows %d", ErrBadOption, c.Rows)
	case c.BatchRows < 1:
		return c, fmt.Errorf("%w: batch rows %d", ErrBadOption, c.BatchRows)
	case c.Rounds < 1:
		return c, fmt.Errorf("%w: rounds %d", ErrBadOption, c.Rounds)
	case c.CommitOps < 0 || c.CommitRows < 1:
		return c, fmt.Errorf("%w: commit ops %d, commit rows %d", ErrBadOption, c.CommitOps, c.CommitRows)
	case c.RowGroupRows < 0:
		return c, fmt.Errorf("%w: row group rows %d", ErrBadOption, c.RowGroupRows)
	case c.MemoryLimit < 0:
		return c, fmt.Errorf("%w: memory limit %d", ErrBadOption, c.MemoryLimit)
	case c.ScanConcurrency < 0:
		return c, fmt.Errorf("%w: scan concurrency %d", ErrBadOption, c.ScanConcurrency)
	}
	if _, err := TableProps(c.Compression, c.TargetFileSize); err != nil {
		return c, err
	}
	return c, nil
}

func (c Config) selects(name string) bool { return c.Select == nil || c.Select(name) }

// AppendName is the append scenario's name for rows per append.
func AppendName(rows int64) string { return AppendPrefix + FormatRows(rows) }

// FormatRows writes a row count compactly: 2000000 → "2M", 100000 →
// "100k", 1500 → "1500".
func FormatRows(n int64) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.FormatInt(n/1000, 10) + "k"
	default:
		return strconv.FormatInt(n, 10)
	}
}

// ParseRows reads a row count: digits with an optional k or M suffix
// (decimal: 1k = 1000), or underscores as separators.
func ParseRows(s string) (int64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "k") || strings.HasSuffix(t, "K"):
		mult, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "M") || strings.HasSuffix(t, "m"):
		mult, t = 1_000_000, t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%w: row count %q (want a positive number, e.g. 100k or 2M)", ErrBadOption, s)
	}
	return n * mult, nil
}
