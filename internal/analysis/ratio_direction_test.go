package analysis

import "testing"

// A ratio column reads one way on every row: B / A above 1 means B is
// slower, whether the row is a time (lower is better) or ops/s (higher is
// better), with and without per-round samples.
func TestTimeRatioReadsOneWayOnEveryRow(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	fast := Line{P50US: f(10), OpsSec: f(1000)}
	slow := Line{P50US: f(40), OpsSec: f(250)}
	fast.Ops, slow.Ops = 100, 100
	cell := map[[2]string]Line{{"fast", "s"}: fast, {"slow", "s"}: slow}
	for _, m := range []Metric{P50, OpsSec} {
		if got := timeRatioText(cell, "slow", "fast", rowSpec{"s", m}); got != "4×" {
			t.Errorf("%s: slow / fast = %q, want 4×", m.Name, got)
		}
		if got := timeRatioText(cell, "fast", "slow", rowSpec{"s", m}); got != "0.25×" {
			t.Errorf("%s: fast / slow = %q, want 0.25×", m.Name, got)
		}
	}
	fast.Rounds = []Round{{OpsSec: f(1000)}, {OpsSec: f(800)}, {OpsSec: f(1200)}}
	slow.Rounds = []Round{{OpsSec: f(250)}, {OpsSec: f(100)}, {OpsSec: f(400)}}
	cell = map[[2]string]Line{{"fast", "s"}: fast, {"slow", "s"}: slow}
	if got, want := timeRatioText(cell, "slow", "fast", rowSpec{"s", OpsSec}), "4× [3–8]"; got != want {
		t.Errorf("per-round slow / fast ops/s = %q, want %q", got, want)
	}
}

// A line whose binary could not tell its commit says so in words, never
// "unknown" dressed as a revision.
func TestProvenanceSaysWhenTheCommitIsNotRecorded(t *testing.T) {
	l := Line{}
	l.Commit.SHA = "unknown"
	if _, _, ok := buildRevision(l); ok {
		t.Fatal("buildRevision accepted \"unknown\" as a revision")
	}
	l.Commit.SHA = "0123456789abcdef"
	l.Commit.Dirty = true
	if sha, state, ok := buildRevision(l); !ok || sha != "0123456789ab" || state != "dirty" {
		t.Fatalf("buildRevision = %q %q %v", sha, state, ok)
	}
	// Named at link time: the revision, but no word on its tree.
	l.Commit.Dirty, l.Commit.Source = false, "ldflags"
	if sha, state, ok := buildRevision(l); !ok || sha != "0123456789ab" || state != "unchecked" {
		t.Fatalf("buildRevision of an ldflags revision = %q %q %v", sha, state, ok)
	}
}
