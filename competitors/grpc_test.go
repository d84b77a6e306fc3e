package competitors

import (
	"context"
	"errors"
	"net"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/catalog/grpcfront"
)

func TestGRPCInProcess(t *testing.T) {
	f, err := Lookup("grpc")
	if err != nil || !f.Durability {
		t.Fatalf("grpc factory: %+v %v", f, err)
	}
	t.Setenv("KATBENCH_GRPC_URL", "")
	for _, tc := range []struct {
		name  string
		props map[string]string
	}{
		{"no auth", nil},
		{"credential", map[string]string{"credential": "bench:s3cret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newCompetitor(t, "grpc", Config{Dir: t.TempDir(), Durability: "none", Props: tc.props})
			if err != nil {
				t.Fatal(err)
			}
			ctl, ok := As[Controller](c)
			if !ok {
				t.Fatal("grpc is not a Controller")
			}
			if err := ctl.Control(context.Background()); err != nil {
				t.Fatalf("control: %v", err)
			}
			if e, ok := As[Ephemeral](c); !ok || !e.Ephemeral() {
				t.Fatal("in-process grpc should be ephemeral")
			}
			exercise(t, c)
			res, ok := As[MetadataResolver](c)
			if !ok {
				t.Fatal("grpc is not a MetadataResolver")
			}
			meta, err := res.ResolveMetadata(context.Background(), table.Identifier{"kb", "t"})
			if err != nil || meta.TableUUID().String() == "" {
				t.Fatalf("resolve metadata: %v", err)
			}
			p := c.Params()
			if p["server"] != "in-process" || p["durability"] != "none" {
				t.Fatalf("params = %v", p)
			}
			if _, leaked := p["prop.credential"]; leaked {
				t.Fatal("credential leaked into params")
			}
			if err := c.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if err := ctl.Control(context.Background()); err == nil {
				t.Fatal("control after close succeeded")
			}
		})
	}
}

// startFront serves a fresh embedded catalog on loopback for the external
// mode tests.
func startFront(t *testing.T) string {
	t.Helper()
	cat, err := catalog.Open(context.Background(), catalog.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := grpcfront.NewServer(cat, grpcfront.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Stop()
		<-done
		cat.Close()
	})
	return l.Addr().String()
}

func TestGRPCExternal(t *testing.T) {
	addr := startFront(t)
	t.Run("argument", func(t *testing.T) {
		t.Setenv("KATBENCH_GRPC_URL", "")
		c, err := newCompetitor(t, "grpc", Config{Args: []string{addr}})
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := As[Ephemeral](c); !ok || e.Ephemeral() {
			t.Fatal("external grpc must not be ephemeral")
		}
		if c.Params()["addr"] != addr || c.Params()["server"] != "external" {
			t.Fatalf("params = %v", c.Params())
		}
		exercise(t, c)
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("KATBENCH_GRPC_URL", addr)
		c, err := newCompetitor(t, "grpc", Config{})
		if err != nil {
			t.Fatal(err)
		}
		ok, err := c.Catalog().CheckTableExists(context.Background(), table.Identifier{"kb", "t"})
		if err != nil || !ok {
			t.Fatalf("table made through the argument is not seen through the env address: %v %v", ok, err)
		}
	})
}

func TestGRPCBadInput(t *testing.T) {
	t.Setenv("KATBENCH_GRPC_URL", "")
	for _, tc := range []struct {
		name string
		cfg  Config
		want error
	}{
		{"not host:port", Config{Args: []string{"nohost"}}, grpcfront.ErrBadAddress},
		{"too many args", Config{Args: []string{"127.0.0.1:1", "x"}}, nil},
		{"bad credential", Config{Dir: t.TempDir(), Props: map[string]string{"credential": "nocolon"}}, grpcfront.ErrBadCredential},
		{"bad durability", Config{Dir: t.TempDir(), Durability: "sometimes"}, catalog.ErrInvalidDurability},
		{"no dir", Config{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newCompetitor(t, "grpc", tc.cfg)
			if err == nil {
				c.Close()
				t.Fatal("want an error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestGRPCTimeSplit checks that the gRPC client times its calls and reads
// the server's own time from the trailer our front sends: every call of a
// window counted, the server's time inside the round trip's.
func TestGRPCTimeSplit(t *testing.T) {
	t.Setenv("KATBENCH_GRPC_URL", "")
	c, err := newCompetitor(t, "grpc", Config{Dir: t.TempDir(), Durability: "none"})
	if err != nil {
		t.Fatal(err)
	}
	ts, ok := As[TimeSplitter](c)
	if !ok {
		t.Fatal("grpc is not a TimeSplitter")
	}
	ctx := context.Background()
	before := ts.TimeSplit()
	const calls = 20
	for range calls {
		if err := c.Catalog().CreateNamespace(ctx, table.Identifier{"ns" + t.Name()}, nil); err != nil && !errors.Is(err, icecatalog.ErrNamespaceAlreadyExists) {
			t.Fatal(err)
		}
	}
	after := ts.TimeSplit()
	if got := after.Requests - before.Requests; got != calls {
		t.Fatalf("%d calls timed, want %d", got, calls)
	}
	if got := after.ServerTimed - before.ServerTimed; got != calls {
		t.Fatalf("%d calls carried the server's time, want %d", got, calls)
	}
	head, server := after.Head-before.Head, after.Server-before.Server
	if server <= 0 || server > head {
		t.Fatalf("server time %v, round trips %v: want 0 < server ≤ round trips", server, head)
	}
}
