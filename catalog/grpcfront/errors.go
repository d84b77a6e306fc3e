package grpcfront

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Errors of the gRPC path itself, which no in-process catalog returns.
var (
	// ErrUnavailable is returned when the server cannot be reached (not
	// running, stopped mid-run, connection refused or reset).
	ErrUnavailable = errors.New("grpc catalog server unavailable")
	// ErrUnauthenticated is returned when the server refused the call's
	// credentials: no token, an unknown or expired token, a bad credential.
	ErrUnauthenticated = errors.New("grpc catalog: unauthenticated")
	// ErrRemote is wrapped by every other error the server returned that
	// names no known sentinel (internal errors, unimplemented methods).
	ErrRemote = errors.New("grpc catalog: remote error")
)

// errorDomain is the ErrorInfo domain of every error this service returns.
const errorDomain = "katbench.catalog.v1"

// sentinelsKey is the ErrorInfo metadata key listing, comma-separated, the
// reasons of every sentinel the server-side error matched (an error may wrap
// several, e.g. an invalid identifier reported as a missing table).
const sentinelsKey = "sentinels"

// sentinel ties one iceberg-go sentinel error to its wire reason and the
// gRPC code it is reported with.
type sentinel struct {
	reason string
	err    error
	code   codes.Code
}

// sentinels is in priority order: the first one an error matches decides the
// status code and the ErrorInfo reason.
var sentinels = []sentinel{
	{"INVALID_IDENTIFIER", icecatalog.ErrInvalidIdentifier, codes.InvalidArgument},
	{"NO_SUCH_TABLE", icecatalog.ErrNoSuchTable, codes.NotFound},
	{"NO_SUCH_NAMESPACE", icecatalog.ErrNoSuchNamespace, codes.NotFound},
	{"NO_SUCH_VIEW", icecatalog.ErrNoSuchView, codes.NotFound},
	{"TABLE_ALREADY_EXISTS", icecatalog.ErrTableAlreadyExists, codes.AlreadyExists},
	{"NAMESPACE_ALREADY_EXISTS", icecatalog.ErrNamespaceAlreadyExists, codes.AlreadyExists},
	{"VIEW_ALREADY_EXISTS", icecatalog.ErrViewAlreadyExists, codes.AlreadyExists},
	{"NAMESPACE_NOT_EMPTY", icecatalog.ErrNamespaceNotEmpty, codes.FailedPrecondition},
	{"COMMIT_FAILED", table.ErrCommitFailed, codes.FailedPrecondition},
	{"COMMIT_DIVERGED", table.ErrCommitDiverged, codes.FailedPrecondition},
	{"INVALID_REQUIREMENT", table.ErrInvalidRequirement, codes.InvalidArgument},
	{"INVALID_ARGUMENT", iceberg.ErrInvalidArgument, codes.InvalidArgument},
}

func sentinelByReason(reason string) (sentinel, bool) {
	for _, s := range sentinels {
		if s.reason == reason {
			return s, true
		}
	}
	return sentinel{}, false
}

// toStatus turns a catalog error into the gRPC status error the server
// returns. Context errors become Canceled / DeadlineExceeded; errors matching
// no sentinel become Internal with the error text.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok && !matchesAnySentinel(err) {
		return err // already a status (from an interceptor or grpc itself)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	var matched []string
	code := codes.Internal
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			if matched == nil {
				code = s.code
			}
			matched = append(matched, s.reason)
		}
	}
	st := status.New(code, err.Error())
	if len(matched) == 0 {
		return st.Err()
	}
	withInfo, derr := st.WithDetails(&errdetails.ErrorInfo{
		Reason:   matched[0],
		Domain:   errorDomain,
		Metadata: map[string]string{sentinelsKey: strings.Join(matched, ",")},
	})
	if derr != nil {
		return st.Err()
	}
	return withInfo.Err()
}

func matchesAnySentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return true
		}
	}
	return false
}

// RemoteError is an error the server returned, mapped back to the iceberg-go
// sentinels it carried: errors.Is(err, catalog.ErrNoSuchTable) holds exactly
// when it held for the error on the server. Its GRPCStatus method exposes the
// original status for callers that want the code.
type RemoteError struct {
	// Op is the client operation ("load table a.b").
	Op string
	// Addr is the server address the client dialled.
	Addr string
	st   *status.Status
	// wrapped are the sentinels (or context/transport errors) it matches.
	wrapped []error
}

func (e *RemoteError) Error() string {
	if e.st.Code() == codes.Unavailable {
		return fmt.Sprintf("%s: %v at %s: %s", e.Op, ErrUnavailable, e.Addr, e.st.Message())
	}
	return fmt.Sprintf("%s: %s (grpc %s from %s)", e.Op, e.st.Message(), e.st.Code(), e.Addr)
}

// Unwrap returns the sentinels the error matches, for errors.Is.
func (e *RemoteError) Unwrap() []error { return e.wrapped }

// GRPCStatus returns the status the server sent.
func (e *RemoteError) GRPCStatus() *status.Status { return e.st }

// Code is the gRPC status code.
func (e *RemoteError) Code() codes.Code { return e.st.Code() }

// fromStatus maps an error from a gRPC call back to the caller's world.
// ctx is the call's context: when it is done, its error is wrapped too, so a
// cancelled call satisfies errors.Is(err, context.Canceled).
func fromStatus(ctx context.Context, addr, op string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%s: %w", op, errors.Join(cerr, err))
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	re := &RemoteError{Op: op, Addr: addr, st: st}
	switch st.Code() {
	case codes.Canceled:
		re.wrapped = append(re.wrapped, context.Canceled)
	case codes.DeadlineExceeded:
		re.wrapped = append(re.wrapped, context.DeadlineExceeded)
	case codes.Unavailable:
		re.wrapped = append(re.wrapped, ErrUnavailable)
	case codes.Unauthenticated:
		re.wrapped = append(re.wrapped, ErrUnauthenticated)
	}
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetDomain() != errorDomain {
			continue
		}
		reasons := info.GetMetadata()[sentinelsKey]
		if reasons == "" {
			reasons = info.GetReason()
		}
		for r := range strings.SplitSeq(reasons, ",") {
			if s, ok := sentinelByReason(r); ok {
				re.wrapped = append(re.wrapped, s.err)
			}
		}
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(re, cerr) {
		re.wrapped = append(re.wrapped, cerr)
	}
	if len(re.wrapped) == 0 {
		re.wrapped = append(re.wrapped, ErrRemote)
	}
	return re
}
