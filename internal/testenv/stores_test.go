package testenv

import (
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
		{"escaped quote", `export S='it'\''s'`, map[string]string{"S": "it's"}, false},
		{"quoted across lines", "export N='one\ntwo'\nexport M=3\n", map[string]string{"N": "one\ntwo", "M": "3"}, false},
		{"literal expansion in single quotes", "export X='$(id) `id` $HOME'", map[string]string{"X": "$(id) `id` $HOME"}, false},
		{"double-quoted escapes", `export D="a\"b\\c"`, map[string]string{"D": `a"b\c`}, false},
		{"unquoted expansion", "export X=$(id)\n", nil, true},
		{"expansion in double quotes", `export X="$HOME"`, nil, true},
		{"unterminated quote", "export X='abc\n", nil, true},
		{"two words", "export X=a b\n", nil, true},
		{"bad name", "export 1X=a\n", nil, true},
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

// kb_write_exports quotes every value so that eval gives it back exactly,
// whatever it holds, and ParseExports reads the same values.
func TestWriteExportsRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("bash: %v", err)
	}
	values := map[string]string{
		"QUOTE":   "it's a 'secret'",
		"SUBST":   "$(touch PWNED) `touch PWNED` $HOME ${X:-y}",
		"SPACES":  "  two  spaces  ",
		"NEWLINE": "line one\nline two\n",
		"MIXED":   `a'b"c\d$e` + "\t&;|<>*?",
		"EMPTY":   "",
	}
	dir := t.TempDir()
	args := []string{"-c", `set -eu; source "$1"; d=$2; shift 2; kb_write_exports "$d" "$@"`, "bash",
		filepath.Join(RepoRoot(), "containers", "lib.sh"), dir}
	names := []string{}
	for k, v := range values {
		args = append(args, k+"="+v)
		names = append(names, k)
	}
	if out, err := exec.Command("bash", args...).CombinedOutput(); err != nil {
		t.Fatalf("kb_write_exports: %v\n%s", err, out)
	}
	exports, err := os.ReadFile(filepath.Join(dir, "exports"))
	if err != nil {
		t.Fatal(err)
	}

	// eval in a fresh shell, in an empty dir, and print each value NUL-ended.
	script := `eval "$(cat "$1")"; shift; for n in "$@"; do printf '%s\0' "${!n}"; done`
	cmd := exec.Command("bash", append([]string{"-c", script, "bash", filepath.Join(dir, "exports")}, names...)...)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("eval exports: %v\n%s", err, exports)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(names) {
		t.Fatalf("eval gave %d values, want %d:\n%s", len(got), len(names), exports)
	}
	for i, n := range names {
		if got[i] != values[n] {
			t.Errorf("eval: %s = %q, want %q", n, got[i], values[n])
		}
	}
	if entries, _ := os.ReadDir(cmd.Dir); len(entries) != 0 {
		t.Errorf("eval ran a command substitution: %v", entries)
	}

	parsed, err := ParseExports(string(exports))
	if err != nil {
		t.Fatalf("ParseExports: %v\n%s", err, exports)
	}
	for k, v := range values {
		if parsed[k] != v {
			t.Errorf("ParseExports: %s = %q, want %q", k, parsed[k], v)
		}
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
