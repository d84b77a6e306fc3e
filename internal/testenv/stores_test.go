package testenv

import (
	"errors"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestParseExports(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr bool
	}{
		{"single quoted", "export A='x y'\nexport B=2\n", map[string]string{"A": "x y", "B": "2"}, false},
		{"double quoted", `export URL="http://127.0.0.1:1/iceberg"`, map[string]string{"URL": "http://127.0.0.1:1/iceberg"}, false},
		{"empty value", "export E=''\n", map[string]string{"E": ""}, false},
		{"log line on stdout", "starting...\nexport A=1\n", nil, true},
		{"no key", "export =1\n", nil, true},
		{"nothing", "\n\n", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseExports(c.in)
			if c.wantErr {
				if err == nil {
					t.Fatalf("ParseExports(%q) = %v, want error", c.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseExports(%q): %v", c.in, err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
	if _, err := ParseExports(""); !errors.Is(err, ErrNoExports) {
		t.Errorf("empty output: err = %v, want ErrNoExports", err)
	}
}

// TestStoreUpDown starts each real S3 store through its script, checks it
// answers S3 on the exported endpoint, and that down leaves no process and
// no state. RustFS skips (even under CI) only when no binary can be had.
func TestStoreUpDown(t *testing.T) {
	for _, name := range []string{"versitygw", "rustfs"} {
		t.Run(name, func(t *testing.T) {
			port, err := FreePort()
			Need(t, "free port", err)
			state := t.TempDir()
			svc, err := StartService(name, state, 5*time.Minute, "--port", strconv.Itoa(port))
			if svc != nil {
				t.Cleanup(func() { _ = svc.Down(time.Minute) })
			}
			if name == "rustfs" && errors.Is(err, ErrUnavailable) {
				t.Skipf("skipping: RustFS unavailable (the one skip allowed under CI): %v", err)
			}
			Need(t, name, err)
			if got, want := svc.Env["KATBENCH_S3_ENDPOINT"], "http://127.0.0.1:"+strconv.Itoa(port); got != want {
				t.Fatalf("KATBENCH_S3_ENDPOINT = %q, want %q", got, want)
			}
			for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
				if svc.Env[k] == "" {
					t.Errorf("%s not exported: %v", k, svc.Env)
				}
			}
			resp, err := http.Get(svc.Env["KATBENCH_S3_ENDPOINT"] + "/")
			if err != nil {
				t.Fatalf("GET endpoint: %v", err)
			}
			resp.Body.Close()
			// Anonymous ListBuckets is refused by a real S3 server.
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("anonymous GET / = %d, want 403 from %s", resp.StatusCode, name)
			}
			pids, err := svc.PIDs()
			if err != nil || len(pids) != 1 {
				t.Fatalf("PIDs = %v, %v; want exactly one", pids, err)
			}
			if !ProcessAlive(pids[0]) {
				t.Fatalf("recorded pid %d is not running", pids[0])
			}
			if err := svc.Down(time.Minute); err != nil {
				t.Fatalf("down: %v", err)
			}
			if ProcessAlive(pids[0]) {
				t.Errorf("pid %d still running after down", pids[0])
			}
			if left, _ := filepath.Glob(filepath.Join(state, "*")); len(left) != 0 {
				t.Errorf("down left state behind: %v", left)
			}
			// down again: nothing running is not an error.
			if err := svc.Down(time.Minute); err != nil {
				t.Errorf("second down: %v", err)
			}
		})
	}
}
