package dataplane

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
)

// RawName is the raw-S3 baseline's name in a selection: its lines are
// s3.put and s3.get at the appends' mean file size.
const RawName = "data.raw"

// rawNeeds is the key of the scenario the baseline is sized from.
const rawNeeds = "append"

func init() {
	bench.RegisterBench(bench.Scenario{
		Name: RawName, Bench: bench.BenchData, Order: 90, Dims: []bench.Dimension{bench.DimSize, bench.DimConcurrency},
		Needs: []bench.Requirement{bench.NeedS3Store, bench.NeedTransport, bench.NeedScenario("data.append")},
		Doc:   "raw S3 PUT and GET (s3.put, s3.get, control lines) at the appends' mean Parquet file size, for the IO-efficiency ratios; s3:// warehouses, --raw",
	})
}

// Baseline is the raw-S3 floor of a data run: plain S3 PUT and GET of one
// object of the mean Parquet file size the appends wrote, on every
// transport, with the transport bench (its s3.put and s3.get lines, marked
// Control). It depends on data.append: every [Run] given it in
// Config.Baseline adds its lanes' appended bytes and files, and Measure
// sizes the object from them — typed totals, never lines read back.
//
// Safe for concurrent use.
type Baseline struct {
	// Bench is the store, transports, iterations and rounds; Ops, Sizes
	// and Concurrency are set by Measure.
	Bench s3bench.Config

	mu           sync.Mutex
	bytes, files int64
}

// NewBaseline is the raw baseline of a data run on an S3 store, over
// every transport of kinds: iterations PUTs and GETs per transport in
// rounds rounds, one retry per request; nil on a file:// store, which has
// no S3 to measure.
func NewBaseline(store *workspace.Store, kinds []transport.Kind, iterations, rounds int, run *results.Run, log io.Writer, quick bool) *Baseline {
	if !store.Root.S3 {
		return nil
	}
	b := &Baseline{Bench: s3bench.Config{
		S3: store.S3, EndpointName: store.Name(), StoreInProcess: store.InProcess(), Transports: kinds,
		Iterations: iterations, Rounds: rounds, Quick: quick, Run: run, Log: log,
	}}
	b.Bench.S3.MaxRetries = 1
	return b
}

// add counts one lane's successful appends.
func (b *Baseline) add(bytes, files int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.bytes += bytes
	b.files += files
	b.mu.Unlock()
}

// Size is the object size Measure uses: the mean Parquet file size,
// rounded to KiB (for a readable scenario name) and bounded by
// s3bench.MaxSize; 0 when nothing was appended.
func (b *Baseline) Size() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.files == 0 {
		return 0
	}
	return min(max((b.bytes/b.files+512)/1024*1024, 1024), s3bench.MaxSize)
}

// Measure runs the baseline and writes its lines to sink. When no append
// succeeded there is no size to compare at, and it measures nothing.
func (b *Baseline) Measure(ctx context.Context, sink results.Sink) error {
	size := b.Size()
	if size == 0 {
		return nil
	}
	cfg := b.Bench
	cfg.Ops = []s3bench.Op{s3bench.Put, s3bench.Get}
	cfg.Sizes = []int64{size}
	cfg.Concurrency = []int{1}
	cfg.Control = true
	if err := s3bench.Run(ctx, cfg, sink); err != nil {
		return fmt.Errorf("raw S3 baseline at %s: %w", s3bench.FormatSize(size), err)
	}
	return nil
}
