package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// secrets are the values the commands below are given as secrets; none may
// appear in any output.
var secrets = []string{"XTOKEN", "BSECRET", "YSECRET", "ESECRET", "GSECRET", "AKSECRET", "SKSECRET", "OLDSECRET", "OLDTOKEN", "OLDPASS",
	"AKIDKBSIG", "SIGSECRET", "CSECRET"}

func assertNoSecret(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range secrets {
		if i := strings.Index(text, s); i >= 0 {
			t.Errorf("%s holds secret %s: …%s…", where, s, text[max(0, i-120):min(len(text), i+40)])
		}
	}
	if loc := mintedToken.FindStringIndex(text); loc != nil {
		t.Errorf("%s holds a minted token: …%s…", where, text[max(0, loc[0]-120):loc[0]+10])
	}
}

// startServeArgs runs `katbench serve ARGS…` and returns the address it
// announced and a stop function that SIGTERMs it, waits, and returns
// everything it wrote on stderr.
func startServeArgs(t *testing.T, args ...string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	var rest bytes.Buffer
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	re := regexp.MustCompile(`serving (?:gRPC at|Iceberg REST at) (\S+)`)
	sc := bufio.NewScanner(stderr)
	var addr string
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		t.Fatalf("serve %v announced no address; stderr:\n%s", args, rest.String())
	}
	exited := make(chan error, 1)
	copied := make(chan struct{})
	go func() {
		// The scanner may hold lines already read from the pipe: keep
		// reading through it, not the pipe.
		for sc.Scan() {
			rest.WriteString(sc.Text() + "\n")
		}
		close(copied)
		exited <- cmd.Wait()
	}()
	return addr, func() string {
		t.Helper()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("serve %v exited with %v", args, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("serve %v did not stop", args)
		}
		<-copied
		return rest.String()
	}
}

// TestNoSecretReachesAnyOutput runs every command that takes a secret —
// catalog runs with --prop credentials, headers and S3 keys (in-process and
// against `serve rest`/`serve grpc` started with --credential, with props
// from BENCH_REST_PROPS too), `transport` with --access-key/--secret-key,
// `data` with --prop — and then report, merge and compare over their
// history and over an old line written before redaction. No secret may
// appear in any stdout, stderr, history file or HTML report, and each
// line's command and params say REDACTED where the value was.
func TestNoSecretReachesAnyOutput(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	cheap := []string{"--peer", "", "--quick", "--tables", "4", "--ops", "20", "--create-ops", "5", "--warmup", "1ms",
		"--scenario", "control.*,table_exists.*", "--history", hist}
	props := []string{"--prop", "header.Authorization=Bearer XTOKEN", "--prop", "credential=a:BSECRET", "--prop", "s3.secret-access-key=YSECRET"}
	// Against a server that checks tokens, the client's own Authorization
	// header would replace the one from the credential: another header.
	remoteProps := []string{"--prop", "header.X-Trace=XTOKEN", "--prop", "credential=a:BSECRET", "--prop", "s3.secret-access-key=YSECRET"}

	restAddr, stopREST := startServeArgs(t, "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served-rest"), "--credential", "a:BSECRET")
	// Servers whose clients renew short tokens during the run, and sign
	// with SigV4 (the key given on the command line, to check it is not
	// echoed).
	shortAddr, stopShort := startServeArgs(t, "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served-short"),
		"--credential", "c:CSECRET", "--token-ttl", "1s")
	sigAddr, stopSig := startServeArgs(t, "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served-sig"),
		"--sigv4", "AKIDKBSIG:SIGSECRET", "--sigv4-region", "eu-north-1")
	grpcAddr, stopGRPC := startServeArgs(t, "grpc", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served-grpc"), "--credential", "g:GSECRET")

	type run struct {
		name string
		env  []string
		args []string
		// want are words the recorded command must hold; params are
		// params every line must carry as REDACTED.
		want, params []string
	}
	runs := []run{
		{name: "rest in-process", args: append(append([]string{"rest", "--dir", filepath.Join(dir, "w1")}, cheap...), props...),
			want:   []string{"header.Authorization=REDACTED", "credential=REDACTED", "s3.secret-access-key=REDACTED"},
			params: []string{"prop.header.Authorization", "prop.s3.secret-access-key"}},
		{name: "rest remote", env: []string{"BENCH_REST_PROPS=header.X-Api-Key=ESECRET,broken:ESECRET"},
			args:   append(append([]string{"rest", restAddr, "--dir", filepath.Join(dir, "w2")}, cheap...), remoteProps...),
			want:   []string{"header.X-Trace=REDACTED", "credential=REDACTED", "s3.secret-access-key=REDACTED"},
			params: []string{"prop.header.X-Api-Key", "prop.header.X-Trace", "prop.s3.secret-access-key"}},
		{name: "rest short tokens", args: append([]string{"rest", shortAddr, "--dir", filepath.Join(dir, "w4"), "--prop", "credential=c:CSECRET",
			"--duration", "300ms"}, cheap...),
			want: []string{"credential=REDACTED"}},
		{name: "rest sigv4", env: awsTestEnv(dir, "AKIDKBSIG", "SIGSECRET"),
			args: append([]string{"rest", sigAddr, "--dir", filepath.Join(dir, "w5"), "--prop", "rest.sigv4-enabled=true",
				"--prop", "rest.signing-region=eu-north-1"}, cheap...),
			want: []string{"rest.sigv4-enabled=true"}},
		{name: "grpc remote", args: append([]string{"grpc", grpcAddr, "--dir", filepath.Join(dir, "w3"), "--prop", "credential=g:GSECRET",
			"--prop", "s3.secret-access-key=YSECRET"}, cheap...),
			want:   []string{"credential=REDACTED", "s3.secret-access-key=REDACTED"},
			params: []string{"prop.s3.secret-access-key"}},
		{name: "transport", args: []string{"transport", "--access-key", "AKSECRET", "--secret-key=SKSECRET", "--iterations", "4", "--rounds", "1",
			"--sizes", "1KiB", "--concurrency", "1", "--transports", "http", "--s3-ops", "head,get", "--history", hist},
			want: []string{"--access-key REDACTED", "--secret-key=REDACTED"}},
		{name: "data", env: []string{"KATBENCH_S3_ENDPOINT=", "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="},
			args: append([]string{"data", "rest", "--rows", "2k", "--batch-rows", "1000", "--rounds", "1", "--commit-ops", "1",
				"--raw-iterations", "2", "--transports", "http", "--history", hist}, props...),
			// The warehouse's own keys replace the s3.* props, and are not
			// params at all.
			want:   []string{"header.Authorization=REDACTED", "credential=REDACTED", "s3.secret-access-key=REDACTED"},
			params: []string{"prop.header.Authorization"}},
	}
	for _, r := range runs {
		stdout, stderr, code := katbenchEnv(t, dir, r.env, r.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", r.name, code, stderr)
		}
		assertNoSecret(t, r.name+" stdout", stdout)
		assertNoSecret(t, r.name+" stderr", stderr)
		lines := parseLines(t, stdout)
		if len(lines) == 0 {
			t.Fatalf("%s: no lines", r.name)
		}
		for _, l := range lines {
			cmd := strings.Join(l.Command, " ")
			for _, w := range r.want {
				if !strings.Contains(cmd, w) {
					t.Errorf("%s %s: command %q lacks %q", r.name, l.Scenario, cmd, w)
				}
			}
			if l.Target == "http" || l.Target == "uring" {
				continue // a data run's raw S3 lines carry no client props
			}
			for _, p := range r.params {
				if l.Params[p] != results.Redacted {
					t.Errorf("%s %s %s: params[%s] = %v, want %s", r.name, l.Target, l.Scenario, p, l.Params[p], results.Redacted)
				}
			}
		}
		if r.name == "rest remote" && !strings.Contains(stderr, "BENCH_REST_PROPS entry \"broken:REDACTED\"") {
			t.Errorf("rest remote: the malformed env entry is not reported redacted:\n%s", stderr)
		}
	}
	assertNoSecret(t, "serve rest stderr", stopREST())
	assertNoSecret(t, "serve grpc stderr", stopGRPC())
	assertNoSecret(t, "serve rest (short tokens) stderr", stopShort())
	assertNoSecret(t, "serve rest (SigV4) stderr", stopSig())

	h, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "history", string(h))
	if !strings.Contains(string(h), "credential=REDACTED") || !strings.Contains(string(h), "--secret-key=REDACTED") {
		t.Error("history lines do not say REDACTED where the secrets were")
	}

	// A line written before redaction existed: secrets in its command (as
	// words and as one string), params and first error.
	old := filepath.Join(dir, "old.jsonl")
	var oldLines []byte
	for i, b := range bytes.SplitAfter(h, []byte("\n")) {
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			m["command"] = []string{"katbench", "rest", "--secret-key", "OLDSECRET", "--prop", "'header.Authorization=Bearer OLDTOKEN'"}
		} else {
			m["command"] = "katbench transport --secret-key OLDSECRET --prop 'header.Authorization=Bearer OLDTOKEN'"
		}
		if p, ok := m["params"].(map[string]any); ok {
			p["prop.header.Authorization"] = "Bearer OLDTOKEN"
			p["prop.credential"] = "a:OLDSECRET"
			p["endpoint_url"] = "http://u:OLDPASS@h:9000/"
		}
		m["first_error"] = "GET http://u:OLDPASS@h:9000/x: 403"
		m["run_id"] = fmt.Sprint("old-", m["run_id"]) // runs of their own in the report
		nb, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		oldLines = append(append(oldLines, nb...), '\n')
	}
	if err := os.WriteFile(old, oldLines, 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	for _, args := range [][]string{
		{"report", hist, old, "-o", html},
		{"merge", old},
		{"compare", old, old, "--history", old},
		{"compare", old, old, "--history", old, "--format", "jsonl"},
	} {
		stdout, stderr, code := katbench(t, dir, args...)
		if code != 0 && code != 1 {
			t.Fatalf("katbench %v: exit %d\n%s", args, code, stderr)
		}
		assertNoSecret(t, args[0]+" stdout", stdout)
		assertNoSecret(t, args[0]+" stderr", stderr)
		if args[0] == "merge" && !strings.Contains(stdout, results.Redacted) {
			t.Errorf("merged lines do not say REDACTED:\n%.400s", stdout)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecret(t, "report HTML", string(page))
	if !strings.Contains(string(page), "--secret-key REDACTED") || !strings.Contains(string(page), "credential=REDACTED") {
		t.Error("the report's commands do not say REDACTED where the secrets were")
	}
}

// TestMalformedPropIsEchoedRedacted: a --prop that is not k=v is a usage
// error naming the entry, with its secret part redacted.
func TestMalformedPropIsEchoedRedacted(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := katbench(t, dir, "rest", "--prop", "credential a:BSECRET", "--dir", filepath.Join(dir, "w"), "--history", "")
	if code != 2 || !strings.Contains(stderr, `--prop "credential REDACTED"`) {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming the entry redacted", code, stderr)
	}
	assertNoSecret(t, "stderr", stderr+stdout)
}
