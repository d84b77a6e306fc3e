package s3bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/nordisk/katbench/internal/registry"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
)

// opSpec is what the bench knows of one operation. Each operation's file
// registers its spec in an init function (registerOp); the bench reads
// specs only, so adding an operation is adding a file.
type opSpec struct {
	// size, when not 0, is the op's one cell size: the HEAD object's, a
	// ranged GET's range. 0 means the cells are Config.Sizes.
	size int64
	// bare leaves the size out of the scenario name ("s3.head.c1").
	bare bool
	// object is the size of the object a worker of the given cell size
	// reads, written once before the cells run; nil means the op reads
	// none, and each worker gets a key of its own (a PUT's).
	object func(size int64) int64
	// setup prepares a new worker: buffers, per-worker state. seed and
	// index are Config.Seed and the worker's index in its cell.
	setup func(w *worker, seed int64, index int)
	// do performs one operation.
	do func(w *worker, ctx context.Context) error
	// verify compares the last operation's bytes with the object's; nil
	// means there is nothing to compare.
	verify func(w *worker) error
	// params adds the op's own params to a line of cell size size.
	params func(cfg Config, size int64, p map[string]any)
	// moves says the op moves size bytes per operation: its lines carry
	// mib_s.
	moves bool
	// prepare, when set, writes what the op's workers read, once before
	// the cells, under the run's prefix, and returns the key (or key
	// prefix) every worker of the op is given; object is then unused.
	prepare func(ctx context.Context, c *minio.Client, bucket, prefix string) (key string, err error)
	// doc is one line for `katbench list`.
	doc string
	// scenario is the op's registered scenario (registerOp): what its
	// lines are stamped with.
	scenario bench.Scenario
}

var (
	opSpecs registry.Registry[*opSpec]
	opNames []string // registration order, for messages
)

// registerOp adds op's spec, and its scenario s3.<op> to the registry
// `katbench list` shows; called from init functions only.
func registerOp(op Op, s *opSpec) {
	if err := opSpecs.Register(string(op), s); err != nil {
		panic("s3bench: operation " + err.Error())
	}
	opNames = append(opNames, string(op))
	dims := []bench.Dimension{bench.DimSize, bench.DimConcurrency, bench.DimRate}
	if s.bare || s.size > 0 {
		dims = dims[1:]
	}
	s.scenario = bench.Scenario{
		Name: "s3." + string(op), Bench: bench.BenchTransport, Order: len(opNames) * 10,
		Kind: bench.KindLatency, Metric: results.P50, Dims: dims,
		Needs: []bench.Requirement{bench.NeedS3Store, bench.NeedTransport}, Doc: s.doc,
	}
	bench.RegisterBench(s.scenario)
}

// level is cell c's level: its size and concurrency (those of its op's
// scenario's dimensions a line carries).
func (c cell) level() bench.Level {
	return bench.Level{bench.DimSize: float64(c.size), bench.DimConcurrency: float64(c.conc)}
}

// OpsDoc lists the registered operations with their docs, for --s3-ops.
func OpsDoc() string {
	var w []string
	for _, n := range opNames {
		w = append(w, n+" ("+spec(Op(n)).doc+")")
	}
	return strings.Join(w, ", ")
}

// spec returns op's spec; ops reach the bench through ParseOp, so an
// unknown op here is a bug.
func spec(op Op) *opSpec {
	s, ok := opSpecs.Lookup(string(op))
	if !ok {
		panic(fmt.Sprintf("s3bench: unknown operation %q", op))
	}
	return s
}

// ParseOp parses the name of a registered operation (any case): head,
// get, put, range.
func ParseOp(s string) (Op, error) {
	op := Op(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := opSpecs.Lookup(string(op)); ok {
		return op, nil
	}
	return "", fmt.Errorf("%w %q: want one of %s", ErrBadOp, s, strings.Join(opNames, ", "))
}

// cellSizes are the sizes op's cells are measured at.
func (s *opSpec) cellSizes(cfg Config) []int64 {
	if s.size > 0 {
		return []int64{s.size}
	}
	return cfg.Sizes
}
