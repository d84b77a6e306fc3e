package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/results"
)

// awsTestEnv is an AWS credential chain holding only key:secret from the
// environment (no shared files, no instance metadata).
func awsTestEnv(dir, key, secret string) []string {
	none := filepath.Join(dir, "no-aws-config")
	return []string{"AWS_ACCESS_KEY_ID=" + key, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_SESSION_TOKEN=",
		"AWS_CONFIG_FILE=" + none, "AWS_SHARED_CREDENTIALS_FILE=" + none, "AWS_PROFILE=", "AWS_REGION=",
		"AWS_DEFAULT_REGION=", "AWS_EC2_METADATA_DISABLED=true", "AWS_WEB_IDENTITY_TOKEN_FILE=", "AWS_ROLE_ARN="}
}

// mintedToken matches a token our front mints (32 random bytes,
// base64url) where a header or an OAuth answer would carry it.
var mintedToken = regexp.MustCompile(`(?i)(bearer\s+|access_token"?\s*[:=]\s*"?)[A-Za-z0-9_-]{43}\b`)

// measuredLines are the measured (not skipped) lines of out; each one
// with a failed operation is an error of t.
func measuredLines(t *testing.T, out string) []results.Record {
	t.Helper()
	var m []results.Record
	for _, r := range parseLines(t, out) {
		if r.Skipped != "" {
			continue
		}
		if r.Errors != 0 {
			t.Errorf("%s: %d errors (%s)", r.Scenario, r.Errors, r.FirstError)
		}
		m = append(m, r)
	}
	return m
}

// quickAuthRun is a quick run's flags with the scenarios a remote front
// serves.
func quickAuthRun(dir string) []string {
	return []string{"--dir", filepath.Join(dir, "work"), "--peer", "", "--quick", "--tables", "8", "--ops", "40",
		"--create-ops", "10", "--duration", "200ms", "--warmup", "5ms", "--threads", "1", "--history", ""}
}

// TestSigV4RunAgainstServe: `serve rest` verifying SigV4 (its key from a
// file) and a quick run signing with the Java client's property names and
// keys from the AWS environment: every scenario measured without an
// error, Control included; a wrong secret or region is refused with 403
// saying what was wrong; no secret in any output.
func TestSigV4RunAgainstServe(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "sigv4.key")
	if err := os.WriteFile(keyFile, []byte("AKIDKBSIGV4:SIGSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, stop := startServeArgs(t, "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served"),
		"--sigv4-file", keyFile, "--sigv4-region", "eu-north-1", "--sigv4-service", "glue")
	signing := []string{"--prop", "rest.sigv4-enabled=true", "--prop", "rest.signing-region=eu-north-1", "--prop", "rest.signing-name=glue"}

	stdout, stderr, code := katbenchEnv(t, dir, awsTestEnv(dir, "AKIDKBSIGV4", "SIGSECRET"),
		append(append([]string{"rest", addr}, quickAuthRun(dir)...), signing...)...)
	if code != 0 {
		t.Fatalf("signed run: exit %d\n%s", code, stderr)
	}
	measured := measuredLines(t, stdout)
	for _, r := range measured {
		if r.Params["auth"] != "sigv4" {
			t.Errorf("%s: params.auth = %v, want sigv4", r.Scenario, r.Params["auth"])
		}
	}
	if len(measured) < 6 {
		t.Errorf("only %d measured lines", len(measured))
	}
	for _, s := range []string{stdout, stderr} {
		if strings.Contains(s, "SIGSECRET") {
			t.Error("a signed run's output shows the secret key")
		}
	}

	for _, tc := range []struct{ name, secret, region, want string }{
		{"wrong secret", "OTHERSECRET", "eu-north-1", "signature does not match"},
		{"wrong region", "SIGSECRET", "us-east-1", `region "us-east-1"`},
	} {
		args := append(append([]string{"rest", addr}, quickAuthRun(dir)...), "--prop", "rest.sigv4-enabled=true",
			"--prop", "rest.signing-region="+tc.region, "--prop", "rest.signing-name=glue", "--scenario", "control.*")
		_, stderr, code := katbenchEnv(t, dir, awsTestEnv(dir, "AKIDKBSIGV4", tc.secret), args...)
		if code == 0 || !strings.Contains(stderr, "ForbiddenException") || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "rest.signing-region") {
			t.Errorf("%s: exit %d, stderr %q; want a 403 (ForbiddenException) saying %q and what to check", tc.name, code, stderr, tc.want)
		}
		if strings.Contains(stderr, "SIGSECRET") || strings.Contains(stderr, "OTHERSECRET") {
			t.Errorf("%s: stderr shows a secret key", tc.name)
		}
	}
	if out := stop(); strings.Contains(out, "SIGSECRET") {
		t.Error("serve rest's stderr shows the secret key")
	}
}

// TestShortTokensRunAgainstServe: `serve rest` minting 1-second tokens and
// a quick run lasting several of their lifetimes: no operation fails, the
// renewals are on the lines as auth_refreshes and auth_refresh_p50_us,
// and no token or secret reaches any output.
func TestShortTokensRunAgainstServe(t *testing.T) {
	dir := t.TempDir()
	addr, stop := startServeArgs(t, "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served"),
		"--credential", "kb:CSECRET", "--token-ttl", "1s")
	stdout, stderr, code := katbench(t, dir, append([]string{"rest", addr, "--prop", "credential=kb:CSECRET"}, quickAuthRun(dir)...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	refreshes := 0.0
	for _, r := range measuredLines(t, stdout) {
		if m, ok := r.Measures["auth_refreshes"]; ok {
			refreshes += m.Value
			if p, ok := r.Measures["auth_refresh_p50_us"]; !ok || p.Value <= 0 {
				t.Errorf("%s: auth_refreshes without auth_refresh_p50_us", r.Scenario)
			}
		}
	}
	// The run's measured phases alone last longer than a token: at least
	// one renewal fell inside a line's rounds.
	if refreshes < 1 {
		t.Errorf("no line reports a token renewal over a run longer than the tokens' lifetime")
	}
	serveErr := stop()
	for where, s := range map[string]string{"stdout": stdout, "stderr": stderr, "serve stderr": serveErr} {
		if strings.Contains(s, "CSECRET") || mintedToken.MatchString(s) {
			t.Errorf("%s shows the client secret or a token", where)
		}
	}
}

// TestShortTokensCapacitySearch: a capacity search against `serve rest`
// minting 1-second tokens, over steps that together last several of
// their lifetimes: the search's line has no error, a capacity, and its
// renewals.
func TestShortTokensCapacitySearch(t *testing.T) {
	dir := t.TempDir()
	addr, stop := startServeArgs(t, "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(dir, "served"),
		"--credential", "kb:CSECRET", "--token-ttl", "1s")
	stdout, stderr, code := katbench(t, dir, "capacity", "rest="+addr, "--prop", "credential=kb:CSECRET", "--dir", filepath.Join(dir, "work"),
		"--quick", "--mix", "read-heavy", "--slo", "p99<=5s", "--start-rate", "50", "--max-rate", "200", "--step-duration", "1s",
		"--step-ops", "0", "--warmup", "20ms", "--keep", "0.5", "--tables", "20", "--server-warmup", "0", "--history", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := parseLines(t, stdout)
	if len(lines) != 1 || lines[0].Errors != 0 || lines[0].Params["max_rate"] == nil {
		t.Fatalf("want one capacity line without errors and with a max_rate, got %d lines: %.600s", len(lines), stdout)
	}
	// Three or more 1 s steps: renewals every 0.8 s of them.
	if m := lines[0].Measures["auth_refreshes"]; m.Value < 1 {
		t.Errorf("the capacity line reports no token renewal: %v", lines[0].Measures)
	}
	if out := stop(); strings.Contains(stdout+stderr+out, "CSECRET") || mintedToken.MatchString(stdout+stderr+out) {
		t.Error("an output shows the client secret or a token")
	}
}

// TestServeRESTAuthFlagsBadInput: bad SigV4 and token flags of `serve
// rest` exit 2 saying what is wrong, start nothing, and never echo the
// secret.
func TestServeRESTAuthFlagsBadInput(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(keyFile, []byte("AKID:SIGSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sigv4", "SIGSECRET"}, "joined by a colon"},
		{[]string{"--sigv4", "AKID:SIGSECRET", "--credential", "a:CSECRET"}, "exclusive"},
		{[]string{"--sigv4", "AKID:SIGSECRET", "--sigv4-file", keyFile}, "not both"},
		{[]string{"--sigv4-file", filepath.Join(t.TempDir(), "missing")}, "--sigv4-file"},
		{[]string{"--sigv4-file", keyFile, "--sigv4-region", ""}, "--sigv4-region"},
		{[]string{"--credential", "a:CSECRET", "--token-ttl", "0s"}, "--token-ttl"},
	} {
		args := append([]string{"serve", "rest", "--addr", "127.0.0.1:0"}, tc.args...)
		wantUsageError(t, nil, args, tc.want)
		_, stderr, _ := katbench(t, t.TempDir(), args...)
		if strings.Contains(stderr, "SIGSECRET") || strings.Contains(stderr, "CSECRET") {
			t.Errorf("%v: stderr echoes a secret: %q", tc.args, stderr)
		}
	}
}
