package grpcfront_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
)

var benchCred = grpcfront.Credential{ID: "bench", Secret: "s3cret:with-colon"}

// rawToken gets a token from the server at addr with a bare generated client.
func rawToken(t *testing.T, addr string, c grpcfront.Credential) string {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := catalogv1.NewCatalogServiceClient(conn).GetToken(context.Background(),
		&catalogv1.GetTokenRequest{Id: c.ID, Secret: c.Secret})
	if err != nil {
		t.Fatalf("get token: %v", err)
	}
	return resp.GetToken()
}

func TestAuth(t *testing.T) {
	ctx := context.Background()
	a := serve(t, openEmbedded(t), grpcfront.ServerOptions{Credentials: []grpcfront.Credential{benchCred}})
	b := serve(t, openEmbedded(t), grpcfront.ServerOptions{Credentials: []grpcfront.Credential{benchCred}})
	// Every token from short is expired on arrival.
	short := serve(t, openEmbedded(t), grpcfront.ServerOptions{
		Credentials: []grpcfront.Credential{benchCred}, TokenTTL: time.Nanosecond,
	})

	refused := []struct {
		name string
		addr string
		opts grpcfront.ClientOptions
	}{
		{"no token", a.addr, grpcfront.ClientOptions{}},
		{"bad secret", a.addr, grpcfront.ClientOptions{Credential: grpcfront.Credential{ID: "bench", Secret: "wrong"}}},
		{"unknown id", a.addr, grpcfront.ClientOptions{Credential: grpcfront.Credential{ID: "who", Secret: benchCred.Secret}}},
		{"made-up token", a.addr, grpcfront.ClientOptions{Token: "0123456789abcdef"}},
		{"token from another instance", a.addr, grpcfront.ClientOptions{Token: rawToken(t, b.addr, benchCred)}},
		{"expired token", short.addr, grpcfront.ClientOptions{Token: rawToken(t, short.addr, benchCred)}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := grpcfront.Dial(ctx, tc.addr, tc.opts)
			if err == nil {
				cl.Close()
				t.Fatal("dial succeeded, want refusal")
			}
			if !errors.Is(err, grpcfront.ErrUnauthenticated) || status.Code(err) != codes.Unauthenticated {
				t.Fatalf("err = %v (code %v), want ErrUnauthenticated", err, status.Code(err))
			}
		})
	}

	t.Run("refused before reaching the catalog", func(t *testing.T) {
		// A raw call without metadata must not create anything.
		conn, err := grpc.NewClient("passthrough:///"+a.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_, err = catalogv1.NewCatalogServiceClient(conn).CreateNamespace(ctx, &catalogv1.CreateNamespaceRequest{Namespace: []string{"sneaky"}})
		if status.Code(err) != codes.Unauthenticated {
			t.Fatalf("create namespace without token: %v, want Unauthenticated", err)
		}
		cl := dial(t, a.addr, grpcfront.ClientOptions{Credential: benchCred})
		ok, err := cl.CheckNamespaceExists(ctx, table.Identifier{"sneaky"})
		if err != nil || ok {
			t.Fatalf("namespace created by a refused call: exists=%v err=%v", ok, err)
		}
	})

	t.Run("credential works", func(t *testing.T) {
		cl := dial(t, a.addr, grpcfront.ClientOptions{Credential: benchCred})
		if err := cl.CreateNamespace(ctx, table.Identifier{"authed"}, nil); err != nil {
			t.Fatalf("create namespace: %v", err)
		}
		if ok, err := cl.CheckNamespaceExists(ctx, table.Identifier{"authed"}); err != nil || !ok {
			t.Fatalf("exists = %v, %v", ok, err)
		}
	})

	t.Run("credential refreshes a token near expiry", func(t *testing.T) {
		// Tokens valid for less than the client's refresh margin: every call
		// fetches a fresh one from inside the call's credentials hook.
		near := serve(t, openEmbedded(t), grpcfront.ServerOptions{
			Credentials: []grpcfront.Credential{benchCred}, TokenTTL: 30 * time.Second,
		})
		cl := dial(t, near.addr, grpcfront.ClientOptions{Credential: benchCred})
		cctx, cancel := context.WithTimeout(ctx, hangGuard)
		defer cancel()
		for range 3 {
			if err := cl.Control(cctx); err != nil {
				t.Fatalf("control: %v", err)
			}
		}
	})

	t.Run("token given as is works", func(t *testing.T) {
		cl := dial(t, a.addr, grpcfront.ClientOptions{Token: rawToken(t, a.addr, benchCred)})
		if err := cl.Control(ctx); err != nil {
			t.Fatalf("control: %v", err)
		}
	})

}

// TestAuthServerRestart: a server restarted on the same address forgets its
// tokens; a client with a credential gets a new token and carries on.
func TestAuthServerRestart(t *testing.T) {
	ctx := context.Background()
	cat := openEmbedded(t)
	opts := grpcfront.ServerOptions{Credentials: []grpcfront.Credential{benchCred}}
	first, err := grpcfront.NewServer(cat, opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	done := make(chan error, 1)
	go func() { done <- first.Serve(l) }()

	cl := dial(t, addr, grpcfront.ClientOptions{Credential: benchCred})
	if err := cl.CreateNamespace(ctx, table.Identifier{"before"}, nil); err != nil {
		t.Fatalf("before restart: %v", err)
	}
	first.Stop()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if err := cl.Control(ctx); !errors.Is(err, grpcfront.ErrUnavailable) {
		t.Fatalf("call to a stopped server: %v, want ErrUnavailable", err)
	}

	second, err := grpcfront.NewServer(cat, opts)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	go func() { done <- second.Serve(l2) }()
	t.Cleanup(func() { second.Stop(); <-done })

	// The old token is unknown to the second instance: the call must be
	// refused once, then succeed with a fresh token. The client reconnects
	// in the background, so allow for a few Unavailable answers first.
	var last error
	for range 100 {
		last = cl.CreateNamespace(ctx, table.Identifier{"after"}, nil)
		if !errors.Is(last, grpcfront.ErrUnavailable) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if last != nil {
		t.Fatalf("after restart: %v", last)
	}
	if ok, err := cat.CheckNamespaceExists(ctx, table.Identifier{"after"}); err != nil || !ok {
		t.Fatalf("namespace made after restart: exists=%v err=%v", ok, err)
	}
}

func TestParseCredential(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    grpcfront.Credential
		wantErr bool
	}{
		{"id:secret", grpcfront.Credential{ID: "id", Secret: "secret"}, false},
		{"id:se:cret", grpcfront.Credential{ID: "id", Secret: "se:cret"}, false},
		{"", grpcfront.Credential{}, true},
		{"nocolon", grpcfront.Credential{}, true},
		{":secret", grpcfront.Credential{}, true},
		{"id:", grpcfront.Credential{}, true},
	} {
		got, err := grpcfront.ParseCredential(tc.in)
		if tc.wantErr {
			if !errors.Is(err, grpcfront.ErrBadCredential) {
				t.Errorf("ParseCredential(%q) err = %v, want ErrBadCredential", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseCredential(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
