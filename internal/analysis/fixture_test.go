package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// fixture builds result lines the way katbench writes them: a real
// recorder, a real encoded histogram, and (when rounds > 0) per-round
// samples in the newer schema.
type fixture struct {
	run     *results.Run
	rng     *rand.Rand
	control *float64 // control_p50_us stamped on every line, when set
	rounds  int      // per-round samples; 0 writes old-schema lines
	metric  results.Metric
	label   string    // --label recorded on every line, when set
	ts      time.Time // the lines' time, when set
	// runShift scales every value of the run: the run-to-run variation
	// (a process, a heap, a moment) that rounds inside one run do not see.
	runShift float64
	counters *results.Counters // stamped on every line, when set
	// cpuUS, when set for a target, is its lines' cpu_us_per_op (±1 % per
	// round), as the transport bench writes it.
	cpuUS map[string]float64
}

func newFixture(runID, host string, seed uint64) *fixture {
	return &fixture{
		run: &results.Run{ID: runID, Host: results.Host{Hostname: host, Cores: 2, CPU: "Test CPU", Kernel: "6.1", Go: "go1.26", OS: "linux", Arch: "amd64"},
			Commit: results.Commit{SHA: "c0ffee" + runID, Dirty: false}},
		rng:      rand.New(rand.NewPCG(seed, seed^0x9e3779b9)),
		rounds:   10,
		runShift: 1,
	}
}

// line measures target/scenario with service times around centerUS (±5 %
// noise per op and ±2 % per round) and returns the encoded JSON line.
func (f *fixture) line(t testing.TB, target, scenario string, centerUS float64) []byte {
	t.Helper()
	rec := results.NewRecorder()
	var p50s, opss results.Samples
	nr := max(f.rounds, 1)
	for range nr {
		rc := results.NewRecorder()
		shift := 1 + 0.02*(f.rng.Float64()*2-1)
		for range 200 {
			v := centerUS * f.runShift * shift * (1 + 0.05*(f.rng.Float64()*2-1))
			rc.Record(time.Duration(v * 1e3))
		}
		p50 := float64(rc.Percentile(50)) / 1e3
		p50s, opss = append(p50s, p50), append(opss, 1e6/p50)
		rec.Merge(rc)
	}
	elapsed := time.Duration(float64(rec.Count()) * centerUS * 1e3)
	r := f.run.Result(target, scenario, results.Closed, 1, rec, elapsed, map[string]any{"tables": 200, "dir": "/tmp/" + f.run.ID})
	if f.control != nil {
		c := *f.control
		r.ControlP50US = &c
	}
	if f.rounds > 0 {
		// The runner's per-round fields, as results.Record writes them.
		r.Rounds, r.RoundP50US, r.RoundOpsSec = nr, p50s, opss
	}
	r.Metric = f.metric
	r.Label = f.label
	if !f.ts.IsZero() {
		r.TS = f.ts.Format(time.RFC3339Nano)
	}
	r.Counters = f.counters
	if c := f.cpuUS[target]; c > 0 {
		rounds := make([]float64, nr)
		for i := range rounds {
			rounds[i] = c * (1 + 0.01*(f.rng.Float64()*2-1))
		}
		r.SetMeasureRounds("cpu_us_per_op", c, results.UnitUSPerOp, results.Lower, rounds)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parse decodes fixture lines.
func parse(t testing.TB, ls ...[]byte) []Line {
	t.Helper()
	out, err := Read(bytes.NewReader(bytes.Join(ls, []byte("\n"))), "fixture")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runs builds n independent runs of one cell around centerUS: each run has
// its own id, seed and a run-to-run shift of up to ±4 %. set, when not
// nil, adjusts each run's fixture.
func runs(t testing.TB, prefix string, n int, seed uint64, target, scenario string, centerUS float64, set func(i int, f *fixture)) []Line {
	t.Helper()
	var out []Line
	rng := rand.New(rand.NewPCG(seed, ^seed))
	for i := range n {
		f := newFixture(fmt.Sprintf("%s%012d", prefix, i), "vm", seed*1000+uint64(i))
		f.runShift = 1 + 0.04*(2*rng.Float64()-1)
		if set != nil {
			set(i, f)
		}
		out = append(out, parse(t, f.line(t, target, scenario, centerUS))...)
	}
	return out
}
