package analysis

import (
	"encoding/json"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

func TestMeasuresRoundTripAndLegacyUpgrade(t *testing.T) {
	rec := results.Record{Schema: results.SchemaVersion, RunID: "r", Target: "http", Scenario: "s3.get.4KiB.c1", Ops: 3, Control: true,
		Params: map[string]any{"mib_s": 1.0}}
	rec.SetMeasure("mib_s", 812.5, results.UnitMiBPerSec, results.Higher)
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLine(b)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := l.Measure("mib_s")
	if !ok || m.Value != 812.5 || m.Unit != results.UnitMiBPerSec || m.Better != results.Higher || !l.Control {
		t.Fatalf("schema 3 line: measure %+v %v, control %v", m, ok, l.Control)
	}
	if _, ok := l.Measure("rows_s"); ok {
		t.Fatal("a schema 3 line has only the measures it carries")
	}

	old := []byte(`{"schema":2,"run_id":"r","target":"embedded","scenario":"control.latency","ops":1,"params":{"mib_s":40.5,"files":3}}`)
	l, err = ParseLine(old)
	if err != nil {
		t.Fatal(err)
	}
	m, ok = l.Measure("mib_s")
	if !ok || m.Value != 40.5 || m.Unit != results.UnitMiBPerSec || !l.Control {
		t.Fatalf("schema 2 line: measure %+v %v, control %v", m, ok, l.Control)
	}
	if f, ok := l.Measure("files"); !ok || f.Value != 3 || f.Better != "" {
		t.Fatalf("schema 2 files: %+v %v", f, ok)
	}
	skipped := []byte(`{"schema":2,"run_id":"r","target":"embedded","scenario":"x","skipped":"why","params":{"mib_s":40.5}}`)
	if l, err = ParseLine(skipped); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Measure("mib_s"); ok {
		t.Fatal("a skipped line has no measurement")
	}
	if l.Control {
		t.Fatal("only the control scenario is a control on an old line")
	}
}
