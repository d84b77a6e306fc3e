package scenarios_test

import (
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// TestCapacityMaxRateIsAMeasure: a capacity line carries its max_rate as a
// typed measurement (ops/s, higher better), the value its params state;
// a search where nothing met the objective has none.
func TestCapacityMaxRateIsAMeasure(t *testing.T) {
	got := runMix(t, capacityOptions(t, "read-heavy", "p99<=10s"), "embedded")
	rec := got["embedded capacity.read-heavy"]
	m, ok := rec.Measures["max_rate"]
	if !ok || m.Unit != results.UnitOpsPerSec || m.Better != results.Higher || m.Value <= 0 || m.Value != rec.Params["max_rate"] {
		t.Fatalf("max_rate measure %+v (%v), params.max_rate %v", m, ok, rec.Params["max_rate"])
	}
	got = runMix(t, capacityOptions(t, "load_table=1", "p50<=1ns"), "embedded")
	if m, ok := got["embedded capacity.custom"].Measures["max_rate"]; ok {
		t.Fatalf("a search that met nothing states a capacity: %+v", m)
	}
}
