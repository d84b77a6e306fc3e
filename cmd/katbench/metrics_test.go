package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMetricsAddr: --metrics-addr serves Prometheus metrics while the run
// runs, and once a scenario's line is out its counters hold exactly that
// line's operations and errors, its histogram as many.
func TestMetricsAddr(t *testing.T) {
	cmd := exec.Command(bin, "embedded", "--quick", "--scenario", "load_table.latency,load_table.throughput.t1",
		"--duration", "3s", "--metrics-addr", "127.0.0.1:0", "--format", "jsonl", "--dir", t.TempDir())
	cmd.Env = append(os.Environ(), "BENCH_QUICK=", "BENCH_DURABILITY=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving metrics at (http://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	var url string
	select {
	case url = <-addr:
	case <-time.After(2 * time.Minute):
		t.Fatal("no 'serving metrics at' line on stderr")
	}
	if url == "" {
		t.Fatal("stderr ended without a 'serving metrics at' line")
	}
	scrape := func() (map[string]float64, error) {
		resp, err := http.Get(url)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Errorf("Content-Type %q", ct)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		m := map[string]float64{}
		for _, l := range strings.Split(string(b), "\n") {
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			i := strings.LastIndexByte(l, ' ')
			v, err := strconv.ParseFloat(l[i+1:], 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", l, err)
			}
			m[l[:i]] = v
		}
		return m, nil
	}
	compared := 0
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l struct {
			Target, Scenario string
			Ops, Errors      float64
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		m, err := scrape()
		if err != nil {
			continue // the run has ended and its metrics with it (the last line)
		}
		lbl := `{target="` + l.Target + `",scenario="` + l.Scenario + `"}`
		if got := m["katbench_operations_total"+lbl]; got != l.Ops || l.Ops == 0 {
			t.Errorf("%s: operations_total %v, the line's ops %v", lbl, got, l.Ops)
		}
		if got, ok := m["katbench_errors_total"+lbl]; !ok || got != l.Errors {
			t.Errorf("%s: errors_total %v (present %v), the line's errors %v", lbl, got, ok, l.Errors)
		}
		count := m["katbench_operation_duration_seconds_count"+lbl]
		inf := m[`katbench_operation_duration_seconds_bucket{target="`+l.Target+`",scenario="`+l.Scenario+`",le="+Inf"}`]
		if count != l.Ops || inf != l.Ops {
			t.Errorf("%s: histogram count %v, +Inf bucket %v, the line's ops %v", lbl, count, inf, l.Ops)
		}
		compared++
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if compared == 0 {
		t.Fatal("no line could be compared with a scrape while the run ran")
	}
}

func TestMetricsAddrRefusesBadAddress(t *testing.T) {
	wantUsageError(t, nil, []string{"embedded", "--quick", "--metrics-addr", "no-port"}, "--metrics-addr")
}
