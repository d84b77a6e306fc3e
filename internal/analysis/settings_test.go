package analysis

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestCompareReport: Report writes the comparison and says a regression
// is one (ErrRegression); a rerun of the same numbers is none; no common
// cells is Compare's ErrNoCommonCells with nothing written. The flags'
// defaults are the ones Options accepts.
func TestCompareReport(t *testing.T) {
	var s CompareSettings
	fl := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	s.RegisterFlags(fl)
	if err := fl.Parse([]string{"--format", "jsonl"}); err != nil {
		t.Fatal(err)
	}
	o, err := s.Options()
	if err != nil || s.Metric != "auto" || s.Format != "jsonl" {
		t.Fatalf("defaults %+v: %v", s, err)
	}
	old := runs(t, "old", 6, 1, "rest", "load_table.latency", 100, nil)
	slower := runs(t, "new", 6, 2, "rest", "load_table.latency", 140, nil)
	same := runs(t, "new", 6, 3, "rest", "load_table.latency", 100, nil)
	var out bytes.Buffer
	if err := s.Report(&out, old, slower, o); !errors.Is(err, ErrRegression) || !strings.Contains(err.Error(), "1 of 1 cells") {
		t.Fatalf("140 vs 100 µs: %v; want ErrRegression of 1 of 1 cells", err)
	}
	if !strings.Contains(out.String(), "load_table.latency") {
		t.Fatalf("nothing written: %q", out.String())
	}
	if err := s.Report(&out, old, same, o); err != nil {
		t.Fatalf("same numbers: %v; want no regression", err)
	}
	out.Reset()
	other := runs(t, "new", 6, 4, "rest", "commit_table.latency", 100, nil)
	if err := s.Report(&out, old, other, o); !errors.Is(err, ErrNoCommonCells) || out.Len() != 0 {
		t.Fatalf("no common cells: %v, wrote %q; want ErrNoCommonCells and nothing", err, out.String())
	}
}
