package dataset_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nordisk/katbench/dataset"
)

func TestShapeFor(t *testing.T) {
	for _, c := range []struct{ tables, want int }{{200, 200}, {10_000, 10_000}, {1, 4}, {201, 204}} {
		if got := dataset.ShapeFor(c.tables).Tables(); got != c.want {
			t.Errorf("ShapeFor(%d).Tables() = %d, want %d", c.tables, got, c.want)
		}
	}
	if err := (dataset.Shape{Width: 0, Depth: 1, TablesPerLeaf: 1}).Validate(); err == nil {
		t.Error("width 0 accepted")
	}
}

// TestHistoryValidate rejects histories that cannot be built.
func TestHistoryValidate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"-1", "want 0..100000"},
		{"abc", "is not a snapshot count"},
		{"", "is not a snapshot count"},
		{"100,100", "given twice"},
		{"100001", "want 0..100000"},
	} {
		if _, err := dataset.ParseSnapshotLevels(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSnapshotLevels(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
	got, err := dataset.ParseSnapshotLevels("1000, 0,100")
	if err != nil || fmt.Sprint(got) != "[0 100 1000]" {
		t.Errorf("ParseSnapshotLevels = %v, %v; want [0 100 1000]", got, err)
	}
	for _, h := range []dataset.History{
		{Levels: []int{1}, Tables: 0, Build: dataset.HistoryAuto},
		{Levels: []int{1}, Tables: 1, Build: "copy"},
	} {
		if err := h.Validate(); err == nil {
			t.Errorf("%+v: Validate = nil, want an error", h)
		}
	}
	small := dataset.History{Levels: []int{100}, Tables: 1, Build: dataset.HistoryAuto}
	big := dataset.History{Levels: []int{10_000}, Tables: 1, Build: dataset.HistoryAuto}
	if s, b := small.EstimateBytes(100), big.EstimateBytes(100); s <= 0 || b < 50*s {
		t.Errorf("EstimateBytes: %d for 100 snapshots, %d for 10,000; want the deeper level to need far more", s, b)
	}
}
