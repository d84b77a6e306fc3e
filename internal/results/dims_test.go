package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"
)

// TestDecodeFillsDimsOfHistoryLines: lines of schemas 1–3 copied as
// written from bench_history.jsonl (testdata/history_lines.jsonl) decode
// with the dims of their level, taken from where their writers kept it.
func TestDecodeFillsDimsOfHistoryLines(t *testing.T) {
	want := map[string]Dims{
		// schema 2: concurrency and a GET's size from params.
		"s3.get.4KiB.c8": {DimSize: 4096, DimConcurrency: 8},
		// schema 2: the raw-S3 baseline's PUT at the appends' file size.
		"s3.put.14890KiB.c1": {DimSize: 15247360, DimConcurrency: 1},
		// schema 3: an open loop at a percentage of the closed maximum,
		// the absolute rate offered beside it; a HEAD has no size.
		"s3.head.c64.open.50pct":     {DimConcurrency: 64, DimRate: 1420.5147599452646, DimRatePct: 50},
		"s3.get.4KiB.c64.open.75pct": {DimSize: 4096, DimConcurrency: 64, DimRate: 1470.6118710546157, DimRatePct: 75},
		// schema 1 (no schema field).
		"s3.head.c1": {DimConcurrency: 1},
		// schema 2 data line: rows per append from params; threads 1 is
		// no dimension of it.
		"data.append.500k": {DimRows: 500_000},
		// catalog lines, measured and skipped, and a capacity search.
		"commit_table.throughput.t32": {DimThreads: 32},
		"load_table.throughput.t4":    {DimThreads: 4},
		"load_table.latency":          {DimThreads: 1},
		"capacity.read-heavy":         {DimThreads: 64},
	}
	b, err := os.ReadFile("testdata/history_lines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		r, err := Decode(line)
		if err != nil {
			t.Fatal(err)
		}
		if r.Schema >= 4 {
			t.Fatalf("%s: schema %d, want a line older than dims", r.Scenario, r.Schema)
		}
		w, ok := want[r.Scenario]
		if !ok {
			t.Fatalf("unexpected fixture line %s", r.Scenario)
		}
		seen[r.Scenario] = true
		if !maps.Equal(r.Dims, w) {
			t.Errorf("%s (schema %d): dims %v, want %v", r.Scenario, r.Schema, r.Dims, w)
		}
		if r.Scenario == "s3.get.4KiB.c8" && r.Params["concurrency"] != 8.0 {
			t.Errorf("%s: params.concurrency %v: the upgrade keeps params as written", r.Scenario, r.Params["concurrency"])
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no fixture line for %s", name)
		}
	}
}

// TestDecodeFillsDimsOfTheWholeHistory: every line of the committed
// history decodes with its level: an S3 line's concurrency (a GET's or
// PUT's size too, an open loop's rate), a data append's rows, a catalog
// line's threads, each equal to what the line says elsewhere.
func TestDecodeFillsDimsOfTheWholeHistory(t *testing.T) {
	f, err := os.Open("../../bench_history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	n := 0
	for sc.Scan() {
		r, err := Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		var p struct {
			MergedFrom []string `json:"merged_from"`
			Params     struct {
				Concurrency *float64 `json:"concurrency"`
				Size        *float64 `json:"size_bytes"`
				Rows        *float64 `json:"rows"`
				Rate        *float64 `json:"rate"`
				Op          string   `json:"op"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		d := r.Dims
		switch {
		case strings.HasPrefix(r.Scenario, "s3."):
			ok := p.Params.Concurrency != nil && d[DimConcurrency] == *p.Params.Concurrency && d[DimConcurrency] == float64(r.Threads)
			if p.Params.Op == "get" || p.Params.Op == "put" {
				ok = ok && p.Params.Size != nil && d[DimSize] == *p.Params.Size
			} else {
				_, has := d[DimSize]
				ok = ok && !has
			}
			if r.Loop == Open {
				ok = ok && p.Params.Rate != nil && d[DimRate] == *p.Params.Rate
			}
			if !ok {
				t.Errorf("line %d %s: dims %v, params %+v", n, r.Scenario, d, p.Params)
			}
		case strings.HasPrefix(r.Scenario, "data.append."):
			if p.Params.Rows == nil || len(d) != 1 || d[DimRows] != *p.Params.Rows {
				t.Errorf("line %d %s: dims %v, rows %v", n, r.Scenario, d, p.Params.Rows)
			}
		case strings.HasPrefix(r.Scenario, "data."):
			if len(d) != 0 {
				t.Errorf("line %d %s: dims %v, want none", n, r.Scenario, d)
			}
		case r.Threads > 0:
			want := 1 // the worker count; a growth sweep's line has its size too
			if size, sweep := d[DimTables]; sweep {
				want = 2
				if size < 1 {
					t.Errorf("line %d %s: dims %v, a sweep's size below one table", n, r.Scenario, d)
				}
			}
			// A merged line keeps its level's dims while threads counts
			// every worker (docs/methodology.md): at least the level, at
			// most the level times the sources.
			merged := len(p.MergedFrom) > 1
			level := d[DimThreads]
			ok := len(d) == want && level == float64(r.Threads)
			if merged {
				ok = len(d) == want && level >= 1 && float64(r.Threads) >= level && float64(r.Threads) <= level*float64(len(p.MergedFrom))
			}
			if !ok {
				t.Errorf("line %d %s: dims %v, threads %d, merged from %d", n, r.Scenario, d, r.Threads, len(p.MergedFrom))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 2000 {
		t.Fatalf("%d history lines, want the committed 2,100+", n)
	}
}

// TestDimsRoundTrip: a schema 4 line keeps its dims through a write and
// a Decode, measured and skipped; a schema 4 line without dims is not
// given any (its scenario has no dimension).
func TestDimsRoundTrip(t *testing.T) {
	run := &Run{ID: "r"}
	rec := NewRecorder()
	rec.Record(1000)
	measured := run.Result("http", "s3.get.4KiB.c64.open.50pct", Open, 64, rec, 1e9, map[string]any{"concurrency": 64})
	measured.Dims = Dims{DimSize: 4096, DimConcurrency: 64, DimRate: 1234.5, DimRatePct: 50}
	skipped := run.Skipped("rest", "load_table.throughput.t8", "no tables", nil)
	skipped.Threads, skipped.Dims = 8, Dims{DimThreads: 8}
	for _, w := range []Record{measured, skipped} {
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"dims":{`)) {
			t.Errorf("%s: no dims on the written line: %s", w.Scenario, b)
		}
		r, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if r.Schema != SchemaVersion || !maps.Equal(r.Dims, w.Dims) {
			t.Errorf("%s: schema %d dims %v after a round trip, want %d and %v", w.Scenario, r.Schema, r.Dims, SchemaVersion, w.Dims)
		}
	}
	scan := run.Result("embedded", "data.scan", Closed, 1, rec, 1e9, map[string]any{"rows": 1000})
	b, err := json.Marshal(scan)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := Decode(b); err != nil || r.Dims != nil {
		t.Errorf("data.scan: dims %v (%v), want none", r.Dims, err)
	}
}
