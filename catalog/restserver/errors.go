package restserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// Sentinel errors for request problems the server detects itself. Handlers
// wrap them with context; [statusOf] maps them to HTTP statuses.
var (
	// ErrBadRequest is malformed input: bad JSON, wrong types, missing fields.
	ErrBadRequest = errors.New("bad request")
	// ErrUnauthorized is a missing, unknown or expired bearer token, or wrong
	// client credentials.
	ErrUnauthorized = errors.New("not authorized")
	// ErrForbidden is a valid client asking for a scope it may not have.
	ErrForbidden = errors.New("forbidden")
	// ErrBodyTooLarge is a request body over Options.MaxBodyBytes.
	ErrBodyTooLarge = errors.New("request body too large")
	// ErrNoSuchRoute is a path that names no REST route.
	ErrNoSuchRoute = errors.New("no such route")
	// ErrUnprocessable is well-formed input that cannot be applied, such as
	// a property both removed and updated in one request.
	ErrUnprocessable = errors.New("unprocessable request")
	// ErrUnsupported is a valid request for a feature this server lacks
	// (for example stage-create).
	ErrUnsupported = errors.New("unsupported operation")

	// errCommitStateUnknown marks a commit (table, view or multi-table)
	// that failed for a reason the server cannot place: the spec answers it
	// as 500 CommitStateUnknownException, since the client cannot tell
	// whether the change landed. See commitStateUnknown.
	errCommitStateUnknown = errors.New("commit state unknown")

	// errIllegalArgument is well-formed input the metadata rules refuse (a
	// view version with two queries for one dialect). It is answered as 400
	// with the type IllegalArgumentException, which the reference client
	// raises as such.
	errIllegalArgument = errors.New("illegal argument")
)

// errorModel is the spec's ErrorModel, wrapped in IcebergErrorResponse.
type errorModel struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
}

type errorResponse struct {
	Error errorModel `json:"error"`
}

// statusOf maps an error to an HTTP status and the spec's error type name.
// The order matters: a commit conflict may also wrap a catalog sentinel.
func statusOf(err error) (int, string) {
	switch {
	case errors.Is(err, errCommitStateUnknown):
		return http.StatusInternalServerError, "CommitStateUnknownException"
	case errors.Is(err, ErrBodyTooLarge):
		return http.StatusRequestEntityTooLarge, "RequestTooLargeException"
	case errors.Is(err, ErrUnauthorized):
		return http.StatusUnauthorized, "NotAuthorizedException"
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden, "ForbiddenException"
	case errors.Is(err, ErrNoSuchRoute):
		return http.StatusNotFound, "NoSuchRouteException"
	case errors.Is(err, table.ErrCommitFailed):
		return http.StatusConflict, "CommitFailedException"
	case errors.Is(err, errIllegalArgument):
		return http.StatusBadRequest, "IllegalArgumentException"
	case errors.Is(err, catalog.ErrInvalidIdentifier), errors.Is(err, ErrBadRequest),
		errors.Is(err, iceberg.ErrInvalidArgument), errors.Is(err, table.ErrInvalidRequirement):
		return http.StatusBadRequest, "BadRequestException"
	case errors.Is(err, catalog.ErrNoSuchView):
		return http.StatusNotFound, "NoSuchViewException"
	case errors.Is(err, catalog.ErrNoSuchTable):
		return http.StatusNotFound, "NoSuchTableException"
	case errors.Is(err, catalog.ErrNoSuchNamespace):
		return http.StatusNotFound, "NoSuchNamespaceException"
	case errors.Is(err, catalog.ErrTableAlreadyExists), errors.Is(err, catalog.ErrNamespaceAlreadyExists),
		errors.Is(err, catalog.ErrViewAlreadyExists):
		return http.StatusConflict, "AlreadyExistsException"
	case errors.Is(err, catalog.ErrNamespaceNotEmpty):
		return http.StatusConflict, "NamespaceNotEmptyException"
	case errors.Is(err, ErrUnprocessable):
		return http.StatusUnprocessableEntity, "UnprocessableEntityException"
	case errors.Is(err, ErrUnsupported), errors.Is(err, iceberg.ErrNotImplemented):
		return http.StatusNotAcceptable, "UnsupportedOperationException"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "ServiceUnavailableException"
	default:
		return http.StatusInternalServerError, "ServerErrorException"
	}
}

// commitStateUnknown marks err, from a commit route, as
// errCommitStateUnknown when it would be a 500; any other error is returned
// as it is.
func commitStateUnknown(err error) error {
	if code, _ := statusOf(err); code == http.StatusInternalServerError {
		return fmt.Errorf("%w: %w", errCommitStateUnknown, err)
	}
	return err
}

// writeError sends err as the spec's error body with its mapped status. A
// 500 is logged: it is a server fault, never a client's mistake.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code, typ := statusOf(err)
	if code == http.StatusInternalServerError {
		s.log.Error("restserver: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="katbench"`)
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(code)
		return
	}
	s.writeJSON(w, code, errorResponse{Error: errorModel{Message: messageOf(err), Type: typ, Code: code}})
}

// writeMethodNotAllowed answers 405 with the Allow header listing what the
// route accepts.
func (s *Server) writeMethodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	code := http.StatusMethodNotAllowed
	if r.Method == http.MethodHead {
		w.WriteHeader(code)
		return
	}
	s.writeJSON(w, code, errorResponse{Error: errorModel{
		Message: "method " + strconv.Quote(r.Method) + " not allowed; allowed: " + allow,
		Type:    "MethodNotAllowedException",
		Code:    code,
	}})
}

// writeExists answers a HEAD existence check: 204 when the object exists,
// a bare 404 when it does not (HEAD has no body), the mapped error otherwise.
func (s *Server) writeExists(w http.ResponseWriter, r *http.Request, ok bool, err error, what string, ident []string) {
	switch {
	case err != nil:
		s.writeError(w, r, fmt.Errorf("check %s %v: %w", what, ident, err))
	case ok:
		writeNoContent(w)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}
