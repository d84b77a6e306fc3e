package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
)

func TestServeGRPCBadInputExitsTwo(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad durability", []string{"--durability", "sometimes"}, "--durability"},
		{"bad credential", []string{"--credential", "nocolon"}, "--credential"},
		{"bad addr", []string{"--addr", "nohostport"}, "--addr"},
		{"relative allowed location", []string{"--allowed-location", "relative/dir"}, "--allowed-location"},
		{"extra arg", []string{"extra"}, "no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"serve", "grpc", "--dir", filepath.Join(dir, "cat")}, tc.args...)
			_, stderr, code := katbench(t, dir, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("bad input wrote %v", entries)
			}
		})
	}
}

// TestServeGRPCServesAndStopsOnSIGTERM starts `katbench serve grpc`, uses it
// through the client with a credential, sends SIGTERM, and checks the
// process exits 0 having closed the catalog (the file opens again, with the
// namespace made over gRPC in it).
func TestServeGRPCServesAndStopsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	catDir := filepath.Join(dir, "cat")
	cmd := exec.Command(bin, "serve", "grpc", "--addr", "127.0.0.1:0", "--dir", catDir, "--credential", "bench:s3cret")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	addrRe := regexp.MustCompile(`serving gRPC at (\S+)`)
	lines := bufio.NewScanner(stderr)
	var addr string
	for lines.Scan() {
		if m := addrRe.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		t.Fatalf("no address announced on stderr")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr); exited <- cmd.Wait() }()

	ctx := context.Background()
	cl, err := grpcfront.Dial(ctx, addr, grpcfront.ClientOptions{Credential: grpcfront.Credential{ID: "bench", Secret: "s3cret"}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if err := cl.CreateNamespace(ctx, table.Identifier{"served"}, nil); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	cl.Close()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("hang: serve did not exit after SIGTERM")
	}

	cat, err := catalog.Open(ctx, catalog.Options{Dir: catDir, LockTimeout: time.Second})
	if err != nil {
		t.Fatalf("reopen catalog after stop: %v", err)
	}
	defer cat.Close()
	if ok, err := cat.CheckNamespaceExists(ctx, table.Identifier{"served"}); err != nil || !ok {
		t.Fatalf("namespace made over gRPC: exists=%v err=%v", ok, err)
	}
}
