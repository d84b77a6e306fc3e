package s3bench

import (
	"encoding/json"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// TestCPURatioFromLines: the table's CPU/op ratio column reads the
// per-round CPU of lines as written and as read back from JSON, and is
// blank, never 0, when a line does not carry it.
func TestCPURatioFromLines(t *testing.T) {
	h := results.Record{Params: map[string]any{"cpu_us_per_op_rounds": []float64{10, 20, 30}}}
	h.SetMeasure("cpu_us_per_op", 15, results.UnitUSPerOp, results.Lower)
	var u results.Record
	if err := json.Unmarshal([]byte(`{"params":{"cpu_us_per_op_rounds":[5,8,12]},"measures":{"cpu_us_per_op":{"value":7.5,"unit":"us/op","better":"lower"}}}`), &u); err != nil {
		t.Fatal(err)
	}
	if got, want := CPURatio(h, u), "0.4× [0.4–0.5]"; got != want {
		t.Errorf("CPURatio = %q, want %q", got, want)
	}
	if got := CPURatio(h, results.Record{Params: map[string]any{}}); got != "" {
		t.Errorf("CPURatio without CPU on one side = %q, want blank", got)
	}
	var one results.Record
	one.SetMeasure("cpu_us_per_op", 30, results.UnitUSPerOp, results.Lower)
	if got := CPURatio(h, one); got != "2.00×" {
		t.Errorf("CPURatio without rounds = %q, want the whole-run ratio 2.00×", got)
	}
}
