package disturb

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/nordisk/katbench/bench"
)

// TestNeighbourSettings: sizes in binary units; below 1MiB, a negative
// or unreadable size or rate is ErrSettings naming the flag; no size is
// no neighbour, and WithNeighbour then passes the sink through.
func TestNeighbourSettings(t *testing.T) {
	cfg, err := NeighbourSettings{Size: "2MiB", Rate: "0"}.Config()
	if err != nil || cfg.Size != 2<<20 || cfg.Rate != 0 {
		t.Fatalf("Config = %+v, %v", cfg, err)
	}
	cfg, err = NeighbourSettings{Size: " 1gib ", Rate: "64MiB"}.Config()
	if err != nil || cfg.Size != 1<<30 || cfg.Rate != 64<<20 {
		t.Fatalf("Config = %+v, %v", cfg, err)
	}
	for _, c := range []struct {
		s    NeighbourSettings
		want string
	}{
		{NeighbourSettings{Size: "lots"}, "--background-io"},
		{NeighbourSettings{Size: "-1GiB"}, "--background-io"},
		{NeighbourSettings{Size: "4KiB"}, "--background-io"},
		{NeighbourSettings{Size: "2TiB"}, "--background-io"},
		{NeighbourSettings{Size: "1GiB", Rate: "fast"}, "--background-io-rate"},
		{NeighbourSettings{Size: "1GiB", Rate: "-5MiB"}, "--background-io-rate"},
	} {
		if _, err := c.s.Config(); !errors.Is(err, bench.ErrSettings) || !strings.HasPrefix(err.Error(), c.want+" ") {
			t.Errorf("%+v: %v; want ErrSettings naming %s", c.s, err, c.want)
		}
	}
	cfg, err = NeighbourSettings{Rate: "128MiB"}.Config()
	if err != nil || cfg.Size != 0 {
		t.Fatalf("no size: %+v, %v", cfg, err)
	}
	dir := t.TempDir()
	sink, stop, err := WithNeighbour(t.Context(), cfg, dir, nil)
	if err != nil || sink != nil || stop() != nil {
		t.Fatalf("WithNeighbour without a size: %v, %v", sink, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("WithNeighbour without a size wrote %v", entries)
	}
}
