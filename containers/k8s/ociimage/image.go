package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The image's user: not root, and no shell or home is needed.
const (
	uid      = 65532
	userName = "katbench"
)

// options are what one image is made of.
type options struct {
	binary, out, name, caFile, rootfs string
	mtime                             time.Time
	// pause makes the pod sandbox image instead: the binary alone at
	// /pause, run as uid 65535 (containers/k8s/pause).
	pause bool
}

// pauseUID is the user the sandbox image runs as (as Kubernetes' own).
const pauseUID = 65535

// entry is one file or directory of the image's only layer.
type entry struct {
	path string // without the leading slash
	mode int64
	dir  bool
	data []byte
}

// rootfs lists the layer: the binary, /tmp (world-writable and sticky, as
// katbench's temp dirs need), the CA bundle for https catalogs and stores,
// and passwd/group naming the non-root user.
func rootfs(o options) ([]entry, error) {
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, fmt.Errorf("read the binary: %w", err)
	}
	if len(bin) < 4 || string(bin[1:4]) != "ELF" {
		return nil, fmt.Errorf("%s is not an ELF binary", o.binary)
	}
	if o.pause {
		return []entry{{path: "pause", mode: 0o755, data: bin}}, nil
	}
	ca, err := os.ReadFile(o.caFile)
	if err != nil {
		return nil, fmt.Errorf("read the CA bundle: %w", err)
	}
	return []entry{
		{path: "etc", mode: 0o755, dir: true},
		{path: "etc/group", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:\n%s:x:%d:\n", userName, uid)},
		{path: "etc/passwd", mode: 0o644, data: fmt.Appendf(nil, "root:x:0:0:root:/:/sbin/nologin\n%s:x:%d:%d:%s:/tmp:/sbin/nologin\n", userName, uid, uid, userName)},
		{path: "etc/ssl", mode: 0o755, dir: true},
		{path: "etc/ssl/certs", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: ca},
		{path: "katbench", mode: 0o755, data: bin},
		{path: "tmp", mode: 0o1777, dir: true},
	}, nil
}

// layer returns the gzip-compressed layer tar and the digest of its
// uncompressed form (the config's diff_id).
func layer(es []entry, mtime time.Time) (gz []byte, diffID string, err error) {
	raw, err := tarOf(es, mtime)
	if err != nil {
		return nil, "", err
	}
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	if err != nil {
		return nil, "", err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return z.Bytes(), digestOf(raw), nil
}

// tarOf returns es as a tar stream, every entry dated mtime.
func tarOf(es []entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Name: e.path, Mode: e.mode, ModTime: mtime, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: int64(len(e.data))}
		if e.dir {
			h.Name += "/"
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// descriptor is an OCI content descriptor.
type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// build writes the image-layout tar and returns the manifest's digest.
func build(o options) (string, error) {
	es, err := rootfs(o)
	if err != nil {
		return "", err
	}
	gz, diffID, err := layer(es, o.mtime)
	if err != nil {
		return "", fmt.Errorf("build the layer: %w", err)
	}
	run := map[string]any{
		"User":       fmt.Sprintf("%d:%d", uid, uid),
		"Entrypoint": []string{"/katbench"},
		"Env":        []string{"PATH=/", "TMPDIR=/tmp", "HOME=/tmp", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		"WorkingDir": "/tmp",
	}
	if o.pause {
		run = map[string]any{"User": fmt.Sprintf("%d:%d", pauseUID, pauseUID), "Entrypoint": []string{"/pause"}}
	}
	config, err := json.Marshal(map[string]any{
		"created":      o.mtime.Format(time.RFC3339),
		"architecture": "amd64",
		"os":           "linux",
		"config":       run,
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	})
	if err != nil {
		return "", err
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        descriptor{MediaType: "application/vnd.oci.image.config.v1+json", Digest: digestOf(config), Size: int64(len(config))},
		"layers":        []descriptor{{MediaType: "application/vnd.oci.image.layer.v1.tar+gzip", Digest: digestOf(gz), Size: int64(len(gz))}},
	})
	if err != nil {
		return "", err
	}
	index, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.index.v1+json",
		"manifests": []descriptor{{MediaType: "application/vnd.oci.image.manifest.v1+json", Digest: digestOf(manifest), Size: int64(len(manifest)),
			Annotations: map[string]string{
				// containerd names an imported image by this annotation.
				"io.containerd.image.name":          qualified(o.name),
				"org.opencontainers.image.ref.name": o.name,
			}}},
	})
	if err != nil {
		return "", err
	}
	files := []entry{
		{path: "oci-layout", mode: 0o644, data: []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		{path: "index.json", mode: 0o644, data: index},
		{path: "blobs", mode: 0o755, dir: true},
		{path: "blobs/sha256", mode: 0o755, dir: true},
	}
	for _, b := range [][]byte{config, manifest, gz} {
		files = append(files, entry{path: "blobs/sha256/" + digestOf(b)[len("sha256:"):], mode: 0o644, data: b})
	}
	if err := writeTar(o.out, files, o.mtime); err != nil {
		return "", err
	}
	if o.rootfs != "" {
		if err := writeTree(o.rootfs, es); err != nil {
			return "", err
		}
	}
	return digestOf(manifest), nil
}

// qualified spells a short reference as containerd stores it
// (katbench:dev → docker.io/library/katbench:dev), so a pod's
// `image: katbench:dev` finds the imported image.
func qualified(name string) string {
	first, _, hasSlash := strings.Cut(name, "/")
	switch {
	case !hasSlash:
		return "docker.io/library/" + name
	case strings.ContainsAny(first, ".:") || first == "localhost":
		return name
	default:
		return "docker.io/" + name
	}
}

// writeTar writes es as a tar file that appears whole (temp file + rename).
func writeTar(path string, es []entry, mtime time.Time) error {
	raw, err := tarOf(es, mtime)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeTree writes the layer's files under dir (containers/Dockerfile
// copies it into a scratch image).
func writeTree(dir string, es []entry) error {
	for _, e := range es {
		p := filepath.Join(dir, filepath.FromSlash(e.path))
		if e.dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			if err := os.Chmod(p, os.FileMode(e.mode&0o777)|modeBits(e.mode)); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, e.data, os.FileMode(e.mode)); err != nil {
			return err
		}
	}
	return nil
}

func modeBits(m int64) os.FileMode {
	if m&0o1000 != 0 {
		return os.ModeSticky
	}
	return 0
}
