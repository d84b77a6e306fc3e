package integration

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// script runs containers/NAME with args from an unrelated working dir (the
// scripts must resolve their own location), with KATBENCH_STATE_DIR=state
// and extra env. It returns stdout, stderr and the exit code.
func script(t *testing.T, state string, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(testenv.RepoRoot(), "containers", name)}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "KATBENCH_STATE_DIR="+state), env...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

func allScripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "containers", "*_*.sh"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no containers/*_*.sh scripts found: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	return names
}

func TestScriptsShellcheckClean(t *testing.T) {
	_, err := exec.LookPath("shellcheck")
	testenv.Need(t, "shellcheck (apt-get install -y shellcheck)", err)
	out, err := exec.Command("bash", filepath.Join(testenv.RepoRoot(), "containers", "check.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("containers/check.sh: %v\n%s", err, out)
	}
}

func TestScriptsHelpAndBadArguments(t *testing.T) {
	state := t.TempDir()
	for _, name := range allScripts(t) {
		t.Run(name, func(t *testing.T) {
			out, _, code := script(t, state, nil, name, "--help")
			if code != 0 || !strings.HasPrefix(out, "usage: "+name) {
				t.Errorf("--help: exit %d, stdout %.100q; want 0 and a usage line", code, out)
			}
			_, errOut, code := script(t, state, nil, name, "--no-such-flag")
			if code == 0 || !strings.Contains(errOut, "unknown argument") {
				t.Errorf("bad flag: exit %d, stderr %q; want non-zero and 'unknown argument'", code, errOut)
			}
		})
	}
	for _, name := range []string{"versitygw_up.sh", "fixture_up.sh", "nessie_up.sh", "minio_up.sh", "rustfs_up.sh", "polaris_up.sh", "rustberg_up.sh"} {
		_, errOut, code := script(t, state, nil, name, "--port", "http")
		if code == 0 || !strings.Contains(errOut, "invalid port") {
			t.Errorf("%s --port http: exit %d, stderr %q; want non-zero and 'invalid port'", name, code, errOut)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(state, "*")); len(left) != 0 {
		t.Errorf("help and bad arguments created state: %v", left)
	}
}

func TestDownWithNothingRunning(t *testing.T) {
	state := t.TempDir()
	for _, name := range allScripts(t) {
		if !strings.HasSuffix(name, "_down.sh") {
			continue
		}
		_, errOut, code := script(t, state, nil, name)
		if code != 0 || !strings.Contains(errOut, "nothing to do") {
			t.Errorf("%s with nothing running: exit %d, stderr %q; want 0 and a note", name, code, errOut)
		}
	}
}

func TestPolarisDryRunShowsBootstrap(t *testing.T) {
	out, errOut, code := script(t, t.TempDir(), nil, "polaris_up.sh", "--dry-run", "--port", "18281")
	if code != 0 {
		t.Fatalf("polaris_up.sh --dry-run: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"POST http://127.0.0.1:18281/api/catalog/v1/oauth/tokens",
		"grant_type=client_credentials",
		"client_id=root",
		"scope=PRINCIPAL_ROLE:ALL",
		"POST http://127.0.0.1:18281/api/management/v1/catalogs\n",
		`"storageType":"FILE"`,
		"POST http://127.0.0.1:18281/api/management/v1/catalogs/katbench/catalog-roles",
		"PUT http://127.0.0.1:18281/api/management/v1/catalogs/katbench/catalog-roles/katbench_content/grants",
		`"privilege":"CATALOG_MANAGE_CONTENT"`,
		"PUT http://127.0.0.1:18281/api/management/v1/principal-roles/service_admin/catalog-roles/katbench",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q\n%s", want, out)
		}
	}
	// The token call comes first: every other call needs its token.
	if i, j := strings.Index(out, "oauth/tokens"), strings.Index(out, "management/v1/catalogs"); i < 0 || j < 0 || i > j {
		t.Errorf("token call is not first:\n%s", out)
	}
}

// TestRustFSAndPolarisWithoutTheirParts: without Docker and without a
// binary (RustFS) or build inputs (Polaris) the scripts say what they need,
// RustFS with the distinct "unavailable" status, and leave nothing behind.
func TestRustFSAndPolarisWithoutTheirParts(t *testing.T) {
	state, cache := t.TempDir(), t.TempDir()
	env := []string{"KATBENCH_NO_DOCKER=1", "KATBENCH_CACHE=" + cache, "KATBENCH_RUSTFS_BIN=",
		"KATBENCH_RUSTFS_SEED=" + filepath.Join(cache, "no-such.xz"), "POLARIS_SRC=" + filepath.Join(cache, "no-polaris")}
	_, errOut, code := script(t, state, env, "rustfs_up.sh")
	if code != testenv.ExitUnavailable || !strings.Contains(errOut, "--build") ||
		!strings.Contains(errOut, "minio_up.sh") || !strings.Contains(errOut, "versitygw_up.sh") {
		t.Errorf("rustfs_up.sh with no binary: exit %d, stderr %q; want %d naming --build, minio_up.sh and versitygw_up.sh",
			code, errOut, testenv.ExitUnavailable)
	}
	_, errOut, code = script(t, state, env, "polaris_up.sh")
	if code == 0 || code == testenv.ExitUnavailable || !strings.Contains(errOut, "POLARIS_SRC") || !strings.Contains(errOut, "server/pom.xml") {
		t.Errorf("polaris_up.sh with no build inputs: exit %d, stderr %q; want a failure naming POLARIS_SRC and server/pom.xml", code, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(state, "*")); len(left) != 0 {
		t.Errorf("a refused start left state: %v", left)
	}
	if _, err := os.Stat(filepath.Join(cache, "polaris", "1.4.1")); !os.IsNotExist(err) {
		t.Errorf("a failed Polaris build left a cache entry (stat: %v)", err)
	}
}

// TestRustFSSeedChecked: a seed whose unpacked bytes do not match the sha256
// in the README beside it is refused, and nothing lands in the cache.
func TestRustFSSeedChecked(t *testing.T) {
	if _, err := exec.LookPath("xz"); err != nil {
		testenv.Need(t, "xz", err)
	}
	dir, cache := t.TempDir(), t.TempDir()
	seed := filepath.Join(dir, "rustfs.xz")
	cmd := exec.Command("bash", "-c", `printf '#!/bin/sh\necho not rustfs\n' | xz -c > "$1"`, "_", seed)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make seed: %v\n%s", err, out)
	}
	readme := "sha256 of the unpacked binary: " + strings.Repeat("0", 64) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"KATBENCH_NO_DOCKER=1", "KATBENCH_CACHE=" + cache, "KATBENCH_RUSTFS_BIN=", "KATBENCH_RUSTFS_SEED=" + seed}
	_, errOut, code := script(t, t.TempDir(), env, "rustfs_up.sh", "--install-only")
	if code == 0 || !strings.Contains(errOut, "sha256") || !strings.Contains(errOut, strings.Repeat("0", 64)) {
		t.Errorf("bad seed: exit %d, stderr %q; want a failure naming the sha256 mismatch", code, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "bin", "rustfs*")); len(left) != 0 {
		t.Errorf("a refused seed left files in the cache: %v", left)
	}
}

// TestVersitygwUpTwiceAndPortInUse: a second up prints the same exports and
// starts nothing; a port held by someone else is refused with a clear error
// and nothing started.
func TestVersitygwUpTwiceAndPortInUse(t *testing.T) {
	state := t.TempDir()
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p := strconv.Itoa(port)
	t.Cleanup(func() { script(t, state, nil, "versitygw_down.sh") })

	first, errOut, code := script(t, state, nil, "versitygw_up.sh", "--port", p)
	if code != 0 {
		testenv.Need(t, "versitygw", errors.New(errOut))
	}
	pid1, _ := os.ReadFile(filepath.Join(state, "versitygw", "pid"))
	second, errOut, code := script(t, state, nil, "versitygw_up.sh", "--port", p)
	if code != 0 {
		t.Fatalf("second up: exit %d\n%s", code, errOut)
	}
	pid2, _ := os.ReadFile(filepath.Join(state, "versitygw", "pid"))
	if first != second {
		t.Errorf("second up printed other exports:\n%s\nvs\n%s", second, first)
	}
	if len(pid1) == 0 || string(pid1) != string(pid2) {
		t.Errorf("recorded pid changed from %q to %q", pid1, pid2)
	}
	if !strings.Contains(errOut, "already running") {
		t.Errorf("second up did not say it reused the running copy: %q", errOut)
	}
	if n := countProcesses(t, filepath.Join(state, "versitygw", "root")); n != 1 {
		t.Errorf("%d versitygw processes serve this state dir; want 1", n)
	}

	// Asked for another port while this copy runs: refused, not the
	// running copy's exports, which name a port the caller did not ask for.
	port2, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p2 := strconv.Itoa(port2)
	out, errOut, code := script(t, state, nil, "versitygw_up.sh", "--port", p2)
	if code == 0 || out != "" || !strings.Contains(errOut, "already runs on port "+p) || !strings.Contains(errOut, "requested "+p2) {
		t.Errorf("up on another port: exit %d, stdout %q, stderr %q; want non-zero, no exports, both ports named", code, out, errOut)
	}
	if pid3, _ := os.ReadFile(filepath.Join(state, "versitygw", "pid")); string(pid3) != string(pid1) {
		t.Errorf("refused up changed the recorded pid from %q to %q", pid1, pid3)
	}
	if _, _, code := script(t, state, nil, "versitygw_up.sh"); code != 0 {
		t.Errorf("up without --port beside a running copy: exit %d; want its exports (0)", code)
	}

	// A port someone else holds: a plain listener, not one of ours.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	other := t.TempDir()
	out, errOut, code = script(t, other, nil, "versitygw_up.sh", "--port", busy)
	if code == 0 || out != "" || !strings.Contains(errOut, "port "+busy) || !strings.Contains(errOut, "already in use") {
		t.Errorf("port in use: exit %d, stdout %q, stderr %q; want non-zero, no exports, a clear message", code, out, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(other, "*")); len(left) != 0 {
		t.Errorf("refused start left state: %v", left)
	}
}

// countProcesses counts running processes whose command line mentions needle.
func countProcesses(t *testing.T, needle string) int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), needle) {
			n++
		}
	}
	return n
}
