package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// writeHistory writes a constructed history: one run of targets × scenarios
// whose service times are centred on us(target, scenario), 10 rounds each,
// with real encoded histograms. It returns the file's path.
func writeHistory(t *testing.T, dir, runID string, seed uint64, us func(target, scenario string) float64, targets, scens []string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	run := &results.Run{ID: runID, Host: results.Host{Hostname: "fixture-host", Cores: 2, CPU: "Test CPU", OS: "linux", Arch: "amd64", Go: "go1.26"},
		Commit: results.Commit{SHA: "ab12cd34ef"}}
	path := filepath.Join(dir, runID+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, s := range scens {
		for _, tg := range targets {
			center := us(tg, s)
			rec := results.NewRecorder()
			var p50s, opss results.Samples
			for range 10 {
				rc := results.NewRecorder()
				shift := 1 + 0.02*(2*rng.Float64()-1)
				for range 200 {
					rc.Record(time.Duration(center * shift * (1 + 0.05*(2*rng.Float64()-1)) * 1e3))
				}
				p50 := float64(rc.Percentile(50)) / 1e3
				p50s, opss = append(p50s, p50), append(opss, 1e6/p50)
				rec.Merge(rc)
			}
			r := run.Result(tg, s, results.Closed, 1, rec, time.Duration(float64(rec.Count())*center*1e3), map[string]any{"tables": 200})
			r.Rounds, r.RoundP50US, r.RoundOpsSec, r.Metric = 10, p50s, opss, results.P50
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}
