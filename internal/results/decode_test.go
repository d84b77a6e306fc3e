package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
)

// TestDecodeRoundTrip: a line a Record writes decodes back into the same
// Record: one type for writer and reader.
func TestDecodeRoundTrip(t *testing.T) {
	c := 12.5
	w := Record{Schema: SchemaVersion, TS: "2026-12-01T00:00:00Z", RunID: "r", Target: "rest", Scenario: "control.latency",
		Loop: Closed, Kind: "latency", Metric: P50, Better: Lower, Threads: 1, Ops: 10, DurationS: 1, OpsSec: 10,
		P50US: 3, P99US: 4, P999US: 5, MaxUS: 6, MeanUS: 3.5, ControlP50US: &c, Rounds: 2, RoundP50US: Samples{3, 3.5},
		Params: map[string]any{"tables": 200.0}, Control: true, Command: []string{"katbench", "run", "rest"},
		Host: Host{Hostname: "h"}, Commit: Commit{SHA: "abc"}}
	w.SetMeasure("mib_s", 81.5, UnitMiBPerSec, Higher)
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != string(b) {
		t.Fatalf("round trip changed the line:\n%s\n%s", b, back)
	}
}

func TestDecodeUpgradesOldSchemas(t *testing.T) {
	for _, schema := range []string{``, `"schema":2,`} {
		r, err := Decode([]byte(`{` + schema + `"run_id":"r","target":"rest","scenario":"control.latency","ops":1,"p50_us":2,
			"params":{"mib_s":40.5,"files":3,"rows_s":"many"},"command":"katbench run 'a b'"}`))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Control || r.Loop != Closed {
			t.Errorf("schema %q: control %v loop %q", schema, r.Control, r.Loop)
		}
		if m := r.Measures["mib_s"]; m.Value != 40.5 || m.Unit != UnitMiBPerSec || m.Better != Higher {
			t.Errorf("schema %q: mib_s %+v", schema, m)
		}
		if _, ok := r.Measures["rows_s"]; ok {
			t.Errorf("schema %q: a param that is not a number became a measurement", schema)
		}
		if !slices.Equal(r.Command, []string{"katbench", "run", "'a b'"}) {
			t.Errorf("schema %q: command %q", schema, r.Command)
		}
	}
	// Schema 3 says itself what is a control, and a line with measures
	// says what is a measurement.
	r, err := Decode([]byte(`{"schema":3,"run_id":"r","target":"rest","scenario":"control.latency","params":{"mib_s":40.5},"measures":{"rows_s":{"value":2,"unit":"rows/s"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Control || len(r.Measures) != 1 {
		t.Errorf("schema 3 line upgraded: control %v measures %v", r.Control, r.Measures)
	}
	// A schema 3 line with no measures at all was written before its
	// writer moved them out of params: they are read from there.
	if r, err = Decode([]byte(`{"schema":3,"run_id":"r","target":"http","scenario":"s3.get.4KiB.c1","params":{"mib_s":40.5}}`)); err != nil {
		t.Fatal(err)
	}
	if m, ok := r.Measures["mib_s"]; r.Control || !ok || m.Value != 40.5 {
		t.Errorf("schema 3 line without measures: control %v measures %v", r.Control, r.Measures)
	}
}

// TestDecodeUpgradesRoundLists: per-round lists and an open loop's
// achieved rate kept in params (schema 2, and schema 3 lines written
// before they were typed) become measures and leave params; a list with no
// measurement to carry it stays where it was.
func TestDecodeUpgradesRoundLists(t *testing.T) {
	for _, line := range []string{
		`{"schema":2,"run_id":"r","target":"uring","scenario":"data.scan","params":{"rows_s":100,"rows_s_rounds":[90,110],"achieved_rate":1990.5}}`,
		`{"schema":3,"run_id":"r","target":"uring","scenario":"data.scan","params":{"rows_s_rounds":[90,110],"achieved_rate":1990.5},"measures":{"rows_s":{"value":100,"unit":"rows/s","better":"higher"}}}`,
	} {
		r, err := Decode([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.MeasureRounds("rows_s"); !slices.Equal(got, []float64{90, 110}) {
			t.Errorf("%s: rows_s rounds %v, want [90 110]", line, got)
		}
		if m := r.Measures["achieved_rate"]; m.Value != 1990.5 || m.Unit != UnitOpsPerSec || m.Better != Higher {
			t.Errorf("%s: achieved_rate %+v", line, m)
		}
		if _, ok := r.Params["rows_s_rounds"]; ok {
			t.Errorf("%s: rows_s_rounds still in params", line)
		}
		if _, ok := r.Params["achieved_rate"]; ok {
			t.Errorf("%s: achieved_rate still in params", line)
		}
	}
	r, err := Decode([]byte(`{"schema":3,"run_id":"r","target":"http","scenario":"s3.get.4KiB.c1","params":{"cpu_us_per_op_rounds":[1,2]},"measures":{"mib_s":{"value":1,"unit":"MiB/s"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Params["cpu_us_per_op_rounds"]; !ok || r.MeasureRounds("cpu_us_per_op") != nil {
		t.Errorf("rounds without their measurement: params %v measures %v", r.Params, r.Measures)
	}
}

func TestDecodeBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      `not json`,
		"no identity":   `{"target":"t","scenario":"s"}`,
		"bad ts":        `{"run_id":"a","target":"t","scenario":"s","ts":"yesterday"}`,
		"wrong type":    `{"run_id":"a","target":"t","scenario":"s","ops":"many"}`,
		"round objects": `{"run_id":"a","target":"t","scenario":"s","rounds":[{"p50_us":1}]}`,
		"command":       `{"run_id":"a","target":"t","scenario":"s","command":3}`,
	} {
		if _, err := Decode([]byte(in)); !errors.Is(err, ErrBadLine) {
			t.Errorf("%s: %v, want ErrBadLine", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"run_id":"r","target":"t","scenario":"s","ops":3,"p50_us":4,"params":{"mib_s":1},"command":"a 'b"}`))
	f.Add([]byte(`{"schema":3,"run_id":"r","target":"http","scenario":"s3.get.4KiB.c8.open.50pct","loop":"open","threads":8,"params":{"op":"get","concurrency":8,"size_bytes":4096,"rate":10.5,"rate_spec":"NaN%"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		if r.RunID == "" || r.Target == "" || r.Scenario == "" {
			t.Fatal("accepted a line without identity")
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("a decoded line does not encode: %v", err)
		}
	})
}

// TestDecodeUpgradesOldDataLine: a real schema 2 data.scan line (katbench
// data --quick of a build before measures) keeps its phase times, its
// boolean checksum and its per-round rows/s in params; Decode makes each a
// measurement with its unit.
func TestDecodeUpgradesOldDataLine(t *testing.T) {
	b, err := os.ReadFile("testdata/schema2_data_scan.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(bytes.TrimSpace(b))
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != 2 || r.Scenario != "data.scan" {
		t.Fatalf("fixture: schema %d scenario %s, want a schema 2 data.scan line", r.Schema, r.Scenario)
	}
	for name, want := range map[string]Measure{
		"plan_s":      {Value: 0.017188955, Unit: "s"},
		"verify_s":    {Value: 0.163416727, Unit: "s"},
		"checksum_ok": {Value: 1, Unit: UnitRatio, Better: Higher},
		"rows_s":      {Value: 1791768.7969074247, Unit: UnitRowsPerSec, Better: Higher},
	} {
		got, ok := r.Measures[name]
		if !ok || got.Value != want.Value || got.Unit != want.Unit || got.Better != want.Better {
			t.Errorf("measure %s = %+v (present %v), want %+v", name, got, ok, want)
		}
	}
	if n := len(r.Measures["rows_s"].Rounds); n != 3 {
		t.Errorf("rows_s has %d rounds, want the line's 3 (params.rounds)", n)
	}
}
