package dataplane

import (
	"regexp"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

func TestWriteTable(t *testing.T) {
	line := func(target, scenario, tr string, ops, errs int64, p50 float64, m map[string]float64) results.Record {
		r := results.Record{Target: target, Scenario: scenario, Transport: tr, Ops: ops, Errors: errs, P50US: p50, Params: map[string]any{}}
		for k, v := range m {
			r.SetMeasure(k, v, "", "")
		}
		return r
	}
	raw := func(r results.Record, op string) results.Record {
		r.Control, r.Params["op"] = true, op
		return r
	}
	recs := []results.Record{
		line("embedded", "data.append.1M", "http", 3, 0, 2000, map[string]float64{"rows_s": 100000.0, "mib_s": 10.0, "files": 3}),
		line("embedded", "data.append.1M", "uring", 3, 0, 1000, map[string]float64{"rows_s": 150000.0, "mib_s": 15.0, "files": 3}),
		line("embedded", "data.scan", "http", 3, 0, 500, map[string]float64{"rows_s": 400000.0, "mib_s": 40.0, "checksum_ok": 1}),
		line("embedded", "data.scan", "uring", 3, 1, 500, map[string]float64{"rows_s": 200000.0, "mib_s": 20.0, "checksum_ok": 0.5}),
		raw(line("http", "s3.put.9MiB.c1", "http", 20, 0, 10, map[string]float64{"mib_s": 100.0}), "put"),
		raw(line("http", "s3.get.9MiB.c1", "http", 20, 0, 10, map[string]float64{"mib_s": 80.0}), "get"),
		line("embedded", "load_table.latency", "", 9, 0, 1, nil), // not a data line: ignored
	}
	var b strings.Builder
	if err := WriteTable(&b, recs, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`uring\s+3\s+1\s+200000\s+20\.0\s+—\s+0\.50\s+0\.00\s+MISMATCH`, // the failed scan says so
		`data\.append\.1M\s+1\.5×\s+0\.5×`,                              // uring/http rows/s, p50
		`data\.scan\s+0\.5×\s+1×`,
		`data\.append\.1M\s+http\s+10\.0\s+s3\.put\.9MiB\.c1\s+100\.0\s+0\.1×`, // vs raw PUT
		`data\.scan\s+http\s+40\.0\s+s3\.get\.9MiB\.c1\s+80\.0\s+0\.5×`,        // vs raw GET
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("table does not match %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "load_table") {
		t.Errorf("table shows a non-data line:\n%s", out)
	}
}
