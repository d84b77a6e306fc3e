package disturb

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
)

// NeighbourSettings are --background-io and --background-io-rate as
// given: a neighbour writing to the run's file system while it runs (see
// Neighbour). The zero Size is none.
type NeighbourSettings struct {
	Size, Rate string
}

// Config checks b (ErrSettings); a zero Size in the result is no
// neighbour.
func (b NeighbourSettings) Config() (NeighbourConfig, error) {
	if strings.TrimSpace(b.Size) == "" {
		return NeighbourConfig{}, nil
	}
	size, err := parseBytes(b.Size)
	if err != nil || size < 1<<20 {
		return NeighbourConfig{}, usage.Errorf(bench.ErrSettings, "--background-io %q: want a size of at least 1MiB, e.g. 1GiB", b.Size)
	}
	rate, err := parseBytes(b.Rate)
	if err != nil {
		return NeighbourConfig{}, usage.Errorf(bench.ErrSettings, "--background-io-rate %q: want bytes per second, e.g. 128MiB (0 = unthrottled)", b.Rate)
	}
	return NeighbourConfig{Size: size, Rate: rate}, nil
}

// RegisterFlags adds --background-io and --background-io-rate.
func (b *NeighbourSettings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&b.Size, "background-io", "", "run with a neighbour writing a file of this size (e.g. 1GiB) over and over in the run's directory, "+
		"without syncing, from the first scenario to the last; its file is removed when the run ends (none by default)")
	fl.StringVar(&b.Rate, "background-io-rate", "128MiB", "with --background-io: the neighbour's write rate per second (e.g. 64MiB; 0 = as fast as the disk takes it)")
}

// WithNeighbour starts the neighbour cfg in dir/background-io when
// cfg.Size is not 0, and returns next wrapped so that every line says what
// the neighbour did, and the function that stops it and removes its file
// (also when ctx is cancelled by a signal). With a zero Size it returns
// next and a no-op.
func WithNeighbour(ctx context.Context, cfg NeighbourConfig, dir string, next results.Sink) (results.Sink, func() error, error) {
	if cfg.Size == 0 {
		return next, func() error { return nil }, nil
	}
	cfg.Dir = filepath.Join(dir, "background-io")
	n, err := StartNeighbour(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return n.Sink(next), n.Stop, nil
}

// parseBytes reads a byte count such as "1GiB", "128MiB", "4KiB" or
// "1000" (binary units, case-insensitive) up to 1 TiB. (s3bench.ParseSize
// is bounded by the largest object size, far below a neighbour's file.)
func parseBytes(s string) (int64, error) {
	n, err := results.ParseByteSize(s, 1<<40)
	if err != nil {
		return 0, errors.New("want a byte count up to 1TiB")
	}
	return n, nil
}
