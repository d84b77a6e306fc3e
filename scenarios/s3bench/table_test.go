package s3bench

import (
	"encoding/json"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// TestCPURatioFromLines: the table's CPU/op ratio column reads the
// per-round CPU of lines as written and as read back from JSON (an older
// line's rounds kept in params included), and is
// blank, never 0, when a line does not carry it.
func TestCPURatioFromLines(t *testing.T) {
	var h results.Record
	h.SetMeasureRounds("cpu_us_per_op", 15, results.UnitUSPerOp, results.Lower, []float64{10, 20, 30})
	old, err := results.Decode([]byte(`{"schema":3,"run_id":"r","target":"uring","scenario":"s3.get.4KiB.c1","params":{"cpu_us_per_op_rounds":[5,8,12]},"measures":{"cpu_us_per_op":{"value":7.5,"unit":"us/op","better":"lower"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var u results.Record
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	for _, u := range []results.Record{old, u} {
		if got, want := CPURatio(h, u), "0.4× [0.4–0.5]"; got != want {
			t.Errorf("CPURatio = %q, want %q", got, want)
		}
	}
	if got := CPURatio(h, results.Record{Params: map[string]any{}}); got != "" {
		t.Errorf("CPURatio without CPU on one side = %q, want blank", got)
	}
	var one results.Record
	one.SetMeasure("cpu_us_per_op", 30, results.UnitUSPerOp, results.Lower)
	if got := CPURatio(h, one); got != "2×" {
		t.Errorf("CPURatio without rounds = %q, want the whole-run ratio 2×", got)
	}
}
