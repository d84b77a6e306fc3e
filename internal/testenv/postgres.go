package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// PGEnv is how a test reaches the PostgreSQL cluster started for it
// (containers/postgres_up.sh).
type PGEnv struct {
	// URL is KATBENCH_PG_URL: postgres://sqlcat:PASSWORD@127.0.0.1:PORT/sqlcat?sslmode=disable.
	URL      string
	Host     string
	Port     int
	Password string // of every catalog role (nessie, polaris, fixture, sqlcat)
	// Service is the started cluster; the catalogs a test starts with
	// [StartOnPostgres] share its state dir and so the cluster.
	Service *Service
}

// Postgres starts a PostgreSQL cluster for this test on a free port, in a
// state dir the system user PostgreSQL runs as can reach (when the test runs
// as root, postgres_up.sh runs the server as katbench-pg), and stops it when
// the test ends.
func Postgres(t testing.TB) PGEnv {
	t.Helper()
	port, err := FreePort()
	Need(t, "postgres", err)
	state, err := sharedStateDir(t)
	Need(t, "postgres", err)
	svc, err := StartService("postgres", state, 5*time.Minute, "--port", strconv.Itoa(port))
	if svc != nil {
		t.Cleanup(func() {
			if t.Failed() { // the server's own account, before down removes it
				if b, err := os.ReadFile(filepath.Join(state, "postgres", "log")); err == nil {
					t.Logf("PostgreSQL log (last lines):\n%s", tail(string(b), 40))
				}
			}
			if err := svc.Down(2 * time.Minute); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
	Need(t, "postgres", err)
	p, err := strconv.Atoi(svc.Env["KATBENCH_PG_PORT"])
	if err != nil || svc.Env["KATBENCH_PG_URL"] == "" {
		t.Fatalf("postgres_up.sh exported no URL or port: %v", keysOf(svc.Env))
	}
	return PGEnv{URL: svc.Env["KATBENCH_PG_URL"], Host: svc.Env["KATBENCH_PG_HOST"], Port: p,
		Password: svc.Env["KATBENCH_PG_PASSWORD"], Service: svc}
}

// sharedStateDir makes a state dir under t.TempDir() whose parents another
// user may search (t.TempDir's are 0700), so PostgreSQL's own system user
// reaches its cluster in it.
func sharedStateDir(t testing.TB) (string, error) {
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			return "", fmt.Errorf("open %s to the PostgreSQL user: %w", d, err)
		}
	}
	return filepath.Join(dir, "state"), nil
}

// StartOnPostgres runs containers/NAME_up.sh --store STORE ARGS... in pg's
// state dir, so the server stores in pg's cluster (or, for --store rocksdb,
// beside it), and registers NAME_down.sh --store STORE for the end of the
// test. It returns the Service and the up script's error (nil Service when
// nothing was started), for the caller to pass to [Need].
func StartOnPostgres(t testing.TB, pg PGEnv, name, store string, timeout time.Duration, args ...string) (*Service, error) {
	t.Helper()
	svc, err := StartService(name, pg.Service.StateDir, timeout, append([]string{"--store", store}, args...)...)
	if svc != nil {
		svc.DownArgs = []string{"--store", store}
		t.Cleanup(func() {
			if err := svc.Down(2 * time.Minute); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
	return svc, err
}

// KillServer sends SIGKILL to the process group of the server recorded in
// StateDir/dir/pid (a crash: nothing is flushed or shut down) and waits up
// to 30 s until the process has exited and, when StateDir/dir/port names
// one, nothing accepts connections there any more (its last thread has
// released its sockets).
func (s *Service) KillServer(dir string) error {
	b, err := os.ReadFile(filepath.Join(s.StateDir, dir, "pid"))
	if err != nil {
		return fmt.Errorf("kill %s: %w", dir, err)
	}
	pid, err := strconv.Atoi(string(trimSpace(b)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("kill %s: bad pid file %q", dir, b)
	}
	port := 0
	if pb, err := os.ReadFile(filepath.Join(s.StateDir, dir, "port")); err == nil {
		port, _ = strconv.Atoi(string(trimSpace(pb)))
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return fmt.Errorf("kill %s (pid %d): %w", dir, pid, err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		// A zombie counts as gone (nobody may reap it), so the port is
		// what says the last thread has released the sockets.
		if !ProcessAlive(pid) && (port == 0 || portFree(port)) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kill %s: pid %d or port %d still held 30s after SIGKILL", dir, pid, port)
		}
		time.Sleep(50 * time.Millisecond) // polling a process's exit, not synchronising a test
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
