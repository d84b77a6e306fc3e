package analysis

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordedABSessions holds the decision rules to real `katbench ab`
// sessions recorded on a shared 2-core VM (scripts/ab-calibration.sh;
// testdata/ab, result lines as written, histograms left out):
//
//   - aa-*: the same binary on both sides. No cell may read as slower,
//     faster or a regression at the default settings.
//   - slow<US>-*: the new side's rest scenarios (not its control) slowed
//     by US µs per operation (KATBENCH_TEST_DELAY_US=rest:US). A
//     regression must be found on a slowed cell, and none anywhere else.
func TestRecordedABSessions(t *testing.T) {
	files, err := filepath.Glob("testdata/ab/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded sessions in testdata/ab")
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			lines, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			old, nw, err := SplitAB(lines)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Compare(old, nw, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.OldRuns < 4 || c.NewRuns < 4 {
				t.Fatalf("%d/%d runs: a session of fewer than 4 runs a side decides nothing", c.OldRuns, c.NewRuns)
			}
			switch {
			case strings.HasPrefix(name, "aa-"):
				for _, r := range c.Rows {
					if r.Regression || r.Verdict == Slower || r.Verdict == Faster {
						t.Errorf("A/A: %s %s %s: %s (delta %+.1f %%, q %v)", r.Target, r.Scen, r.Metric, r.VerdictText(), 100*r.Delta, fmtP(r.Q))
					}
				}
			case strings.HasPrefix(name, "slow"):
				found := 0
				for _, r := range c.Rows {
					slowed := r.Target == "rest" && r.Scen != "control.latency" && (r.Metric == P50.Name || r.Metric == OpsSec.Name)
					if r.Regression && !slowed {
						t.Errorf("%s %s %s: %s, but only rest's scenarios were slowed", r.Target, r.Scen, r.Metric, r.VerdictText())
					}
					if r.Regression && slowed {
						found++
					}
				}
				if found == 0 {
					t.Errorf("injected slowdown not found as a regression:\n%s", textOf(t, c))
				}
			default:
				t.Fatalf("%s: name it aa-* or slow<US>-*", name)
			}
		})
	}
}

func textOf(t *testing.T, c Comparison) string {
	t.Helper()
	var b strings.Builder
	if err := WriteCompareText(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
