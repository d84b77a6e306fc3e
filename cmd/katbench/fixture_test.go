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
			var rounds []map[string]float64
			for range 10 {
				rc := results.NewRecorder()
				shift := 1 + 0.02*(2*rng.Float64()-1)
				for range 200 {
					rc.Record(time.Duration(center * shift * (1 + 0.05*(2*rng.Float64()-1)) * 1e3))
				}
				p50 := float64(rc.Percentile(50)) / 1e3
				rounds = append(rounds, map[string]float64{"p50_us": p50, "p99_us": float64(rc.Percentile(99)) / 1e3, "ops_sec": 1e6 / p50})
				rec.Merge(rc)
			}
			r := run.Result(tg, s, results.Closed, 1, rec, time.Duration(float64(rec.Count())*center*1e3), map[string]any{"tables": 200})
			b, _ := json.Marshal(r)
			var m map[string]any
			_ = json.Unmarshal(b, &m)
			m["schema"], m["rounds"] = 2, rounds
			if err := enc.Encode(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}
