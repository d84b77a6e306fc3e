package dataplane

import (
	"runtime/debug"
	"testing"
)

func TestAppendMemoryLimit(t *testing.T) {
	for _, c := range []struct{ target, want int64 }{
		{64 << 20, 128 << 20},
		{16 << 20, 128 << 20}, // the floor: what does not shrink with the target
		{256 << 20, 512 << 20},
		{0, 1 << 30}, // iceberg-go's 512 MiB default target
	} {
		if got := AppendMemoryLimit(c.target); got != c.want {
			t.Errorf("AppendMemoryLimit(%d) = %d, want %d", c.target, got, c.want)
		}
	}
}

func TestWithMemoryLimitRestores(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	var inside int64
	withMemoryLimit(200<<20, func() { inside = debug.SetMemoryLimit(-1) })
	if inside != 200<<20 {
		t.Errorf("limit inside = %d, want %d", inside, 200<<20)
	}
	if after := debug.SetMemoryLimit(-1); after != prev {
		t.Errorf("limit after = %d, want the previous %d", after, prev)
	}
	withMemoryLimit(0, func() { inside = debug.SetMemoryLimit(-1) })
	if inside != prev {
		t.Errorf("limit 0 changed the process's limit to %d", inside)
	}
}

func TestPeakRSS(t *testing.T) {
	if got := peakRSS(); got < 1<<20 {
		t.Errorf("peak RSS %d bytes: a Go test binary holds more than 1 MiB", got)
	}
}
