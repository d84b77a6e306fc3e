package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

func TestFitGrowth(t *testing.T) {
	// y = 3·x^0.5 exactly at three sizes: exponent 0.5, no spread.
	x := []float64{1e3, 1e4, 1e5}
	y := []float64{3 * math.Sqrt(1e3), 3 * math.Sqrt(1e4), 3 * math.Sqrt(1e5)}
	g, ok := FitGrowth(x, y)
	if !ok || math.Abs(g.Exponent-0.5) > 1e-9 {
		t.Fatalf("FitGrowth = %+v, %v; want exponent 0.5", g, ok)
	}
	// Flat with noise, two rounds per size: an interval around 0.
	x = []float64{1e3, 1e3, 1e4, 1e4, 1e5, 1e5}
	y = []float64{100, 110, 104, 98, 101, 109}
	g, ok = FitGrowth(x, y)
	if !ok || math.IsNaN(g.Lo) || g.Lo > 0 || g.Hi < 0 || g.N != 6 {
		t.Fatalf("flat: %+v, want an interval holding 0 over 6 points", g)
	}
	// Two sizes, one point each: a slope but no interval.
	g, ok = FitGrowth([]float64{1e3, 1e6}, []float64{10, 10_000})
	if !ok || math.Abs(g.Exponent-1) > 1e-9 || !math.IsNaN(g.Lo) {
		t.Fatalf("two sizes: %+v, want exponent 1 and no interval", g)
	}
	if _, ok := FitGrowth([]float64{1e3, 1e3}, []float64{1, 2}); ok {
		t.Fatal("one size: a fit")
	}
	if b, ok := Slope([]float64{1000, 3000}, []float64{5000, 9000}); !ok || b != 2 {
		t.Fatalf("Slope = %v, %v; want 2", b, ok)
	}
}

// restSweep is rest's load_table at 1k and 10k tables: p50 200 µs, p99
// p99(size), server CPU 100 µs per load, 80 MiB peak RSS, 1 KiB of memory
// and 512 bytes of disk per table.
func restSweep(p99 func(size float64) float64) []Line {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	var run []Line
	for _, size := range []float64{1000, 10000} {
		l := Line{Record: results.Record{Target: "rest", Scenario: "load_table.latency", Ops: 100,
			Dims:   results.Dims{results.DimTables: size},
			Params: map[string]any{"tables": size},
			Server: &results.ServerCost{CPUUSPerOp: f(100), RSSPeakBytes: i(80 << 20), RSSAfterBytes: i(int64(size) * 1024),
				StoreBytes: i(int64(size) * 512), Source: "proc"}}}
		l.P50US, l.P99US = f(200), f(p99(size))
		run = append(run, l)
	}
	return run
}

func TestSizingTable(t *testing.T) {
	run := restSweep(func(size float64) float64 { return size / 10 })
	out, err := sizingTable(Block{}, run, RunInfo{ID: "r", Targets: []string{"rest"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| rest | load_table.latency | 1k: 200 µs, 10k: 200 µs | 0.00 (2 sizes: no interval) | 1.00 (2 sizes: no interval) |",
		"| rest | 0.10 | 80 | 97.7 | 48.8 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sizing table lacks %q:\n%s", want, out)
		}
	}
	if _, err := sizingTable(Block{}, []Line{{Record: results.Record{Target: "rest", Ops: 1}}}, RunInfo{ID: "r"}); err == nil {
		t.Error("a run without a sweep: no error")
	}
}

func TestSizingLimitsFindTheFirstSlowSize(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	line := func(target, scenario string, size, p99 float64) Line {
		l := Line{Record: results.Record{Target: target, Scenario: scenario, Ops: 100,
			Dims: results.Dims{results.DimTables: size}}}
		l.P50US, l.P99US = f(p99/2), f(p99)
		return l
	}
	run := []Line{
		// slow: its list p99 crosses 100 ms at 10k, then drops back at
		// 100k — the first crossing is the finding; its load never does.
		line("slow", "list_tables.latency", 1e3, 5e3),
		line("slow", "list_tables.latency", 1e4, 150e3),
		line("slow", "list_tables.latency", 1e5, 90e3),
		line("slow", "load_table.latency", 1e3, 2e3),
		line("slow", "load_table.latency", 1e4, 3e3),
		// stopped: its setup ran out at 10k; the 100k cells are skipped.
		line("stopped", "load_table.latency", 1e3, 1e3),
		line("stopped", "load_table.latency", 1e4, 120e3),
		{Record: results.Record{Target: "stopped", Scenario: "load_table.latency",
			Dims:    results.Dims{results.DimTables: 1e5},
			Skipped: "setup stopped at 10000 tables: --setup-budget 9m0s spent"}},
		// exactly 100 ms is not over it.
		line("edge", "load_table.latency", 1e3, 100e3),
	}
	out, err := sizingTable(Block{Attrs: map[string]string{"rows": "limits"}}, run,
		RunInfo{ID: "r", Targets: []string{"slow", "stopped", "edge", "absent"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| slow | none up to 10k (p99 3 ms) | from 10k (p99 150 ms) | every size |",
		"| stopped | from 10k (p99 120 ms) | — | setup stopped at 10000 tables: --setup-budget 9m0s spent |",
		"| edge | none up to 1k (p99 100 ms) | — | every size |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("limits table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| absent |") {
		t.Errorf("a target without lines has a row:\n%s", out)
	}
}

func TestSizingReadmeRowsJoinDeploymentAndLimits(t *testing.T) {
	run := restSweep(func(size float64) float64 { return size * 20 }) // 20 ms at 1k, 200 ms at 10k
	out, err := sizingTable(Block{Attrs: map[string]string{"rows": "readme"}}, run, RunInfo{ID: "r", Targets: []string{"rest"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "| rest | 0.10 | 97.7 | 48.8 | from 10k (p99 200 ms) | — | every size |"; !strings.Contains(out, want) {
		t.Errorf("readme sizing table lacks %q:\n%s", want, out)
	}
}
