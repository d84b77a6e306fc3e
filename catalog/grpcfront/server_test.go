package grpcfront_test

import (
	"context"
	"errors"
	"testing"

	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// panickyCatalog is the real embedded catalog whose DropTable panics: a
// faulty catalog is something no real part here produces on demand.
type panickyCatalog struct{ icecatalog.Catalog }

func (panickyCatalog) DropTable(context.Context, table.Identifier) error { panic("boom") }

// TestHandlerPanicIsOneFailedCall: a panicking handler fails that call with
// Internal and the server keeps serving.
func TestHandlerPanicIsOneFailedCall(t *testing.T) {
	ctx := context.Background()
	s := serve(t, panickyCatalog{openEmbedded(t)}, grpcfront.ServerOptions{})
	cl := dial(t, s.addr, grpcfront.ClientOptions{})
	err := cl.DropTable(ctx, table.Identifier{"a", "b"})
	if status.Code(err) != codes.Internal || !errors.Is(err, grpcfront.ErrRemote) {
		t.Fatalf("panicking call: %v (code %v), want Internal/ErrRemote", err, status.Code(err))
	}
	if err := cl.CreateNamespace(ctx, table.Identifier{"still"}, nil); err != nil {
		t.Fatalf("server stopped serving after a panic: %v", err)
	}
}

func TestNewServerBadInput(t *testing.T) {
	if _, err := grpcfront.NewServer(nil, grpcfront.ServerOptions{}); !errors.Is(err, grpcfront.ErrNilCatalog) {
		t.Errorf("nil catalog: %v", err)
	}
	cat := openEmbedded(t)
	if _, err := grpcfront.NewServer(cat, grpcfront.ServerOptions{Credentials: []grpcfront.Credential{{ID: "x"}}}); !errors.Is(err, grpcfront.ErrBadCredential) {
		t.Errorf("empty secret: %v", err)
	}
}
