package main

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// backgroundIOFlags are --background-io and --background-io-rate: a
// neighbour writing to the run's file system while it runs (see
// scenarios.Neighbour).
type backgroundIOFlags struct {
	size, rate string
	cfg        scenarios.NeighbourConfig // parsed by apply; Size 0 = none
}

func (b *backgroundIOFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&b.size, "background-io", "", "run with a neighbour writing a file of this size (e.g. 1GiB) over and over in the run's directory, "+
		"without syncing, from the first scenario to the last; its file is removed when the run ends (none by default)")
	fl.StringVar(&b.rate, "background-io-rate", "128MiB", "with --background-io: the neighbour's write rate per second (e.g. 64MiB; 0 = as fast as the disk takes it)")
}

// apply parses the flags, before anything is created.
func (b *backgroundIOFlags) apply() error {
	b.cfg = scenarios.NeighbourConfig{}
	if strings.TrimSpace(b.size) == "" {
		return nil
	}
	size, err := parseBytes(b.size)
	if err != nil || size < 1<<20 {
		return usagef("--background-io %q: want a size of at least 1MiB, e.g. 1GiB", b.size)
	}
	rate, err := parseBytes(b.rate)
	if err != nil {
		return usagef("--background-io-rate %q: want bytes per second, e.g. 128MiB (0 = unthrottled)", b.rate)
	}
	b.cfg = scenarios.NeighbourConfig{Size: size, Rate: rate}
	return nil
}

// start starts the neighbour in dir/background-io when --background-io
// was given, and returns next wrapped so that every line says what the
// neighbour did, and the function that stops it and removes its file
// (also when ctx is cancelled by a signal). Without the flag it returns
// next and a no-op.
func (b *backgroundIOFlags) start(ctx context.Context, dir string, next results.Sink) (results.Sink, func() error, error) {
	if b.cfg.Size == 0 {
		return next, func() error { return nil }, nil
	}
	cfg := b.cfg
	cfg.Dir = filepath.Join(dir, "background-io")
	n, err := scenarios.StartNeighbour(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return n.Sink(next), n.Stop, nil
}

// parseBytes reads a byte count such as "1GiB", "128MiB", "4KiB" or
// "1000" (binary units, case-insensitive) up to 1 TiB. (s3bench.ParseSize
// is bounded by the largest object size, far below a neighbour's file.)
func parseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"b", 1}} {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/mult {
		return 0, errors.New("want a byte count up to 1TiB")
	}
	return n * mult, nil
}
