package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/scenarios/dataplane"
)

// TestDataPlaneEndToEnd runs `katbench data embedded rest` against a real
// versitygw on both transports (Arrow → Parquet → S3 → Iceberg commit, and
// the scan back with every column checksummed), keeps the tables, and has
// pyiceberg — a client nobody here wrote — read one of them through
// `katbench serve rest` and agree on the row count and sums.
func TestDataPlaneEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts versitygw and pyiceberg (-short)")
	}
	s3 := testenv.Versitygw(t)
	s3env := []string{
		"KATBENCH_S3_ENDPOINT=" + s3.Endpoint, "AWS_ACCESS_KEY_ID=" + s3.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s3.SecretKey, "AWS_REGION=" + s3.Region,
	}
	const (
		rows, rounds, commits = 20_000, 2, 4
		seed                  = 7
		ns                    = "it_data"
	)
	dir := t.TempDir()
	res := runKatbench(t, 10*time.Minute, s3env, "data", "embedded", "rest",
		"--warehouse", "s3://katbench-it/data", "--dir", dir, "--keep", "--namespace", ns,
		"--rows", "20k", "--batch-rows", "4096", "--rounds", fmt.Sprint(rounds), "--commit-ops", fmt.Sprint(commits),
		"--target-file-size", "256KiB", "--compression", "zstd", "--seed", fmt.Sprint(seed),
		"--transports", "http,uring", "--history", "")
	if res.err != nil {
		t.Fatalf("katbench data: %v\nstderr:\n%s", res.err, tailLines(res.stderr, 40))
	}
	recs := parseRecords(t, res.stdout)

	// uring may be unavailable on this kernel; then it falls back to http,
	// says so, and is measured once.
	transports := []string{"http", "uring"}
	if strings.Contains(res.stderr, "transport uring unavailable") {
		t.Logf("io_uring unavailable here, only http is measured:\n%s", res.stderr)
		transports = []string{"http"}
	}
	type key struct{ target, transport, scenario string }
	got := map[key]results.Record{}
	var data, raw int
	for _, r := range recs {
		for k, v := range r.Params {
			if s, ok := v.(string); ok && strings.Contains(s, s3.SecretKey) {
				t.Errorf("%s %s: params.%s carries the secret key", r.Target, r.Scenario, k)
			}
		}
		if !strings.HasPrefix(r.Scenario, "data.") {
			// The raw S3 baseline at the mean Parquet file size.
			if (!strings.HasPrefix(r.Scenario, "s3.put.") && !strings.HasPrefix(r.Scenario, "s3.get.")) || r.Errors != 0 || r.Ops == 0 {
				t.Errorf("unexpected line %s %s: ops %d errors %d", r.Target, r.Scenario, r.Ops, r.Errors)
			}
			raw++
			continue
		}
		data++
		got[key{r.Target, r.Transport, r.Scenario}] = r
		if r.Params["warehouse"] != "s3://katbench-it" {
			t.Errorf("%s %s: params.warehouse %v, want s3://katbench-it", r.Target, r.Scenario, r.Params["warehouse"])
		}
	}
	if want := 2 * len(transports) * 3; data != want || raw != 2*len(transports) {
		t.Fatalf("%d data lines and %d raw S3 lines, want %d (2 targets × %v × 3 scenarios) and %d:\n%s",
			data, raw, want, transports, 2*len(transports), res.stdout)
	}
	for _, target := range []string{"embedded", "rest"} {
		for _, tr := range transports {
			app := got[key{target, tr, dataplane.AppendName(rows)}]
			scan := got[key{target, tr, dataplane.ScanName}]
			cl := got[key{target, tr, dataplane.CommitLatency}]
			for _, r := range []results.Record{app, scan, cl} {
				if r.Scenario == "" || r.Errors != 0 || r.Ops == 0 {
					t.Errorf("%s/%s %s: ops %d errors %d (%s)", target, tr, r.Scenario, r.Ops, r.Errors, r.FirstError)
				}
			}
			if app.Ops != rounds || num(app.Params["rows_total"]) != rows*rounds || app.Measures["files"].Value < float64(rounds) {
				t.Errorf("%s/%s append: ops %d rows_total %v files %v; want %d appends of %d rows, ≥ 1 file each",
					target, tr, app.Ops, app.Params["rows_total"], app.Measures["files"], rounds, rows)
			}
			if scan.Ops != rounds || scan.Measures["checksum_ok"].Value != 1 || num(scan.Params["rows_total"]) != rows*rounds*rounds {
				t.Errorf("%s/%s scan: ops %d checksum_ok %v rows_total %v; want %d verified scans of %d rows",
					target, tr, scan.Ops, scan.Measures["checksum_ok"], scan.Params["rows_total"], rounds, rows*rounds)
			}
			if cl.Ops != commits || num(cl.Params["snapshots"]) != commits {
				t.Errorf("%s/%s commit latency: ops %d snapshots %v, want %d", target, tr, cl.Ops, cl.Params["snapshots"], commits)
			}
		}
	}

	// pyiceberg reads the embedded/http events table through serve rest.
	var want pyResult
	want.Rows = rows * rounds
	for i := range int64(want.Rows) {
		e := dataplane.Row(seed, i)
		want.IDSum += e.ID
		want.AmountSum += e.Amount
		if e.ReferrerNull {
			want.ReferrerNulls++
		}
	}
	py := testenv.Pyiceberg(t)
	catDir := filepath.Join(dir, "0-embedded-http")
	// The catalog's pointers are absolute s3:// locations under the data
	// run's warehouse: the server reads only inside its own warehouse and
	// the allowed locations, so that one is allowed. It vends the store's
	// settings to pyiceberg, which is given none of its own.
	url, stop := startServeRest(t, s3env, "--dir", catDir, "--warehouse", "s3://katbench-it/served",
		"--allowed-location", "s3://katbench-it/data", "--vend-storage-credentials")
	ident := ns + ".events_http"
	out, err := exec.Command(py, filepath.Join("testdata", "pyiceberg_data.py"), url, ident).CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg read of %s: %v\n%s", ident, err, out)
	}
	var gotPy pyResult
	if err := json.Unmarshal(lastLine(out), &gotPy); err != nil {
		t.Fatalf("pyiceberg output: %v\n%s", err, out)
	}
	t.Logf("pyiceberg (%s) read %s: %+v", gotPy.FileIO, ident, gotPy)
	if gotPy.Rows != want.Rows || gotPy.IDSum != want.IDSum || gotPy.ReferrerNulls != want.ReferrerNulls ||
		math.Abs(gotPy.AmountSum-want.AmountSum) > 1e-9*want.AmountSum || gotPy.Snapshots != rounds || gotPy.EventTypes != 12 {
		t.Errorf("pyiceberg read %+v, want rows %d id_sum %d amount_sum %.2f referrer_nulls %d snapshots %d event types 12",
			gotPy, want.Rows, want.IDSum, want.AmountSum, want.ReferrerNulls, rounds)
	}
	if logs, err := stop(); err != nil {
		t.Errorf("serve rest exit: %v\n%s", err, logs)
	}
}

// pyResult is what testdata/pyiceberg_data.py prints.
type pyResult struct {
	Rows          int64   `json:"rows"`
	IDSum         int64   `json:"id_sum"`
	AmountSum     float64 `json:"amount_sum"`
	ReferrerNulls int64   `json:"referrer_nulls"`
	EventTypes    int     `json:"distinct_event_types"`
	Snapshots     int     `json:"snapshots"`
	FileIO        string  `json:"file_io"`
}

// num reads a JSON number param.
func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func lastLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return lines[len(lines)-1]
}

// startServeRest starts `katbench serve rest` on a free loopback port with
// env added (testenv.ServeRest: its URL, and a stop that returns its stderr).
func startServeRest(t *testing.T, env []string, args ...string) (string, func() (string, error)) {
	t.Helper()
	cmd := exec.Command(needKatbench(t), append([]string{"serve", "rest", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return testenv.ServeRest(t, cmd)
}
