package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport/s3"
)

// TestHostileLocation runs the location and IO probes of a hostile client
// against real `katbench serve rest` and `serve grpc` processes, on a
// file:// warehouse and on an s3:// warehouse on versitygw: properties that
// aim metadata or data files outside the warehouse (another directory, a
// bare path, a ".." path that url.JoinPath would clean, another bucket,
// the warehouse bucket outside its prefix), and table IO properties that
// name an attacker's S3 endpoint and keys. Every such request is refused
// with a client error naming the property; afterwards no file exists
// outside the warehouse, no object outside the warehouse prefix or in the
// victim bucket, the attacker's listener accepted no connection, and the
// server's access key never reached it.
func TestHostileLocation(t *testing.T) {
	bin := needKatbench(t)
	for _, front := range []string{"rest", "grpc"} {
		t.Run(front+"/file", func(t *testing.T) {
			root := t.TempDir()
			catDir := filepath.Join(root, "cat")
			whDir := filepath.Join(root, "wh")
			outside := filepath.Join(root, "outside")
			wh := "file://" + filepath.ToSlash(whDir)
			env := &hostileEnv{
				warehouse: wh,
				hostile: map[string]string{
					"file URI":  "file://" + filepath.ToSlash(outside),
					"bare path": outside,
					"dot-dot":   wh + "/ns/t/../../../outside",
					"s3 bucket": "s3://victim/pwned",
				},
				putMetadata: func(t *testing.T, rel string, raw []byte) string {
					p := filepath.Join(whDir, filepath.FromSlash(rel))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, raw, 0o644); err != nil {
						t.Fatal(err)
					}
					return wh + "/" + rel
				},
				assertContained: func(t *testing.T) {
					_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
						if err == nil && !d.IsDir() && !strings.HasPrefix(p, catDir+string(filepath.Separator)) && !strings.HasPrefix(p, whDir+string(filepath.Separator)) {
							t.Errorf("file outside the warehouse and catalog dir: %s", p)
						}
						return nil
					})
					if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s exists (stat: %v)", outside, err)
					}
				},
				attacker: newAttackerListener(t),
			}
			args := []string{"serve", front, "--addr", "127.0.0.1:0", "--dir", catDir, "--warehouse", wh}
			env.run(t, bin, front, args, nil)
		})
	}

	t.Run("s3", func(t *testing.T) {
		store := testenv.Versitygw(t)
		mc, _, err := s3.NewClient(s3.Config{Endpoint: store.Endpoint, AccessKey: store.AccessKey, SecretKey: store.SecretKey, Region: store.Region})
		if err != nil {
			t.Fatal(err)
		}
		var raw [4]byte
		_, _ = rand.Read(raw[:])
		suffix := hex.EncodeToString(raw[:])
		whBucket, victim := "kb-wh-"+suffix, "kb-victim-"+suffix
		ctx := context.Background()
		for _, b := range []string{whBucket, victim} {
			if err := mc.MakeBucket(ctx, b, minio.MakeBucketOptions{}); err != nil {
				t.Fatalf("make bucket %s: %v", b, err)
			}
		}
		procEnv := []string{
			s3.EnvEndpoint + "=" + store.Endpoint,
			s3.EnvAccessKey + "=" + store.AccessKey,
			s3.EnvSecretKey + "=" + store.SecretKey,
			s3.EnvRegion + "=" + store.Region,
		}
		for _, front := range []string{"rest", "grpc"} {
			t.Run(front, func(t *testing.T) {
				prefix := "wh-" + front
				wh := "s3://" + whBucket + "/" + prefix
				env := &hostileEnv{
					warehouse: wh,
					accessKey: store.AccessKey,
					hostile: map[string]string{
						"victim bucket":  "s3://" + victim + "/pwned",
						"outside prefix": "s3://" + whBucket + "/pwned-" + front,
						"dot-dot":        wh + "/ns/t/../../../pwned-dd-" + front,
						"file URI":       "file:///tmp/katbench-hostile-" + suffix,
					},
					putMetadata: func(t *testing.T, rel string, raw []byte) string {
						if _, err := mc.PutObject(ctx, whBucket, prefix+"/"+rel, bytes.NewReader(raw), int64(len(raw)), minio.PutObjectOptions{}); err != nil {
							t.Fatal(err)
						}
						return wh + "/" + rel
					},
					assertContained: func(t *testing.T) {
						for obj := range mc.ListObjects(ctx, victim, minio.ListObjectsOptions{Recursive: true}) {
							if obj.Err != nil {
								t.Fatalf("list %s: %v", victim, obj.Err)
							}
							t.Errorf("object in the victim bucket: s3://%s/%s", victim, obj.Key)
						}
						n := 0
						for obj := range mc.ListObjects(ctx, whBucket, minio.ListObjectsOptions{Recursive: true}) {
							if obj.Err != nil {
								t.Fatalf("list %s: %v", whBucket, obj.Err)
							}
							if strings.HasPrefix(obj.Key, prefix+"/") {
								n++
							} else if !strings.HasPrefix(obj.Key, "wh-") {
								t.Errorf("object outside every warehouse prefix: s3://%s/%s", whBucket, obj.Key)
							}
							if strings.Contains(obj.Key, "pwned") {
								t.Errorf("hostile object: s3://%s/%s", whBucket, obj.Key)
							}
						}
						if n == 0 {
							t.Errorf("no object under s3://%s/%s: the accepted writes did not reach the warehouse", whBucket, prefix)
						}
						if _, err := os.Stat("/tmp/katbench-hostile-" + suffix); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("local file written for an s3 warehouse (stat: %v)", err)
						}
					},
					attacker: newAttackerListener(t),
				}
				args := []string{"serve", front, "--addr", "127.0.0.1:0", "--dir", filepath.Join(t.TempDir(), "cat"), "--warehouse", wh}
				if front == "rest" {
					// Vending must not change what the server itself writes with.
					args = append(args, "--vend-storage-credentials")
				}
				env.run(t, bin, front, args, procEnv)
			})
		}
	})
}

// hostileEnv is one warehouse under attack.
type hostileEnv struct {
	warehouse string
	// hostile are location property values outside the warehouse.
	hostile map[string]string
	// accessKey is the server's S3 access key id ("" for file://).
	accessKey string
	// putMetadata stores raw at rel under the warehouse, as a client with
	// write access to the store could, and returns its location.
	putMetadata func(t *testing.T, rel string, raw []byte) string
	// assertContained checks that nothing exists outside the warehouse.
	assertContained func(t *testing.T)
	attacker        *attackerListener
}

// hostileProps are the location properties every probe tries.
var hostileProps = []string{"write.metadata.path", "write.data.path", "write.object-storage.path", "write.folder-storage.path"}

// run starts the server, runs the front's probes, stops the server and
// checks the aftermath.
func (e *hostileEnv) run(t *testing.T, bin, front string, args, procEnv []string) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), procEnv...)
	if front == "rest" {
		base, stop := testenv.ServeRest(t, cmd)
		e.restProbes(t, base)
		if log, err := stop(); err != nil {
			t.Errorf("serve rest: %v\n%s", err, log)
		}
	} else {
		addr := serveGRPC(t, cmd)
		e.grpcProbes(t, addr)
	}
	e.assertContained(t)
	if n := e.attacker.accepted.Load(); n != 0 {
		t.Errorf("the server opened %d connections to the endpoint a client named", n)
	}
	if got := e.attacker.received(); e.accessKey != "" && bytes.Contains(got, []byte(e.accessKey)) {
		t.Errorf("the server's access key reached the attacker's listener")
	}
}

// ioProps are a hostile client's table IO properties: the attacker's
// endpoint and keys.
func (e *hostileEnv) ioProps() iceberg.Properties {
	return iceberg.Properties{
		icebergio.S3EndpointURL:     "http://" + e.attacker.l.Addr().String(),
		icebergio.S3AccessKeyID:     "AKIAATTACKER",
		icebergio.S3SecretAccessKey: "attacker-secret",
		icebergio.S3Region:          "us-east-1",
		"s3.path-style-access":      "true",
	}
}

func (e *hostileEnv) restProbes(t *testing.T, base string) {
	schema := `{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]}`
	mustOK := func(path, body string) string {
		t.Helper()
		code, resp := restPost(t, base+path, body)
		if code != http.StatusOK && code != http.StatusNoContent {
			t.Fatalf("POST %s: %d %s", path, code, resp)
		}
		return resp
	}
	mustOK("/v1/namespaces", `{"namespace":["ns"]}`)
	mustOK("/v1/namespaces/ns/tables", `{"name":"t","schema":`+schema+`}`)
	refused := func(what, prop, path, body string) {
		t.Helper()
		code, resp := restPost(t, base+path, body)
		var er struct {
			Error struct {
				Message, Type string
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(resp), &er)
		if code != http.StatusBadRequest || er.Error.Type != "BadRequestException" || !strings.Contains(er.Error.Message, prop) {
			t.Errorf("%s: %d %s, want 400 BadRequestException naming %s", what, code, resp, prop)
		}
	}
	for name, val := range e.hostile {
		for _, prop := range hostileProps {
			props := jsonString(t, map[string]string{prop: val})
			set := `{"action":"set-properties","updates":` + props + `}`
			what := prop + "=" + name
			refused("create "+what, prop, "/v1/namespaces/ns/tables", `{"name":"c","schema":`+schema+`,"properties":`+props+`}`)
			refused("stage-create "+what, prop, "/v1/namespaces/ns/tables", `{"name":"c","stage-create":true,"schema":`+schema+`,"properties":`+props+`}`)
			refused("staged commit "+what, prop, "/v1/namespaces/ns/tables/c", `{"requirements":[{"type":"assert-create"}],"updates":[`+
				`{"action":"assign-uuid","uuid":"2c6b1b51-7d0e-4f3a-9f4b-0f6f0a1d3c11"},{"action":"upgrade-format-version","format-version":2},`+
				`{"action":"add-schema","schema":`+schema+`},{"action":"set-current-schema","schema-id":-1},`+
				`{"action":"set-location","location":`+jsonString(t, e.warehouse+"/ns/c")+`},`+set+`]}`)
			refused("set-properties "+what, prop, "/v1/namespaces/ns/tables/t", `{"requirements":[],"updates":[`+set+`]}`)
			refused("transaction "+what, prop, "/v1/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["ns"],"name":"t"},"requirements":[],"updates":[`+set+`]}]}`)
			meta := `{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":` + jsonString(t, e.warehouse+"/ns/reg") +
				`,"last-sequence-number":0,"last-updated-ms":1,"last-column-id":1,"current-schema-id":0,"schemas":[` + schema +
				`],"default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,"default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"properties":` + props + `}`
			loc := e.putMetadata(t, "ns/reg/metadata/00000-hostile.metadata.json", []byte(meta))
			refused("register "+what, prop, "/v1/namespaces/ns/register", `{"name":"r","metadata-location":`+jsonString(t, loc)+`}`)
		}
	}
	// Server-side request forgery: the attacker's endpoint and keys as
	// table properties, with metadata aimed at another bucket, and then on
	// a table inside the warehouse that the server writes to.
	clientIO := e.ioProps()
	ssrf := iceberg.Properties{"write.metadata.path": "s3://victim-ssrf/pwned"}
	for k, v := range clientIO {
		ssrf[k] = v
	}
	refused("SSRF create", "write.metadata.path", "/v1/namespaces/ns/tables", `{"name":"ssrf","schema":`+schema+`,"properties":`+jsonString(t, ssrf)+`}`)
	// Only the endpoint: a server that overlaid it would sign with its own keys.
	endpointOnly := jsonString(t, map[string]string{icebergio.S3EndpointURL: clientIO[icebergio.S3EndpointURL], "write.metadata.path": "s3://victim-ssrf/pwned"})
	refused("SSRF create, endpoint only", "write.metadata.path", "/v1/namespaces/ns/tables", `{"name":"ssrf","schema":`+schema+`,"properties":`+endpointOnly+`}`)
	mustOK("/v1/namespaces/ns/tables", `{"name":"io","schema":`+schema+`,"properties":`+jsonString(t, clientIO)+`}`)
	mustOK("/v1/namespaces/ns/tables/io", `{"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"v"}}]}`)
	mustOK("/v1/transactions/commit", `{"table-changes":[{"identifier":{"namespace":["ns"],"name":"io"},"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"w"}}]}]}`)
	if code, resp := restGet(t, base+"/v1/namespaces/ns/tables/io"); code != http.StatusOK || !strings.Contains(resp, `"k":"w"`) {
		t.Errorf("load io: %d %s", code, resp)
	}
}

func (e *hostileEnv) grpcProbes(t *testing.T, addr string) {
	ctx := context.Background()
	cl, err := grpcfront.Dial(ctx, addr, grpcfront.ClientOptions{})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer cl.Close()
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	if err := cl.CreateNamespace(ctx, table.Identifier{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	base, err := cl.CreateTable(ctx, table.Identifier{"ns", "t"}, sc)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what, prop string, err error) {
		t.Helper()
		if !errors.Is(err, iceberg.ErrInvalidArgument) || !strings.Contains(err.Error(), prop) {
			t.Errorf("%s: %v, want InvalidArgument naming %s", what, err, prop)
		}
	}
	for name, val := range e.hostile {
		for _, prop := range hostileProps {
			props := iceberg.Properties{prop: val}
			what := prop + "=" + name
			_, err := cl.CreateTable(ctx, table.Identifier{"ns", "c"}, sc, icecatalog.WithProperties(props))
			refused("CreateTable "+what, prop, err)
			_, _, err = cl.CommitTable(ctx, base.Identifier(), nil, []table.Update{table.NewSetPropertiesUpdate(props)})
			refused("CommitTable set-properties "+what, prop, err)
			_, _, err = cl.CommitTable(ctx, table.Identifier{"ns", "c"}, []table.Requirement{table.AssertCreate()}, []table.Update{
				table.NewAssignUUIDUpdate(base.Metadata().TableUUID()),
				table.NewAddSchemaUpdate(sc),
				table.NewSetCurrentSchemaUpdate(-1),
				table.NewSetLocationUpdate(e.warehouse + "/ns/c"),
				table.NewSetPropertiesUpdate(props),
			})
			refused("CommitTable assert-create "+what, prop, err)
		}
	}
	clientIO := e.ioProps()
	ssrf := iceberg.Properties{"write.metadata.path": "s3://victim-ssrf/pwned"}
	for k, v := range clientIO {
		ssrf[k] = v
	}
	_, err = cl.CreateTable(ctx, table.Identifier{"ns", "ssrf"}, sc, icecatalog.WithProperties(ssrf))
	refused("SSRF CreateTable", "write.metadata.path", err)
	// Only the endpoint: a server that overlaid it would sign with its own keys.
	_, err = cl.CreateTable(ctx, table.Identifier{"ns", "ssrf"}, sc, icecatalog.WithProperties(iceberg.Properties{
		icebergio.S3EndpointURL: clientIO[icebergio.S3EndpointURL], "write.metadata.path": "s3://victim-ssrf/pwned",
	}))
	refused("SSRF CreateTable, endpoint only", "write.metadata.path", err)
	tbl, err := cl.CreateTable(ctx, table.Identifier{"ns", "io"}, sc, icecatalog.WithProperties(clientIO))
	if err != nil {
		t.Fatalf("CreateTable with IO properties: %v", err)
	}
	if _, _, err := cl.CommitTable(ctx, tbl.Identifier(), nil, []table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})}); err != nil {
		t.Fatalf("CommitTable: %v", err)
	}
}

// attackerListener is an attacker's server on loopback: it counts the
// connections it accepts and keeps the first bytes of each.
type attackerListener struct {
	l        net.Listener
	accepted atomic.Int64
	mu       sync.Mutex
	got      []byte
}

func newAttackerListener(t *testing.T) *attackerListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &attackerListener{l: l}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			a.accepted.Add(1)
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 64<<10)
			n, _ := io.ReadAtLeast(conn, buf, 1)
			a.mu.Lock()
			a.got = append(a.got, buf[:n]...)
			a.mu.Unlock()
			conn.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return a
}

func (a *attackerListener) received() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return bytes.Clone(a.got)
}

// serveGRPC starts cmd (`katbench serve grpc --addr 127.0.0.1:0 …`) and
// returns the address it announced on stderr; it is stopped with SIGTERM
// (and must exit 0) when the test ends.
func serveGRPC(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start katbench serve grpc: %v", err)
	}
	addrRe := regexp.MustCompile(`serving gRPC at (\S+)`)
	found := make(chan string, 1)
	var mu sync.Mutex
	var log strings.Builder
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := addrRe.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		werr := make(chan error, 1)
		go func() { <-drained; werr <- cmd.Wait() }()
		select {
		case err := <-werr:
			if err != nil {
				mu.Lock()
				t.Errorf("serve grpc exited with %v:\n%s", err, log.String())
				mu.Unlock()
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("serve grpc did not exit within 30s of SIGTERM")
		}
	})
	select {
	case addr := <-found:
		return addr
	case <-drained:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("serve grpc exited without announcing its address:\n%s", log.String())
	case <-time.After(60 * time.Second):
		t.Fatal("serve grpc announced no address within 60s")
	}
	return ""
}

func restPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func restGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(fmt.Errorf("encode %v: %w", v, err))
	}
	return string(b)
}
