package icebergio_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

var kinds = []transport.Kind{transport.HTTP, transport.Uring}

// sizes are the payloads every round trip covers; 5 MiB + 1 is one byte
// past the default part size, so it is a two-part multipart upload.
var sizes = []int{0, 1, 4 << 10, s3io.DefaultPartSize + 1}

// store is one S3 server under test with a fresh bucket on it.
type store struct {
	name   string
	env    testenv.S3Env
	bucket string
	// real is true for a server that checks signatures (not the control).
	real bool
}

func controlStore(t *testing.T) store {
	t.Helper()
	c, err := s3.StartControl()
	if err != nil {
		t.Fatalf("StartControl: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	st := store{name: "control", env: testenv.S3Env{Endpoint: c.URL(), AccessKey: "any", SecretKey: "thing", Region: "us-east-1"}}
	st.bucket = makeBucket(t, st.env)
	return st
}

func versitygwStore(t *testing.T) store {
	t.Helper()
	st := store{name: "versitygw", env: testenv.Versitygw(t), real: true}
	st.bucket = makeBucket(t, st.env)
	return st
}

func makeBucket(t *testing.T, env testenv.S3Env) string {
	t.Helper()
	c, _, err := s3.NewClient(s3.Config{Endpoint: env.Endpoint, AccessKey: env.AccessKey, SecretKey: env.SecretKey, Region: env.Region})
	if err != nil {
		t.Fatal(err)
	}
	bucket := "katbench-io-" + randHex(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("MakeBucket: %v", err)
	}
	return bucket
}

func props(env testenv.S3Env, kind transport.Kind) iceberg.Properties {
	return iceberg.Properties{
		icebergio.S3EndpointURL:     env.Endpoint,
		icebergio.S3AccessKeyID:     env.AccessKey,
		icebergio.S3SecretAccessKey: env.SecretKey,
		icebergio.S3Region:          env.Region,
		s3io.PropTransport:          string(kind),
	}
}

// loadFS goes through iceberg-go's registry, as the catalog does, and
// insists on the asked-for transport (a fallback is a missing part here).
func loadFS(t *testing.T, st store, kind transport.Kind, extra ...string) *s3io.FS {
	t.Helper()
	p := props(st.env, kind)
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	got, err := icebergio.LoadFS(context.Background(), p, "s3://"+st.bucket+"/")
	if err != nil {
		t.Fatalf("LoadFS: %v", err)
	}
	f, ok := got.(*s3io.FS)
	if !ok {
		t.Fatalf("LoadFS for s3:// returned %T, want *icebergio.FS (is another S3 IO registered?)", got)
	}
	if used, fb := f.Transport(); used != kind {
		testenv.Need(t, "transport "+string(kind), fmt.Errorf("fell back to %s: %s", used, fb))
	}
	return f
}

func TestControl(t *testing.T) {
	st := controlStore(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) { testStore(t, st, kind) })
	}
}

func TestVersitygw(t *testing.T) {
	st := versitygwStore(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			testStore(t, st, kind)
			t.Run("wrong keys", func(t *testing.T) { testWrongKeys(t, st, kind) })
			t.Run("catalog", func(t *testing.T) { testCatalog(t, st, kind) })
		})
	}
}

func testStore(t *testing.T, st store, kind transport.Kind) {
	f := loadFS(t, st, kind)
	for _, size := range sizes {
		payload := randBytes(t, size)
		for _, how := range []string{"create", "readfrom", "writefile"} {
			name := fmt.Sprintf("s3://%s/%s/%s/%d.bin", st.bucket, kind, how, size)
			t.Run(fmt.Sprintf("%s/%d", how, size), func(t *testing.T) {
				write(t, f, how, name, payload)
				checkRead(t, f, name, payload)
				if size > s3io.DefaultPartSize {
					checkMultipart(t, st, name, 2)
				}
			})
		}
	}
	t.Run("s3a scheme", func(t *testing.T) {
		p := randBytes(t, 100)
		if err := f.WriteFile("s3a://"+st.bucket+"/a/b.bin", p); err != nil {
			t.Fatal(err)
		}
		checkRead(t, f, "s3://"+st.bucket+"/a/b.bin", p)
	})
	t.Run("missing key", func(t *testing.T) {
		name := "s3://" + st.bucket + "/no/such/key"
		_, err := f.Open(name)
		wantNotExist(t, "Open", err)
		_, err = f.ReadFile(name)
		wantNotExist(t, "ReadFile", err)
		_, err = f.Stat(name)
		wantNotExist(t, "Stat", err)
	})
	t.Run("missing bucket", func(t *testing.T) {
		_, err := f.ReadFile("s3://katbench-no-such-bucket-" + randHex(t, 4) + "/k")
		wantNotExist(t, "ReadFile", err)
		if !errors.Is(err, s3io.ErrNoSuchBucket) {
			t.Errorf("ReadFile in a missing bucket: %v, want ErrNoSuchBucket", err)
		}
	})
	t.Run("remove", func(t *testing.T) {
		name := "s3://" + st.bucket + "/rm/x"
		if err := f.WriteFile(name, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := f.Remove(name); err != nil {
			t.Fatalf("Remove: %v", err)
		}
		_, err := f.Stat(name)
		wantNotExist(t, "Stat after Remove", err)
		if err := f.Remove(name); err != nil {
			t.Errorf("Remove of a missing key: %v, want nil (S3 semantics)", err)
		}
	})
	t.Run("bad locations", func(t *testing.T) {
		for _, name := range []string{"s3://" + st.bucket, "s3://" + st.bucket + "/", "s3:///k", "gs://b/k", "/local/path", "s3://" + st.bucket + "/dir/"} {
			if _, err := f.Open(name); !errors.Is(err, s3io.ErrBadLocation) {
				t.Errorf("Open(%q) = %v, want ErrBadLocation", name, err)
			}
			if err := f.WriteFile(name, nil); !errors.Is(err, s3io.ErrBadLocation) {
				t.Errorf("WriteFile(%q) = %v, want ErrBadLocation", name, err)
			}
		}
	})
}

func write(t *testing.T, f *s3io.FS, how, name string, payload []byte) {
	t.Helper()
	switch how {
	case "writefile":
		if err := f.WriteFile(name, payload); err != nil {
			t.Fatalf("WriteFile: %v", err)
		}
		return
	}
	w, err := f.Create(name)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if how == "readfrom" {
		n, err := w.ReadFrom(bytes.NewReader(payload))
		if err != nil || n != int64(len(payload)) {
			t.Fatalf("ReadFrom = %d, %v; want %d", n, err, len(payload))
		}
	} else {
		// Odd-sized writes cross the part boundary mid-call.
		for p := payload; len(p) > 0; {
			n := min(len(p), 100_003)
			if m, err := w.Write(p[:n]); err != nil || m != n {
				t.Fatalf("Write = %d, %v; want %d", m, err, n)
			}
			p = p[n:]
		}
	}
	if _, err := f.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("object visible before Close: Stat = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// checkRead reads name back every way iceberg-go does and compares.
func checkRead(t *testing.T, f *s3io.FS, name string, want []byte) {
	t.Helper()
	got, err := f.ReadFile(name)
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("ReadFile: %d bytes differ from the %d written", len(got), len(want))
	}
	file, err := f.Open(name)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || info.Size() != int64(len(want)) {
		t.Fatalf("Stat = %v, %v; want size %d", info, err, len(want))
	}
	all, err := io.ReadAll(file)
	if err != nil || !bytes.Equal(all, want) {
		t.Fatalf("Read all: %d bytes, %v; want the %d written", len(all), err, len(want))
	}
	n := int64(len(want))
	// Ranged reads at the start, the middle and the end (Parquet reads its
	// footer from the end, column chunks from the middle).
	for _, r := range [][2]int64{{0, min(n, 8)}, {n / 2, min(n-n/2, 4096)}, {max(n-8, 0), min(n, 8)}} {
		buf := make([]byte, r[1])
		m, err := file.ReadAt(buf, r[0])
		if err != nil || int64(m) != r[1] || !bytes.Equal(buf, want[r[0]:r[0]+r[1]]) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; bytes equal %v", r[1], r[0], m, err, bytes.Equal(buf[:m], want[r[0]:r[0]+int64(m)]))
		}
	}
	// Past the end: short read with io.EOF.
	if n > 0 {
		buf := make([]byte, 16)
		m, err := file.ReadAt(buf, n-1)
		if m != 1 || err != io.EOF || buf[0] != want[n-1] {
			t.Fatalf("ReadAt across the end = %d, %v; want 1, EOF", m, err)
		}
	}
	if _, err := file.ReadAt(make([]byte, 1), n); err != io.EOF {
		t.Fatalf("ReadAt at the end = %v, want EOF", err)
	}
	// Seek then Read: the footer-length idiom.
	if n >= 8 {
		if _, err := file.Seek(-8, io.SeekEnd); err != nil {
			t.Fatal(err)
		}
		tail := make([]byte, 8)
		if _, err := io.ReadFull(file, tail); err != nil || !bytes.Equal(tail, want[n-8:]) {
			t.Fatalf("Seek(-8, End)+Read: %v, equal %v", err, bytes.Equal(tail, want[n-8:]))
		}
		if _, err := file.Seek(1, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		if _, err := io.ReadFull(file, head); err != nil || !bytes.Equal(head, want[1:5]) {
			t.Fatalf("Seek(1, Start)+Read: %v", err)
		}
	}
}

// checkMultipart asserts the object was stored by a multipart upload of
// parts parts: S3 (and the control) end such an ETag in "-<parts>".
func checkMultipart(t *testing.T, st store, name string, parts int) {
	t.Helper()
	c, _, err := s3.NewClient(s3.Config{Endpoint: st.env.Endpoint, AccessKey: st.env.AccessKey, SecretKey: st.env.SecretKey, Region: st.env.Region})
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimPrefix(name, "s3://"+st.bucket+"/")
	oi, err := c.StatObject(context.Background(), st.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(oi.ETag, fmt.Sprintf("-%d", parts)) {
		t.Fatalf("ETag %q: not a %d-part multipart upload", oi.ETag, parts)
	}
}

func wantNotExist(t *testing.T, op string, err error) {
	t.Helper()
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s of a missing object: %v, want an error matching fs.ErrNotExist", op, err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("%s: %T is not an *fs.PathError", op, err)
	}
}

// testWrongKeys: a refused secret is ErrAccessDenied naming the endpoint,
// for reads, single PUTs and multipart uploads, and nothing is written.
func testWrongKeys(t *testing.T, st store, kind transport.Kind) {
	good := loadFS(t, st, kind)
	bad := st
	bad.env.SecretKey = "wrong-" + st.env.SecretKey
	f := loadFS(t, bad, kind)
	for _, size := range []int{1, s3io.DefaultPartSize + 1} {
		name := fmt.Sprintf("s3://%s/denied/%s/%d", st.bucket, kind, size)
		err := f.WriteFile(name, randBytes(t, size))
		if !errors.Is(err, s3io.ErrAccessDenied) || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("WriteFile(%d bytes) with a wrong secret: %v, want ErrAccessDenied", size, err)
		}
		if !strings.Contains(err.Error(), st.env.Endpoint) {
			t.Errorf("error %q does not name the endpoint %s", err, st.env.Endpoint)
		}
		_, err = good.Stat(name)
		wantNotExist(t, "Stat after a refused write", err)
	}
	name := fmt.Sprintf("s3://%s/readable/%s", st.bucket, kind)
	if err := good.WriteFile(name, []byte("secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadFile(name); !errors.Is(err, s3io.ErrAccessDenied) {
		t.Errorf("ReadFile with a wrong secret: %v, want ErrAccessDenied", err)
	}
	if _, err := f.Open(name); !errors.Is(err, s3io.ErrAccessDenied) {
		t.Errorf("Open with a wrong secret: %v, want ErrAccessDenied", err)
	}
}

// testCatalog runs the embedded catalog on an s3:// warehouse: create,
// load, commit, reopen, all metadata on S3 through this IO.
func testCatalog(t *testing.T, st store, kind transport.Kind) {
	ctx := context.Background()
	f := loadFS(t, st, kind) // also checks the transport is really kind
	wh := fmt.Sprintf("s3://%s/wh-%s", st.bucket, kind)
	dir := t.TempDir()
	open := func() *catalog.Catalog {
		c, err := catalog.Open(ctx, catalog.Options{Dir: dir, Warehouse: wh, IOProps: props(st.env, kind)})
		if err != nil {
			t.Fatalf("catalog.Open(%s): %v", wh, err)
		}
		return c
	}
	c := open()
	ns := table.Identifier{"ns"}
	if err := c.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	id := table.Identifier{"ns", "events"}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	tbl, err := c.CreateTable(ctx, id, schema)
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	loc := tbl.MetadataLocation()
	if !strings.HasPrefix(loc, wh+"/") {
		t.Fatalf("metadata location %s is not under %s", loc, wh)
	}
	if _, err := f.Stat(loc); err != nil {
		t.Fatalf("metadata file on S3: %v", err)
	}
	meta, newLoc, err := c.CommitTable(ctx, id,
		[]table.Requirement{table.AssertTableUUID(tbl.Metadata().TableUUID())},
		[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})})
	if err != nil {
		t.Fatalf("CommitTable: %v", err)
	}
	if newLoc == loc || meta.Properties()["k"] != "v" {
		t.Fatalf("commit: location %s (was %s), props %v", newLoc, loc, meta.Properties())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// A fresh process's view: reopen and load, which reads the file from S3.
	c = open()
	defer c.Close()
	got, err := c.LoadTable(ctx, id)
	if err != nil {
		t.Fatalf("LoadTable after reopen: %v", err)
	}
	if got.MetadataLocation() != newLoc || got.Properties()["k"] != "v" {
		t.Fatalf("reloaded %s props %v, want %s with k=v", got.MetadataLocation(), got.Properties(), newLoc)
	}
}

// TestOnlyOurS3IO: the katbench binary links no gocloud IO, and the s3
// scheme resolves to this package.
func TestOnlyOurS3IO(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/nordisk/katbench/cmd/katbench").CombinedOutput()
	if err != nil {
		testenv.Need(t, "go list", fmt.Errorf("%v: %s", err, out))
	}
	for _, line := range strings.Fields(string(out)) {
		if strings.Contains(line, "iceberg-go/io/gocloud") {
			t.Errorf("cmd/katbench links %s: one S3 path, ours", line)
		}
	}
	if !strings.Contains(string(out), "github.com/nordisk/katbench/transport/s3/icebergio") {
		t.Errorf("cmd/katbench does not link transport/s3/icebergio")
	}
}

func TestBadProperties(t *testing.T) {
	t.Setenv(s3.EnvEndpoint, "")
	t.Setenv(s3.EnvAccessKey, "")
	t.Setenv(s3.EnvSecretKey, "")
	ok := map[string]string{
		icebergio.S3EndpointURL: "http://127.0.0.1:9", icebergio.S3AccessKeyID: "a", icebergio.S3SecretAccessKey: "b",
	}
	tests := []struct {
		name string
		key  string
		val  string
		want error
	}{
		{"no endpoint", icebergio.S3EndpointURL, "", s3io.ErrNoEndpoint},
		{"bad endpoint", icebergio.S3EndpointURL, "127.0.0.1:9", s3.ErrBadEndpoint},
		{"no key", icebergio.S3AccessKeyID, "", s3io.ErrNoCredentials},
		{"no secret", icebergio.S3SecretAccessKey, "", s3io.ErrNoCredentials},
		{"transport", s3io.PropTransport, "pigeon", transport.ErrUnknownKind},
		{"pool", s3io.PropPoolSize, "-1", s3io.ErrBadProperty},
		{"part size too small", s3io.PropPartSize, "1024", s3io.ErrBadProperty},
		{"virtual", icebergio.S3ForceVirtualAddressing, "maybe", s3io.ErrBadProperty},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := map[string]string{}
			for k, v := range ok {
				p[k] = v
			}
			p[tc.key] = tc.val
			if _, err := s3io.New(p); !errors.Is(err, tc.want) {
				t.Fatalf("New(%v) = %v, want %v", p, err, tc.want)
			}
		})
	}
	if _, err := s3io.New(ok); err != nil {
		t.Fatalf("New(good) = %v", err)
	}
	// The properties alone configure an FS: the environment is never read.
	t.Setenv(s3.EnvEndpoint, "http://127.0.0.1:9")
	t.Setenv(s3.EnvAccessKey, "a")
	t.Setenv(s3.EnvSecretKey, "b")
	if _, err := s3io.New(nil); !errors.Is(err, s3io.ErrNoEndpoint) {
		t.Fatalf("New(nil) with the environment set = %v, want ErrNoEndpoint", err)
	}
	bad := map[string]string{s3io.PropSettingPrefix + "uring.wait": "hodl"}
	for k, v := range ok {
		bad[k] = v
	}
	if _, err := s3io.New(bad); !errors.Is(err, s3io.ErrBadProperty) {
		t.Fatalf("New with a bad transport setting = %v, want ErrBadProperty", err)
	}
}

func randBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func randHex(t *testing.T, n int) string { return hex.EncodeToString(randBytes(t, n)) }
