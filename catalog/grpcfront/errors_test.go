package grpcfront_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

var testSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
	iceberg.NestedField{ID: 2, Name: "data", Type: iceberg.PrimitiveTypes.String},
)

// TestErrorRoundTrip makes every sentinel happen for real — the same failing
// operation run on the embedded catalog in-process and through the gRPC
// client over that catalog — and checks errors.Is answers the same for every
// sentinel the front knows, and the expected one in particular.
func TestErrorRoundTrip(t *testing.T) {
	ctx := context.Background()
	cl, cat := embeddedClient(t)

	ns := table.Identifier{"errs"}
	tbl := table.Identifier{"errs", "t"}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateTable(ctx, tbl, testSchema); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		want error
		code codes.Code
		op   func(icecatalog.Catalog) error
	}{
		{"no such table", icecatalog.ErrNoSuchTable, codes.NotFound, func(c icecatalog.Catalog) error {
			_, err := c.LoadTable(ctx, table.Identifier{"errs", "missing"})
			return err
		}},
		{"no such namespace", icecatalog.ErrNoSuchNamespace, codes.NotFound, func(c icecatalog.Catalog) error {
			_, err := c.LoadNamespaceProperties(ctx, table.Identifier{"nope"})
			return err
		}},
		{"table already exists", icecatalog.ErrTableAlreadyExists, codes.AlreadyExists, func(c icecatalog.Catalog) error {
			_, err := c.CreateTable(ctx, tbl, testSchema)
			return err
		}},
		{"namespace already exists", icecatalog.ErrNamespaceAlreadyExists, codes.AlreadyExists, func(c icecatalog.Catalog) error {
			return c.CreateNamespace(ctx, ns, nil)
		}},
		{"namespace not empty", icecatalog.ErrNamespaceNotEmpty, codes.FailedPrecondition, func(c icecatalog.Catalog) error {
			return c.DropNamespace(ctx, ns)
		}},
		{"invalid identifier", icecatalog.ErrInvalidIdentifier, codes.InvalidArgument, func(c icecatalog.Catalog) error {
			_, err := c.LoadTable(ctx, table.Identifier{"errs", "a/b"})
			return err
		}},
		// The same identifier and location rule as the REST front: the
		// embedded catalog's ValidateIdentifier and CheckLocation.
		{"percent-encoded dot-dot namespace", icecatalog.ErrInvalidIdentifier, codes.InvalidArgument, func(c icecatalog.Catalog) error {
			return c.CreateNamespace(ctx, table.Identifier{"%2e%2e"}, nil)
		}},
		{"location outside the warehouse", iceberg.ErrInvalidArgument, codes.InvalidArgument, func(c icecatalog.Catalog) error {
			_, err := c.CreateTable(ctx, table.Identifier{"errs", "outside"}, testSchema, icecatalog.WithLocation("file:///tmp/outside"))
			return err
		}},
		{"s3 location on a file warehouse", iceberg.ErrInvalidArgument, codes.InvalidArgument, func(c icecatalog.Catalog) error {
			_, err := c.CreateTable(ctx, table.Identifier{"errs", "s3"}, testSchema, icecatalog.WithLocation("s3://bucket/t"))
			return err
		}},
		{"relative set-location", iceberg.ErrInvalidArgument, codes.InvalidArgument, func(c icecatalog.Catalog) error {
			_, _, err := c.CommitTable(ctx, tbl, nil, []table.Update{table.NewSetLocationUpdate("relative/dir")})
			return err
		}},
		{"commit failed", table.ErrCommitFailed, codes.FailedPrecondition, func(c icecatalog.Catalog) error {
			_, _, err := c.CommitTable(ctx, tbl,
				[]table.Requirement{table.AssertTableUUID(uuid.New())},
				[]table.Update{table.NewSetPropertiesUpdate(iceberg.Properties{"k": "v"})})
			return err
		}},
	}
	all := grpcfront.Sentinels()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			direct := tc.op(cat)
			remote := tc.op(cl)
			if direct == nil || remote == nil {
				t.Fatalf("want errors, got direct=%v remote=%v", direct, remote)
			}
			if !errors.Is(remote, tc.want) {
				t.Errorf("remote error %v does not match %v", remote, tc.want)
			}
			for _, s := range all {
				if errors.Is(direct, s) != errors.Is(remote, s) {
					t.Errorf("errors.Is(_, %q): direct=%v remote=%v\n direct: %v\n remote: %v",
						s, errors.Is(direct, s), errors.Is(remote, s), direct, remote)
				}
			}
			if got := status.Code(remote); got != tc.code {
				t.Errorf("status code = %v, want %v", got, tc.code)
			}
		})
	}
}

// TestErrorMappingTable checks the mapping alone for every sentinel, alone
// and wrapped together with another, and for errors that name none.
func TestErrorMappingTable(t *testing.T) {
	ctx := context.Background()
	all := grpcfront.Sentinels()
	for _, s := range all {
		for _, in := range []error{
			fmt.Errorf("op x: %w", s),
			fmt.Errorf("op y: %w: %w", s, iceberg.ErrInvalidArgument),
		} {
			out := grpcfront.FromStatus(ctx, "127.0.0.1:1", "op", grpcfront.ToStatus(in))
			for _, other := range all {
				if errors.Is(in, other) != errors.Is(out, other) {
					t.Errorf("%v: errors.Is(_, %q) in=%v out=%v", in, other, errors.Is(in, other), errors.Is(out, other))
				}
			}
		}
	}

	plain := grpcfront.FromStatus(ctx, "127.0.0.1:1", "op", grpcfront.ToStatus(errors.New("disk on fire")))
	if !errors.Is(plain, grpcfront.ErrRemote) || status.Code(plain) != codes.Internal {
		t.Errorf("plain error mapped to %v (code %v), want ErrRemote/Internal", plain, status.Code(plain))
	}
	for _, s := range all {
		if errors.Is(plain, s) {
			t.Errorf("plain error matches sentinel %v", s)
		}
	}

	canceled := grpcfront.FromStatus(ctx, "a", "op", grpcfront.ToStatus(fmt.Errorf("x: %w", context.Canceled)))
	if !errors.Is(canceled, context.Canceled) {
		t.Errorf("canceled maps to %v", canceled)
	}
	deadline := grpcfront.FromStatus(ctx, "a", "op", grpcfront.ToStatus(context.DeadlineExceeded))
	if !errors.Is(deadline, context.DeadlineExceeded) {
		t.Errorf("deadline maps to %v", deadline)
	}
}
