package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRunCPUProfile: --cpuprofile writes a CPU profile (gzipped protobuf
// with the cpu sample type) of a run, and a path that cannot be created
// is a usage error before anything runs.
func TestRunCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "crawl.prof")
	_, stderr, code := katbench(t, dir, "run", "embedded", "--quick", "--tables", "10", "--dir", filepath.Join(dir, "work"),
		"--scenario", "catalog_crawl", "--format", "jsonl", "--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("read the profile: %v", err)
	}
	if !bytes.Contains(raw, []byte("cpu")) || !bytes.Contains(raw, []byte("nanoseconds")) {
		t.Errorf("the profile (%d bytes) has no cpu sample type", len(raw))
	}

	wantUsageError(t, nil, []string{"run", "embedded", "--quick", "--cpuprofile", filepath.Join(dir, "missing", "x.prof")}, "--cpuprofile")
}
