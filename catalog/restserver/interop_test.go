package restserver

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
)

// buildKatbench builds the katbench binary into a temp dir.
func buildKatbench(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "katbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/katbench")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build katbench: %v\n%s", err, out)
	}
	return bin
}

// startServeRest starts `katbench serve rest` on a free loopback port
// (testenv.ServeRest: its URL, and a stop that returns its stderr).
func startServeRest(t *testing.T, bin string, args ...string) (string, func() (string, error)) {
	t.Helper()
	return testenv.ServeRest(t, exec.Command(bin, append([]string{"serve", "rest", "--addr", "127.0.0.1:0", "--dir", t.TempDir()}, args...)...))
}

// TestServeRest runs `katbench serve rest` as a real process: bad flags
// exit 2 having created nothing, and pyiceberg drives a running server.
func TestServeRest(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds katbench and runs pyiceberg (-short)")
	}
	bin := buildKatbench(t)
	t.Run("BadFlags", func(t *testing.T) { testServeRestBadFlags(t, bin) })
	t.Run("PyIcebergInterop", func(t *testing.T) { testPyIcebergInterop(t, bin) })
}

func testServeRestBadFlags(t *testing.T, bin string) {
	for _, args := range [][]string{
		{"--durability", "sometimes"},
		{"--credential", "id:"},
		{"--scope", "catalog"},
		{"--addr", "nonsense"},
		{"--prefix", "namespaces"},
		{"--allowed-location", "relative/dir"},
		{"--allowed-location", "file:///wh/%2e%2e/x"},
		{"extra-arg"},
	} {
		dir := filepath.Join(t.TempDir(), "cat")
		cmd := exec.Command(bin, append([]string{"serve", "rest", "--dir", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2\n%s", args, err, out)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: created %s", args, dir)
		}
	}
}

// testPyIcebergInterop drives `katbench serve rest` with pyiceberg, a REST
// client nobody here wrote: namespaces, create, load, list, commit, a stale
// commit rejected with CommitFailedException, register, a snapshots=refs
// load of a registered history, views (create,
// load, list, exists, drop), a listing paged by rest-page-size, rename and
// drop — with authentication on.
func testPyIcebergInterop(t *testing.T, bin string) {
	py := testenv.Pyiceberg(t)
	url, stop := startServeRest(t, bin, "--credential", "interop:s3cr3t", "--scope", "catalog")

	script := filepath.Join("testdata", "pyiceberg_interop.py")
	cmd := exec.Command(py, script, url, "interop:s3cr3t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pyiceberg script failed: %v\n%s", err, out)
	}
	for _, step := range []string{"connect", "namespaces", "create_table", "load_table", "list_tables", "commit", "failed_commit", "namespace_not_empty", "register_table", "snapshots_refs", "views", "paging", "rename_table", "drop"} {
		if !bytes.Contains(out, []byte("ok "+step+"\n")) {
			t.Errorf("step %s did not pass:\n%s", step, out)
		}
	}
	if !bytes.Contains(out, []byte("ALL OK")) {
		t.Fatalf("script did not finish:\n%s", out)
	}

	// A wrong secret must be refused by the same server.
	bad := exec.Command(py, script, url, "interop:wrong")
	if out, err := bad.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("invalid_client")) {
		t.Fatalf("pyiceberg with a wrong secret: %v, want an invalid_client OAuth error:\n%s", err, out)
	}

	logs, err := stop()
	if err != nil {
		t.Fatalf("serve rest exit: %v\n%s", err, logs)
	}
	if !strings.Contains(logs, "shutting down") {
		t.Fatalf("no graceful shutdown in server log:\n%s", logs)
	}
}
