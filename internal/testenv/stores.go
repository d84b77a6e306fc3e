package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ErrNoExports is returned when an up script exits 0 but prints no export line.
var ErrNoExports = errors.New("up script printed no export lines")

// ErrUnavailable is returned when an up script exits with status
// ExitUnavailable: the system cannot run on this machine at all (RustFS
// with neither Docker nor a binary), as opposed to failing to start.
var ErrUnavailable = errors.New("cannot run on this machine")

// ExitUnavailable is the exit status by which an up script says
// ErrUnavailable (containers/rustfs_up.sh).
const ExitUnavailable = 3

// Service is one outside system started by a containers/NAME_up.sh script for
// a test. Each Service has its own state dir, so parallel tests and a
// developer's own running copies never share one. A Service is not safe for
// concurrent use; it is read-only after Up returns.
type Service struct {
	// Name is the script's NAME (versitygw, nessie, fixture, minio…).
	Name string
	// StateDir is the KATBENCH_STATE_DIR the scripts ran with; every pid they
	// recorded lives in a file StateDir/*/pid.
	StateDir string
	// Env holds what the up script exported (KATBENCH_S3_ENDPOINT, …).
	Env map[string]string
	// DownArgs are given to NAME_down.sh (--store jdbc for the variant
	// NAME_up.sh --store jdbc started).
	DownArgs []string
}

// S3Env is how a test reaches a plaintext S3 store started for it.
type S3Env struct {
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string
	Region    string
}

// RESTEnv is how a test reaches an Iceberg REST catalog started for it.
type RESTEnv struct {
	URL       string // base URI for an iceberg-go REST client
	Warehouse string
	// S3 is the store behind the warehouse, when there is one (Nessie).
	S3 *S3Env
	// Service is the underlying started system (pids, raw exports).
	Service *Service
}

// Up runs containers/NAME_up.sh ARGS... with a fresh state dir under
// t.TempDir(), parses its export lines, and registers NAME_down.sh with
// t.Cleanup (a failing down is a test error). When the script fails, Up calls
// Need, so the test skips locally and fails in CI, with the script's stderr.
// timeout bounds the whole start, first-run downloads included.
func Up(t testing.TB, name string, timeout time.Duration, args ...string) *Service {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	svc, err := StartService(name, state, timeout, args...)
	if svc != nil {
		t.Cleanup(func() {
			if err := svc.Down(2 * time.Minute); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
	Need(t, name, err)
	return svc
}

// StartService runs containers/NAME_up.sh with KATBENCH_STATE_DIR=stateDir and
// returns the started Service. On error the Service is still returned when the
// script may have started something, so the caller can call Down.
func StartService(name, stateDir string, timeout time.Duration, args ...string) (*Service, error) {
	script := filepath.Join(RepoRoot(), "containers", name+"_up.sh")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("up script for %s: %w", name, err)
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, fmt.Errorf("state dir for %s: %w", name, err)
	}
	svc := &Service{Name: name, StateDir: stateDir}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Args = append(cmd.Args, args...)
	cmd.Env = append(os.Environ(), "KATBENCH_STATE_DIR="+stateDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// The script's children are detached and do not hold stdout, but a hung
	// script must not hang the test: WaitDelay bounds the pipe drain.
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == ExitUnavailable && ctx.Err() == nil {
			err = fmt.Errorf("%w (%w)", ErrUnavailable, err)
		}
		return svc, fmt.Errorf("%s_up.sh %s: %w\n%s", name, strings.Join(args, " "), err, tail(stderr.String(), 40))
	}
	env, err := ParseExports(string(out))
	if err != nil {
		return svc, fmt.Errorf("%s_up.sh output: %w\nstderr:\n%s", name, err, tail(stderr.String(), 20))
	}
	svc.Env = env
	return svc, nil
}

// Down runs containers/NAME_down.sh for this Service's state dir.
func (s *Service) Down(timeout time.Duration) error {
	script := filepath.Join(RepoRoot(), "containers", s.Name+"_down.sh")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Args = append(cmd.Args, s.DownArgs...)
	cmd.Env = append(os.Environ(), "KATBENCH_STATE_DIR="+s.StateDir)
	cmd.WaitDelay = 10 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s_down.sh %s: %w\n%s", s.Name, strings.Join(s.DownArgs, " "), err, tail(string(out), 20))
	}
	return nil
}

// PIDs returns every pid recorded under the state dir (StateDir/*/pid), the
// up script's own process and any it started for itself (nessie's versitygw).
func (s *Service) PIDs() ([]int, error) {
	files, err := filepath.Glob(filepath.Join(s.StateDir, "*", "pid"))
	if err != nil {
		return nil, fmt.Errorf("list pid files: %w", err)
	}
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("pid file %s: %w", f, err)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// ProcessAlive reports whether pid names a running, non-zombie process.
func ProcessAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state letter follows the ")" that closes the command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// ParseExports reads `export K=V` lines as printed by the up scripts. V is
// one shell word: single-quoted ('…', a quote in it written as close quote,
// backslash-quote, open quote, as kb_write_exports writes it; it may span
// lines), double-quoted ("…", with \" \\ \$ \` escapes), bare, or a
// concatenation of those. An unquoted or double-quoted $ or backquote is an
// error: the value would need a shell to expand it. Any other non-empty line
// is an error too: the scripts' contract is that stdout holds only export
// lines.
func ParseExports(out string) (map[string]string, error) {
	env := map[string]string{}
	p := out
	for {
		p = strings.TrimLeft(p, " \t\r\n")
		if p == "" {
			break
		}
		line, _, _ := strings.Cut(p, "\n")
		rest, ok := strings.CutPrefix(p, "export ")
		if !ok {
			return nil, fmt.Errorf("not an export line: %q", line)
		}
		k, after, ok := strings.Cut(rest, "=")
		if !ok || !isShellName(k) {
			return nil, fmt.Errorf("malformed export line: %q", line)
		}
		v, tail, err := shellWord(after)
		if err != nil {
			return nil, fmt.Errorf("export line %q: %w", line, err)
		}
		tail = strings.TrimLeft(tail, " \t\r")
		if tail != "" && tail[0] != '\n' {
			return nil, fmt.Errorf("malformed export line (more than one word): %q", line)
		}
		env[k] = v
		p = tail
	}
	if len(env) == 0 {
		return nil, ErrNoExports
	}
	return env, nil
}

// isShellName reports whether k is a shell variable name.
func isShellName(k string) bool {
	for i, r := range k {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return k != ""
}

// shellWord reads one shell word from the start of s and returns its value
// and what follows it (starting at the blank or newline that ended it).
func shellWord(s string) (word, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '\n':
			return b.String(), s[i:], nil
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", "", errors.New("unterminated single quote")
			}
			b.WriteString(s[i+1 : i+1+j])
			i += 1 + j
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '$', '`':
					return "", "", fmt.Errorf("%c in double quotes needs a shell to expand", s[i])
				case '\\':
					if i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
						i++
						if s[i] == '\n' {
							continue
						}
					}
				}
				b.WriteByte(s[i])
			}
			if i == len(s) {
				return "", "", errors.New("unterminated double quote")
			}
		case '\\':
			if i+1 == len(s) {
				return "", "", errors.New("trailing backslash")
			}
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case '$', '`':
			return "", "", fmt.Errorf("unquoted %c needs a shell to expand", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), "", nil
}

// Environ returns os.Environ() with this Service's exports added (overriding),
// for starting a katbench process against it.
func (s *Service) Environ(base []string) []string {
	out := append([]string(nil), base...)
	for k, v := range s.Env {
		out = append(out, k+"="+v)
	}
	return out
}

// Versitygw starts a versitygw for this test on a free port and returns how
// to reach it; it is stopped when the test ends.
func Versitygw(t testing.TB) S3Env {
	t.Helper()
	port, err := FreePort()
	Need(t, "versitygw", err)
	svc := Up(t, "versitygw", 5*time.Minute, "--port", strconv.Itoa(port))
	return s3From(svc.Env)
}

// MinIO starts a MinIO server for this test on a free port (Docker when it
// works, else a binary built once with go install) and returns how to reach it.
func MinIO(t testing.TB) S3Env {
	t.Helper()
	// The console listens on port+1: both are reserved.
	port, err := FreePortRun(2)
	Need(t, "minio", err)
	svc := Up(t, "minio", 10*time.Minute, "--port", strconv.Itoa(port))
	return s3From(svc.Env)
}

// Nessie starts a Nessie server (and the versitygw holding its warehouse) for
// this test on free ports.
func Nessie(t testing.TB) RESTEnv {
	t.Helper()
	var ports [3]int
	for i := range ports {
		p, err := FreePort()
		Need(t, "nessie", err)
		ports[i] = p
	}
	svc := Up(t, "nessie", 15*time.Minute, "--port", strconv.Itoa(ports[0]),
		"--management-port", strconv.Itoa(ports[1]), "--s3-port", strconv.Itoa(ports[2]))
	s3 := s3From(svc.Env)
	return RESTEnv{URL: svc.Env["KATBENCH_NESSIE_URL"], Warehouse: svc.Env["KATBENCH_NESSIE_WAREHOUSE"], S3: &s3, Service: svc}
}

// Fixture starts the Apache Iceberg REST fixture (RESTCatalogServer) for this
// test on a free port.
func Fixture(t testing.TB) RESTEnv {
	t.Helper()
	port, err := FreePort()
	Need(t, "fixture", err)
	svc := Up(t, "fixture", 15*time.Minute, "--port", strconv.Itoa(port))
	return RESTEnv{URL: svc.Env["KATBENCH_FIXTURE_URL"], Warehouse: svc.Env["KATBENCH_FIXTURE_WAREHOUSE"], Service: svc}
}

// RustFS starts a RustFS server for this test on a free port (Docker, or a
// binary given, cached or seeded from ../shared/bin; see
// containers/rustfs_up.sh) and returns how to reach it. When no binary can
// be had without the hours-long cargo build the test skips with the reason,
// even under CI: that is the one part CI is allowed to miss. Any other
// failure to start follows Need.
func RustFS(t testing.TB) S3Env {
	t.Helper()
	port, err := FreePort()
	Need(t, "rustfs", err)
	state := filepath.Join(t.TempDir(), "state")
	svc, err := StartService("rustfs", state, 5*time.Minute, "--port", strconv.Itoa(port))
	if svc != nil {
		t.Cleanup(func() {
			if err := svc.Down(2 * time.Minute); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("skipping: RustFS unavailable (the one skip allowed under CI): %v", err)
	}
	Need(t, "rustfs", err)
	return s3From(svc.Env)
}

// Polaris starts Apache Polaris for this test on free ports (Docker, or the
// Quarkus fast-jar built once into the cache; see containers/polaris_up.sh)
// with its catalog bootstrapped. RESTEnv.Service.Env holds
// KATBENCH_POLARIS_PROPS (the OAuth credential and scope).
func Polaris(t testing.TB) RESTEnv {
	t.Helper()
	// The management port is port+1: both are reserved.
	port, err := FreePortRun(2)
	Need(t, "polaris", err)
	// The timeout covers a cold build of the fast-jar (~10-20 min on a
	// busy 2-core machine) when `make setup` has not run.
	svc := Up(t, "polaris", 30*time.Minute, "--port", strconv.Itoa(port))
	return RESTEnv{URL: svc.Env["KATBENCH_POLARIS_URL"], Warehouse: svc.Env["KATBENCH_POLARIS_WAREHOUSE"], Service: svc}
}

func s3From(env map[string]string) S3Env {
	return S3Env{
		Endpoint:  env["KATBENCH_S3_ENDPOINT"],
		AccessKey: env["AWS_ACCESS_KEY_ID"],
		SecretKey: env["AWS_SECRET_ACCESS_KEY"],
		Region:    env["AWS_REGION"],
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
