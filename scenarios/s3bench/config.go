package s3bench

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// Op is one S3 operation the bench measures.
type Op string

// The operations.
const (
	Head Op = "head" // StatObject: one HEAD, no body
	Get  Op = "get"  // GetObject read into a reused buffer of the object's size
	Put  Op = "put"  // PutObject of a known size, unsigned payload
)

// Defaults for a full run; Quick runs use QuickIterations.
const (
	DefaultIterations = 8000
	QuickIterations   = 500
	DefaultRounds     = 10
	// MaxSize bounds an object size: every GET worker keeps a buffer of it.
	MaxSize = 256 << 20
	// HeadSize is the size of the object HEAD is measured on.
	HeadSize = 4 << 10
	// MaxConcurrency bounds a concurrency level unless the config allows
	// up to HighConcurrency (AllowHighConcurrency).
	MaxConcurrency  = 256
	HighConcurrency = 1024
)

// Errors for bad configuration.
var (
	ErrBadSize   = errors.New("bad object size")
	ErrBadOp     = errors.New("bad operation")
	ErrBadConfig = errors.New("bad s3bench config")
)

// Default dimensions.
var (
	DefaultOps         = []Op{Head, Get, Put}
	DefaultSizes       = []int64{4 << 10, 64 << 10, 1 << 20}
	DefaultConcurrency = []int{1, 8}
	DefaultTransports  = transport.Names()
)

// Config shapes one micro-bench run against one endpoint.
type Config struct {
	// S3 says where the store is and how to sign: Endpoint, Bucket, keys,
	// Region and PoolSize are used; Transport is ignored (Transports rules).
	// PoolSize 0 means the largest Concurrency level.
	S3 s3.Config
	// EndpointName is params.endpoint: "control" for the in-process
	// server, else "" for the endpoint's host:port.
	EndpointName string
	// StoreInProcess says the store runs in this process (the control
	// store), so the lines' CPU per operation includes its work.
	StoreInProcess bool
	// Transports are measured in this order within a round (the order flips
	// every other round). Empty means DefaultTransports.
	Transports []transport.Kind
	// Ops, Sizes and Concurrency are the dimensions; empty means defaults.
	// HEAD has no size dimension.
	Ops         []Op
	Sizes       []int64
	Concurrency []int
	// Iterations measured per (transport, op, size, concurrency); 0 means
	// DefaultIterations.
	Iterations int
	// Rounds splits Iterations into interleaved rounds; 0 means
	// DefaultRounds (fewer when Iterations is smaller).
	Rounds int
	// Warmup operations per (transport, op, size, concurrency), not
	// recorded; 0 means max(2×concurrency, Iterations/20), -1 means none.
	Warmup int
	// AllowHighConcurrency admits concurrency levels above MaxConcurrency,
	// up to HighConcurrency.
	AllowHighConcurrency bool
	// Seed makes the ranged GETs' offsets reproducible: worker w of every
	// transport reads the same sequence of offsets. 0 means DefaultSeed.
	Seed int64
	// Rates, when not empty, add open-loop lines: after a cell's closed
	// loop, each rate is offered to every transport for Duration (split
	// into Rounds), latency measured from the intended start. A percentage
	// rate needs the baseline transport (transport.Baseline) among the
	// transports: it is of its closed-loop ops/s in that cell of this run.
	Rates []Rate
	// Duration is the open loop's measured time per (transport, cell,
	// rate); 0 means DefaultDuration.
	Duration time.Duration
	// Select, when set, chooses the cells to measure by scenario name
	// (the closed loop's; its open-loop lines follow it); nil measures
	// every cell of the dimensions.
	Select func(scenario string) bool
	// ClientFloor adds a lane after the transports: the same client and workers
	// with every request answered from memory (no byte path, no store),
	// target ClientFloor. Its CPU per operation is what the bench's client
	// costs without any transport, measured beside them. Not with ops
	// that list.
	ClientFloor bool
	// Control marks every line as a floor (Record.Control): the raw store
	// path another benchmark's lines are compared with.
	Control bool
	// Quick is recorded in params.
	Quick bool
	// Run gives the run id and provenance shared with other lines; nil
	// means a fresh results.NewRun().
	Run *results.Run
	// Progress, when not nil, receives the run's measurements done of
	// those planned (one per lane, cell and round) under one task named
	// after the endpoint.
	Progress bench.Progress
	// Log, when not nil, receives warnings (one line per transport that
	// fell back).
	Log io.Writer
}

// withDefaults fills empty fields and validates the dimensions.
func (c Config) withDefaults() (Config, error) {
	if len(c.Transports) == 0 {
		c.Transports = DefaultTransports
	}
	if len(c.Ops) == 0 {
		c.Ops = DefaultOps
	}
	if len(c.Sizes) == 0 {
		c.Sizes = DefaultSizes
	}
	if len(c.Concurrency) == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Iterations == 0 {
		c.Iterations = DefaultIterations
	}
	if c.Rounds == 0 {
		c.Rounds = DefaultRounds
	}
	if c.Iterations < 1 {
		return c, fmt.Errorf("%w: iterations %d, want at least 1", ErrBadConfig, c.Iterations)
	}
	if c.Rounds < 1 {
		return c, fmt.Errorf("%w: rounds %d, want at least 1", ErrBadConfig, c.Rounds)
	}
	if c.Rounds > c.Iterations {
		c.Rounds = c.Iterations
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Duration < 0 {
		return c, fmt.Errorf("%w: duration %v", ErrBadConfig, c.Duration)
	}
	if err := CheckRates(c.Rates, c.Transports); err != nil {
		return c, err
	}
	if err := CheckConcurrency(c.Concurrency, c.AllowHighConcurrency); err != nil {
		return c, err
	}
	if c.ClientFloor {
		if err := CheckClientFloor(c.Ops); err != nil {
			return c, err
		}
	}
	if c.Warmup < -1 {
		return c, fmt.Errorf("%w: warmup %d", ErrBadConfig, c.Warmup)
	}
	for _, op := range c.Ops {
		if _, err := ParseOp(string(op)); err != nil {
			return c, err
		}
	}
	for _, s := range c.Sizes {
		if s < 0 || s > MaxSize {
			return c, fmt.Errorf("%w: %d bytes, want 0..%d", ErrBadSize, s, MaxSize)
		}
	}
	maxConc := 0
	for _, n := range c.Concurrency {
		maxConc = max(maxConc, n)
	}
	if c.S3.PoolSize == 0 {
		c.S3.PoolSize = maxConc
	}
	if c.S3.MaxRetries == 0 {
		c.S3.MaxRetries = 1 // count failures, never retry them away
	}
	if c.Run == nil {
		c.Run = results.NewRun()
	}
	if c.EndpointName == "" {
		ep, err := s3.ParseEndpoint(c.S3.Endpoint)
		if err != nil {
			return c, err
		}
		c.EndpointName = ep.Host
	}
	return c, c.S3.Validate()
}

// warmup returns the warm-up operation count for one cell.
func (c Config) warmup(conc int) int {
	switch {
	case c.Warmup == -1:
		return 0
	case c.Warmup > 0:
		return c.Warmup
	default:
		return max(2*conc, c.Iterations/20)
	}
}

// CheckClientFloor rejects ops the floor lane cannot answer: those that list
// (a prepared prefix) rather than read or write one object.
func CheckClientFloor(ops []Op) error {
	for _, op := range ops {
		if spec(op).prepare != nil {
			return fmt.Errorf("%w: the floor answers HEAD, GET, ranged GET and PUT, not %s: leave %s out of --s3-ops or run without --floor", ErrBadConfig, op, op)
		}
	}
	return nil
}

// ParseOps parses a comma-separated list of operations.
func ParseOps(s string) ([]Op, error) {
	var out []Op
	for _, f := range splitList(s) {
		op, err := ParseOp(f)
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty list", ErrBadOp)
	}
	return out, nil
}

// ParseSize parses a size such as "4KiB", "1MiB", "512B" or "1000"
// (binary units, case-insensitive) up to MaxSize.
func ParseSize(s string) (int64, error) {
	n, err := results.ParseByteSize(s, MaxSize)
	switch {
	case errors.Is(err, results.ErrByteSizeTooLarge):
		return 0, fmt.Errorf("%w %q: larger than %s", ErrBadSize, s, FormatSize(MaxSize))
	case err != nil:
		return 0, fmt.Errorf("%w %q: want e.g. 4KiB, 1MiB, 512B", ErrBadSize, s)
	}
	return n, nil
}

// ParseSizes parses a comma-separated list of sizes.
func ParseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range splitList(s) {
		n, err := ParseSize(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty list", ErrBadSize)
	}
	return out, nil
}

// FormatSize names a size the way scenario names do: "4KiB", "1MiB",
// "512B" (the largest binary unit that divides it exactly).
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// ParseConcurrency parses a comma-separated list of integers in
// 1..HighConcurrency; CheckConcurrency applies the MaxConcurrency bound.
func ParseConcurrency(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > HighConcurrency {
			return nil, fmt.Errorf("%w: concurrency %q, want 1..%d (above %d only when allowed)", ErrBadConfig, f, HighConcurrency, MaxConcurrency)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty concurrency list", ErrBadConfig)
	}
	return out, nil
}

// ParseTransports parses a comma-separated list of transport kinds.
func ParseTransports(s string) ([]transport.Kind, error) {
	var out []transport.Kind
	seen := map[transport.Kind]bool{}
	for _, f := range splitList(s) {
		k, err := transport.ParseKind(f)
		if err != nil {
			return nil, err
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty transport list", ErrBadConfig)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// CheckConcurrency rejects a level outside 1..MaxConcurrency, or
// 1..HighConcurrency when allowHigh.
func CheckConcurrency(levels []int, allowHigh bool) error {
	for _, n := range levels {
		switch {
		case n < 1 || n > HighConcurrency:
			return fmt.Errorf("%w: concurrency %d, want 1..%d", ErrBadConfig, n, MaxConcurrency)
		case n > MaxConcurrency && !allowHigh:
			return fmt.Errorf("%w: concurrency %d is above %d: allow it explicitly (up to %d)", ErrBadConfig, n, MaxConcurrency, HighConcurrency)
		}
	}
	return nil
}

// Scenario names a cell: "s3.head.c1", "s3.get.4KiB.c8", "s3.range.8KiB.c64".
func Scenario(op Op, size int64, conc int) string {
	s := spec(op)
	if s.bare {
		return fmt.Sprintf("s3.%s.c%d", op, conc)
	}
	if s.size > 0 {
		size = s.size
	}
	return fmt.Sprintf("s3.%s.%s.c%d", op, FormatSize(size), conc)
}
