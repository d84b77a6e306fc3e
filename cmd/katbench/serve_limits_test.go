package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// serveStderr starts `katbench serve FRONT args…`, waits for it to announce
// its address, stops it with SIGTERM and returns all it wrote on stderr.
func serveStderr(t *testing.T, front string, args ...string) string {
	t.Helper()
	_, stop := startServeArgs(t, append([]string{front, "--dir", filepath.Join(t.TempDir(), "cat")}, args...)...)
	return stop()
}

// Serving on all interfaces with auth off warns on stderr; on loopback, or
// with a credential, it does not. --help says what all interfaces means.
func TestServeNonLoopbackWarns(t *testing.T) {
	for _, front := range []string{"rest", "grpc"} {
		t.Run(front, func(t *testing.T) {
			exposed := serveStderr(t, front, "--addr", "0.0.0.0:0")
			if !strings.Contains(exposed, "WARNING") || !strings.Contains(exposed, "not loopback") {
				t.Errorf("0.0.0.0 with auth off: no warning on stderr:\n%s", exposed)
			}
			for _, args := range [][]string{
				{"--addr", "127.0.0.1:0"},
				{"--addr", "0.0.0.0:0", "--credential", "bench:s3cret"},
			} {
				if out := serveStderr(t, front, args...); strings.Contains(out, "WARNING") {
					t.Errorf("%v: unexpected warning:\n%s", args, out)
				}
			}
			help, _, code := katbench(t, t.TempDir(), "serve", front, "--help")
			if code != 0 || !strings.Contains(help, "all interfaces") || !strings.Contains(help, "--credential") {
				t.Errorf("serve %s --help (exit %d) does not explain binding to all interfaces:\n%s", front, code, help)
			}
		})
	}
}

func TestServeLimitFlagsBadInputExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		front string
		args  []string
		want  string
	}{
		{"rest", []string{"--max-body-bytes", "-1"}, "--max-body-bytes"},
		{"rest", []string{"--max-inflight-body-bytes", "-5"}, "--max-inflight-body-bytes"},
		{"grpc", []string{"--max-message-bytes", "-1"}, "--max-message-bytes"},
		{"grpc", []string{"--max-message-bytes", "4294967296"}, "--max-message-bytes"},
		{"grpc", []string{"--max-connections", "-1"}, "--max-connections"},
	} {
		dir := t.TempDir()
		args := append([]string{"serve", tc.front, "--dir", filepath.Join(dir, "cat")}, tc.args...)
		_, stderr, code := katbench(t, dir, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", args, code, stderr, tc.want)
		}
	}
}
