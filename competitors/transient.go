package competitors

import (
	"errors"

	"github.com/apache/iceberg-go/catalog/rest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront"
)

// Transient reports whether err is a server fault that may pass when the
// request is repeated: a REST 5xx (iceberg-go maps a 500 on create to
// "commit state unknown"), a gRPC Unavailable, ResourceExhausted,
// Aborted or Internal status, or a PostgreSQL serialization failure or
// deadlock (SQLSTATE 40001, 40P01: the transaction was rolled back and may
// be run again) that outlasted iceberg-go's own retries. The runner retries dataset setup on such
// errors; a measured operation is never retried.
func Transient(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, rest.ErrServerError), errors.Is(err, rest.ErrServiceUnavailable),
		errors.Is(err, rest.ErrCommitStateUnknown), errors.Is(err, grpcfront.ErrUnavailable):
		return true
	}
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) {
		switch pgErr.SQLState() {
		case "40001", "40P01":
			return true
		}
	}
	var st interface{ GRPCStatus() *status.Status }
	if errors.As(err, &st) {
		switch st.GRPCStatus().Code() {
		case codes.Unavailable, codes.ResourceExhausted, codes.Aborted, codes.Internal:
			return true
		}
	}
	return false
}
