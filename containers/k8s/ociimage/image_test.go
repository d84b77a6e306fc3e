package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readTar returns a tar's regular files and directories by name.
func readTar(t *testing.T, r io.Reader) (map[string][]byte, map[string]*tar.Header) {
	t.Helper()
	files, hdrs := map[string][]byte{}, map[string]*tar.Header{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, hdrs
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], hdrs[h.Name] = b, h
	}
}

func fakeBinary(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "katbench")
	if err := os.WriteFile(p, append([]byte("\x7fELF"), bytes.Repeat([]byte{1}, 1000)...), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestImageLayout(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options{binary: fakeBinary(t, dir), out: filepath.Join(dir, "img.tar"), name: "katbench:dev", caFile: ca,
		rootfs: filepath.Join(dir, "rootfs"), mtime: time.Unix(0, 0).UTC()}
	digest, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(o.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files, _ := readTar(t, f)
	if string(files["oci-layout"]) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Fatalf("oci-layout = %q", files["oci-layout"])
	}
	// Every blob is named by the digest of its content.
	blob := func(d string) []byte {
		t.Helper()
		b, ok := files["blobs/sha256/"+strings.TrimPrefix(d, "sha256:")]
		if !ok {
			t.Fatalf("blob %s missing", d)
		}
		s := sha256.Sum256(b)
		if "sha256:"+hex.EncodeToString(s[:]) != d {
			t.Fatalf("blob %s holds content of another digest", d)
		}
		return b
	}
	var index struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(files["index.json"], &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("index.json: %v, %d manifests", err, len(index.Manifests))
	}
	m0 := index.Manifests[0]
	if m0.Digest != digest || m0.Annotations["io.containerd.image.name"] != "docker.io/library/katbench:dev" {
		t.Fatalf("index manifest = %+v, want digest %s named docker.io/library/katbench:dev", m0, digest)
	}
	var manifest struct {
		Config descriptor   `json:"config"`
		Layers []descriptor `json:"layers"`
	}
	if err := json.Unmarshal(blob(m0.Digest), &manifest); err != nil || len(manifest.Layers) != 1 {
		t.Fatalf("manifest: %v, %d layers", err, len(manifest.Layers))
	}
	var config struct {
		Config struct {
			User       string
			Entrypoint []string
		} `json:"config"`
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(blob(manifest.Config.Digest), &config); err != nil {
		t.Fatal(err)
	}
	if config.Config.User != "65532:65532" || len(config.Config.Entrypoint) != 1 || config.Config.Entrypoint[0] != "/katbench" {
		t.Fatalf("config = %+v: want a non-root user and /katbench as entrypoint", config.Config)
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[0].Digest)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(raw)
	if len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(s[:]) {
		t.Fatalf("diff_ids %v do not name the uncompressed layer", config.RootFS.DiffIDs)
	}
	layer, hdrs := readTar(t, bytes.NewReader(raw))
	if h := hdrs["tmp/"]; h == nil || h.Typeflag != tar.TypeDir || h.Mode != 0o1777 {
		t.Fatalf("/tmp = %+v, want a sticky world-writable directory", h)
	}
	if h := hdrs["katbench"]; h == nil || h.Mode != 0o755 || !bytes.HasPrefix(layer["katbench"], []byte("\x7fELF")) {
		t.Fatalf("/katbench = %+v", h)
	}
	if !strings.Contains(string(layer["etc/passwd"]), "katbench:x:65532:65532:") || len(layer["etc/ssl/certs/ca-certificates.crt"]) == 0 {
		t.Fatal("passwd or CA bundle missing from the layer")
	}
	// The tree for containers/Dockerfile is the same layer.
	if fi, err := os.Stat(filepath.Join(o.rootfs, "tmp")); err != nil || fi.Mode()&os.ModeSticky == 0 {
		t.Fatalf("rootfs/tmp: %v %v", fi, err)
	}
	// One binary gives one image.
	o2 := o
	o2.out, o2.rootfs = filepath.Join(dir, "img2.tar"), ""
	if d2, err := build(o2); err != nil || d2 != digest {
		t.Fatalf("second build: digest %s, %v; want %s", d2, err, digest)
	}
}

func TestImageRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "script")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "img.tar")
	for _, o := range []options{
		{binary: notELF, out: out, name: "k:1", caFile: notELF},
		{binary: filepath.Join(dir, "missing"), out: out, name: "k:1", caFile: notELF},
		{binary: fakeBinary(t, dir), out: out, name: "k:1", caFile: filepath.Join(dir, "no-ca")},
	} {
		if _, err := build(o); err == nil {
			t.Fatalf("build(%+v) succeeded", o)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("a refused build left %s behind", out)
		}
	}
}

func TestQualified(t *testing.T) {
	for in, want := range map[string]string{
		"katbench:dev":              "docker.io/library/katbench:dev",
		"me/katbench:1":             "docker.io/me/katbench:1",
		"registry.local/kb:1":       "registry.local/kb:1",
		"localhost/kb:1":            "localhost/kb:1",
		"host:5000/team/katbench:x": "host:5000/team/katbench:x",
	} {
		if got := qualified(in); got != want {
			t.Errorf("qualified(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPauseImage: -pause packs the binary alone at /pause, run as 65535.
func TestPauseImage(t *testing.T) {
	dir := t.TempDir()
	o := options{binary: fakeBinary(t, dir), out: filepath.Join(dir, "pause.tar"), name: "katbench/pause:1", pause: true, mtime: time.Unix(0, 0).UTC()}
	if _, err := build(o); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(o.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files, _ := readTar(t, f)
	var layer []byte
	var config struct {
		Config struct {
			User       string
			Entrypoint []string
		} `json:"config"`
	}
	for name, b := range files {
		if !strings.HasPrefix(name, "blobs/sha256/") {
			continue
		}
		if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
			if layer, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		} else if strings.Contains(string(b), `"Entrypoint"`) {
			if err := json.Unmarshal(b, &config); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, _ := readTar(t, bytes.NewReader(layer))
	if len(entries) != 1 || !bytes.HasPrefix(entries["pause"], []byte("\x7fELF")) {
		t.Fatalf("layer holds %d entries, want /pause alone", len(entries))
	}
	if config.Config.User != "65535:65535" || len(config.Config.Entrypoint) != 1 || config.Config.Entrypoint[0] != "/pause" {
		t.Fatalf("config %+v", config.Config)
	}
	if !strings.Contains(string(files["index.json"]), `"docker.io/katbench/pause:1"`) {
		t.Fatalf("index.json %s does not name docker.io/katbench/pause:1", files["index.json"])
	}
}
