package workload

import (
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// fakeStep is a step of a target whose p99 is fast below knee ops/s and
// slow from it on, and which keeps every rate up to keepUpTo: the
// decision logic alone, with no measurement.
func fakeStep(c Capacity, rate, knee, keepUpTo float64) CapacityStep {
	lat := time.Millisecond
	if rate >= knee {
		lat = 80 * time.Millisecond
	}
	rec := results.NewRecorder()
	for range 1000 {
		rec.Record(lat)
	}
	achieved := rate
	if rate > keepUpTo {
		achieved = keepUpTo
	}
	st := CapacityStep{Rate: rate, Achieved: achieved, Ops: 1000, Rec: rec}
	c.Judge(&st, rec, map[string]*results.Recorder{"load_table": rec})
	return st
}

func search(t *testing.T, c Capacity, knee, keepUpTo float64) *CapacitySearch {
	t.Helper()
	s := NewCapacitySearch(c)
	for i := 0; !s.Done; i++ {
		if i > 100 {
			t.Fatal("search did not end in 100 steps")
		}
		s.Record(fakeStep(c, s.Next(), knee, keepUpTo))
	}
	return s
}

func testCapacity(t *testing.T, slo string) Capacity {
	t.Helper()
	c := DefaultCapacity(true)
	s, err := ParseSLO(slo)
	if err != nil {
		t.Fatal(err)
	}
	c.SLO = s
	return c
}

func TestCapacitySearchStepsThenBisects(t *testing.T) {
	c := testCapacity(t, "p99<=50ms")
	s := search(t, c, 5000, 1e9)
	var rates []float64
	for _, st := range s.Steps {
		rates = append(rates, st.Rate)
	}
	// 100, 200, … 3200 met; 6400 broke; then bisection in geometric means.
	want := []float64{100, 200, 400, 800, 1600, 3200, 6400}
	for i, r := range want {
		if rates[i] != r {
			t.Fatalf("steps %v, want %v first", rates, want)
		}
	}
	if len(rates) != len(want)+c.Bisections {
		t.Fatalf("steps %v: want %d bisection steps after the first bad rate", rates, c.Bisections)
	}
	best, ok := s.MaxRate()
	if !ok || best >= 5000 || best < 5000/(1+0.2) {
		t.Fatalf("max rate %v (ok %v), want just below the knee at 5000", best, ok)
	}
	for _, st := range s.Steps {
		if st.Met != (st.Rate < 5000) {
			t.Fatalf("step at %v met=%v (%s)", st.Rate, st.Met, st.Why)
		}
		if !st.Met && !strings.Contains(st.Why, "p99") {
			t.Fatalf("step at %v broke for %q, want the p99", st.Rate, st.Why)
		}
	}
}

// A target that cannot keep the rate breaks the objective even when its
// latency is fine: the loop would otherwise have turned closed.
func TestCapacitySearchRateNotKept(t *testing.T) {
	c := testCapacity(t, "p99<=50ms")
	s := search(t, c, 1e9, 1000)
	best, ok := s.MaxRate()
	if !ok || best > 1000/0.95 || best < 800 {
		t.Fatalf("max rate %v, want ≈ 1000 (the rate kept)", best)
	}
	broken := false
	for _, st := range s.Steps {
		if !st.Met {
			broken = true
			if st.Kept || !strings.Contains(st.Why, "rate not kept") {
				t.Fatalf("step at %v: kept %v why %q", st.Rate, st.Kept, st.Why)
			}
		}
	}
	if !broken {
		t.Fatal("no step broke")
	}
}

func TestCapacitySearchEnds(t *testing.T) {
	c := testCapacity(t, "p99<=50ms")
	c.MaxRate = 1000
	s := search(t, c, 1e9, 1e9)
	if best, _ := s.MaxRate(); best != 1000 || len(s.Steps) != 5 || !strings.Contains(s.End, "maximum") {
		t.Fatalf("max %v after %d steps (%s), want the cap 1000 after 100…800, 1000", best, len(s.Steps), s.End)
	}
	// Broken from the start: steps down to MinRate, then no answer.
	s = search(t, c, 1, 1e9)
	if _, ok := s.MaxRate(); ok || len(s.Steps) != 4 || !strings.Contains(s.End, "no rate") {
		t.Fatalf("%d steps, end %q", len(s.Steps), s.End)
	}
	// An objective on one operation breaks where the mix's does not.
	c = testCapacity(t, "p99<=100ms,load_table:p99<=10ms")
	s = search(t, c, 5000, 1e9)
	if best, ok := s.MaxRate(); !ok || best >= 5000 {
		t.Fatalf("max rate %v, want below the knee", best)
	}
	if last := s.Steps[6]; last.Met || !strings.Contains(last.Why, "load_table:p99") || last.Values["p99"] < 79_900 || last.Values["p99"] > 80_100 {
		t.Fatalf("step at 6400: met %v why %q values %v", last.Met, last.Why, last.Values)
	}
}

func TestCapacitySettings(t *testing.T) {
	c := testCapacity(t, "p99<=50ms")
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*Capacity){
		func(c *Capacity) { c.Factor = 1 }, func(c *Capacity) { c.StartRate = 0 }, func(c *Capacity) { c.MaxRate = 10 },
		func(c *Capacity) { c.Keep = 0 }, func(c *Capacity) { c.StepDuration = 0 }, func(c *Capacity) { c.SLO = SLO{} },
	} {
		cc := c
		bad(&cc)
		if cc.Validate() == nil {
			t.Errorf("%+v accepted", cc)
		}
	}
	if d := c.StepDurationAt(100); d != 10*time.Second {
		t.Fatalf("1000 ops at 100/s: step %v, want 10 s (capped at 10× the 1 s step)", d)
	}
	if d := c.StepDurationAt(1e5); d != time.Second {
		t.Fatalf("step at 100k/s: %v", d)
	}
}
