package competitors

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/serve"
	"github.com/nordisk/katbench/internal/sigv4"
)

const (
	sigKey    = "AKIDSIGV4TEST"
	sigSecret = "sigv4-secret-never-shown"
)

// awsEnv points the AWS credential chain at keys in the environment only.
func awsEnv(t *testing.T, key, secret string) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "",
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none, "AWS_PROFILE": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ROLE_ARN": "",
	} {
		t.Setenv(k, v)
	}
}

// startRESTFront serves a fresh embedded catalog over our REST front with
// opts on a loopback port, stopped at cleanup, and returns its URL.
func startRESTFront(t *testing.T, opts restserver.Options) string {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir(), Durability: catalog.None})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := restserver.New(cat, opts)
	if err != nil {
		t.Fatal(err)
	}
	run, err := serve.Listen("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Stop(serve.Grace) })
	return "http://" + run.Addr().String()
}

// sigv4Front serves a fresh catalog verifying SigV4 signatures for key
// sigKey in eu-north-1 for glue.
func sigv4Front(t *testing.T) string {
	t.Helper()
	v, err := sigv4.New(sigKey, sigSecret, "eu-north-1", "glue", nil)
	if err != nil {
		t.Fatal(err)
	}
	return startRESTFront(t, restserver.Options{SigV4: v})
}

func sigProps(region, name string) map[string]string {
	return map[string]string{propSigV4: "true", propSignRegion: region, propSignName: name}
}

// TestRESTSigV4 drives our front, verifying SigV4, through iceberg-go's
// signing REST client: the right key, region and service work for the
// catalog's requests, Control and the conditional load katbench sends
// itself; a wrong secret, region or service is refused at connect; and
// no refusal shows the secret.
func TestRESTSigV4(t *testing.T) {
	u := sigv4Front(t)

	for _, tc := range []struct {
		name, secret, region, service, want string
	}{
		{"wrong secret", "not-the-secret", "eu-north-1", "glue", "signature does not match"},
		{"wrong region", sigSecret, "us-west-2", "glue", `region "us-west-2"`},
		{"wrong service", sigSecret, "eu-north-1", "s3tables", `service "s3tables"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awsEnv(t, sigKey, tc.secret)
			_, err := newCompetitor(t, "rest", Config{Args: []string{u}, Props: sigProps(tc.region, tc.service)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a refusal saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), sigSecret) || strings.Contains(err.Error(), tc.secret) {
				t.Fatalf("the refusal shows a secret: %v", err)
			}
		})
	}

	t.Run("unsigned", func(t *testing.T) {
		awsEnv(t, "", "")
		if _, err := newCompetitor(t, "rest", Config{Args: []string{u}}); err == nil || !strings.Contains(err.Error(), "AWS4-HMAC-SHA256") {
			t.Fatalf("an unsigned client got %v, want a refusal asking for SigV4", err)
		}
		_, err := newCompetitor(t, "rest", Config{Args: []string{u}, Props: sigProps("eu-north-1", "glue")})
		if err == nil || !strings.Contains(err.Error(), "no AWS credentials") {
			t.Fatalf("no credentials anywhere: %v, want an error saying so", err)
		}
	})

	t.Run("signed", func(t *testing.T) {
		awsEnv(t, sigKey, sigSecret)
		c, err := newCompetitor(t, "rest", Config{Args: []string{u}, Props: sigProps("eu-north-1", "glue")})
		if err != nil {
			t.Fatal(err)
		}
		if c.Params()["auth"] != "sigv4" {
			t.Errorf("params.auth = %v, want sigv4", c.Params()["auth"])
		}
		exercise(t, c)
		ctl, _ := As[Controller](c)
		if err := ctl.Control(context.Background()); err != nil {
			t.Fatalf("control: %v", err)
		}
		if _, err := c.(*restCompetitor).RevalidateTable(context.Background(), table.Identifier{"kb", "t"}, ""); err != nil {
			t.Fatalf("direct load: %v", err)
		}
		// A namespace name needing escaping, a list with a query: the
		// canonical path and query match on both sides.
		ns := table.Identifier{"a b+c~d%é"}
		if err := c.Catalog().CreateNamespace(context.Background(), ns, nil); err != nil {
			t.Fatalf("create namespace %v: %v", ns, err)
		}
		if _, err := c.Catalog().CreateTable(context.Background(), append(ns, "t 1"), restSchema); err != nil {
			t.Fatalf("create table: %v", err)
		}
		n := 0
		for _, err := range c.Catalog().ListTables(context.Background(), ns) {
			if err != nil {
				t.Fatalf("list tables: %v", err)
			}
			n++
		}
		if n != 1 {
			t.Fatalf("listed %d tables, want 1", n)
		}
	})
}

func TestSigV4PropErrors(t *testing.T) {
	awsEnv(t, sigKey, sigSecret)
	for _, p := range []map[string]string{
		{propSignRegion: "eu-north-1"},
		{propSigV4: "yes"},
		{propSigV4: "true"}, // no region anywhere
		{propSigV4: "true", propSignRegion: "eu-north-1", "credential": "a:b"},
	} {
		if _, _, err := sigV4Options(context.Background(), p, nil); err == nil || errors.Is(err, context.Canceled) {
			t.Errorf("%v accepted", p)
		}
	}
}

// TestRESTSigV4Competitor runs rest-sigv4 with no AWS credentials
// anywhere: its own key signs every request and its front verifies them,
// an unsigned request is refused, and the key is on no line.
func TestRESTSigV4Competitor(t *testing.T) {
	awsEnv(t, "", "")
	c, err := newCompetitor(t, "rest-sigv4", Config{Dir: t.TempDir(), Durability: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "rest-sigv4" || c.Params()["auth"] != "sigv4" {
		t.Fatalf("name %q, params.auth %v: want rest-sigv4, sigv4", c.Name(), c.Params()["auth"])
	}
	exercise(t, c)
	ctl, _ := As[Controller](c)
	if err := ctl.Control(context.Background()); err != nil {
		t.Fatalf("signed control: %v", err)
	}
	rc := c.(*restCompetitor)
	resp, err := http.Get(rc.base + "/v1/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("an unsigned request got %s, want 403", resp.Status)
	}
	creds, err := rc.signer.cfg.Credentials.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(c.Params())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{creds.AccessKeyID, creds.SecretAccessKey} {
		if len(s) < 16 || strings.Contains(string(line), s) {
			t.Fatalf("key part %d chars long, on the line: %v", len(s), strings.Contains(string(line), s))
		}
	}
}

// BenchmarkSigV4Sign is the client's cost of signing one bodiless request
// (a loadTable GET) with the AWS SDK's signer, as every request of a
// SigV4 REST client pays it.
func BenchmarkSigV4Sign(b *testing.B) {
	key, err := newSigV4Key()
	if err != nil {
		b.Fatal(err)
	}
	_, s, err := sigV4Options(context.Background(), key.clientProps(), key)
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:8181/v1/namespaces/kb_0/tables/t_00042", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	b.ReportAllocs()
	for b.Loop() {
		req.Header.Del("Authorization")
		req.Header.Del("X-Amz-Date")
		if err := s.sign(req); err != nil {
			b.Fatal(err)
		}
	}
}
