package dataplane

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// TestLinesCarryTheirDims runs the data plane's default scenarios on an
// embedded lane and the raw-S3 baseline on the in-process control store,
// and checks that every line carries exactly the dimensions its
// registered scenario declares, with the run's values: the append its
// rows per append, the baseline's s3.put and s3.get lines their object
// size (the appends' mean file size) and concurrency, the others none.
// Every registered data scenario with dimensions is among them.
func TestLinesCarryTheirDims(t *testing.T) {
	ctl, err := s3.StartControl()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctl.Close() })
	cfg := smallConfig()
	cfg.Rounds, cfg.CommitOps = 1, 2
	cfg.Baseline = &Baseline{Bench: s3bench.Config{
		S3:           s3.Config{Endpoint: ctl.URL(), Bucket: "dims", AccessKey: "k", SecretKey: "s", Region: "us-east-1"},
		EndpointName: "control", StoreInProcess: true, Transports: []transport.Kind{transport.Baseline()},
		Iterations: 2, Rounds: 1, Warmup: -1, Run: cfg.Run,
	}}
	var coll results.Collector
	ctx := context.Background()
	if err := Run(ctx, cfg, []Lane{{Target: "embedded", Transport: "http", Requested: "http", Catalog: openEmbedded(t)}}, &coll); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Baseline.Measure(ctx, &coll); err != nil {
		t.Fatal(err)
	}
	size := float64(cfg.Baseline.Size())
	want := map[string]results.Dims{
		AppendName(cfg.Rows): {results.DimRows: float64(cfg.Rows)},
		ScanName:             nil,
		CommitLatency:        nil,
		s3bench.Scenario(s3bench.Put, int64(size), 1): {results.DimSize: size, results.DimConcurrency: 1},
		s3bench.Scenario(s3bench.Get, int64(size), 1): {results.DimSize: size, results.DimConcurrency: 1},
	}
	// The declared dimensions of each line's scenario: data.append's for
	// the append, data.raw's for the baseline's lines.
	declared := map[string]string{AppendName(cfg.Rows): "data.append"}
	for name := range want {
		if strings.HasPrefix(name, "s3.") {
			declared[name] = RawName
		}
	}
	recs := coll.Snapshot()
	if len(recs) != len(want) {
		t.Errorf("%d lines, want %d", len(recs), len(want))
	}
	covered := map[string]bool{}
	for _, r := range recs {
		w, ok := want[r.Scenario]
		if !ok {
			t.Errorf("unexpected line %s", r.Scenario)
			continue
		}
		if !maps.Equal(r.Dims, w) {
			t.Errorf("%s: dims %v, want %v", r.Scenario, r.Dims, w)
		}
		if stem := declared[r.Scenario]; stem != "" {
			covered[stem] = true
			if got, dims := slices.Sorted(maps.Keys(r.Dims)), declaredDims(t, stem); !slices.Equal(got, dims) {
				t.Errorf("%s: dims %v, want the keys %s declares: %v", r.Scenario, got, stem, dims)
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := results.Decode(b); err != nil || !maps.Equal(back.Dims, w) {
			t.Errorf("%s: decoded dims %v (%v), want %v", r.Scenario, back.Dims, err, w)
		}
	}
	for _, sc := range bench.BenchScenarios(bench.BenchData) {
		if len(sc.Dims) > 0 && !covered[sc.Name] {
			t.Errorf("registered %s has dims %v but no line of the run checked them", sc.Name, sc.Dims)
		}
	}
}

// declaredDims are the dimension names registered scenario name declares,
// sorted.
func declaredDims(t *testing.T, name string) []string {
	t.Helper()
	for _, sc := range bench.BenchScenarios(bench.BenchData) {
		if sc.Name == name {
			var out []string
			for _, d := range sc.Dims {
				out = append(out, string(d))
			}
			slices.Sort(out)
			return out
		}
	}
	t.Fatalf("no registered data scenario %s", name)
	return nil
}

// TestSkippedLinesCarryTheirDims: a target that cannot start gets a
// skipped line per scenario, each with the dims of the level it skips.
func TestSkippedLinesCarryTheirDims(t *testing.T) {
	f, err := competitors.Lookup("rest")
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig()
	store, err := workspace.ParseStore("file://"+t.TempDir(), "", s3.Config{}, cfg.Run.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing listens on port 1: the REST client cannot start.
	target := CompetitorSetup{Factory: f, Name: "rest", Args: []string{"http://127.0.0.1:1"}}
	var coll results.Collector
	if err := RunAll(context.Background(), cfg, []CompetitorSetup{target}, []transport.Kind{transport.Baseline()}, store, t.TempDir(), &coll); err == nil {
		t.Fatal("a target that cannot start ran")
	}
	recs := coll.Snapshot()
	if len(recs) != len(Recorded(cfg)) {
		t.Fatalf("%d lines, want one per recorded scenario %v", len(recs), Recorded(cfg))
	}
	for _, r := range recs {
		var want results.Dims
		if r.Scenario == AppendName(cfg.Rows) {
			want = results.Dims{results.DimRows: float64(cfg.Rows)}
		}
		if r.Skipped == "" || !maps.Equal(r.Dims, want) {
			t.Errorf("%s: skipped %q dims %v, want a skip with %v", r.Scenario, r.Skipped, r.Dims, want)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := results.Decode(b); err != nil || !maps.Equal(back.Dims, want) {
			t.Errorf("%s: decoded dims %v (%v), want %v", r.Scenario, back.Dims, err, want)
		}
	}
}
